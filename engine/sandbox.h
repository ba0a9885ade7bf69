/* sandbox.h: the seccomp sandbox the executor process enters before it runs clients' kernels.
 *
 * The executor loads its kernel modules, starts its worker pool, maps its buffers and opens its
 * counters first; then gt_sandbox_enter leaves it only the system calls a running pool, a
 * running kernel and the executor's control loop need. Opening files, making sockets, running
 * programs, forking and reaching into other processes end the process with SIGSYS. */
#ifndef GT_SANDBOX_H
#define GT_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* What a fault handler learns: the signal and its si_code, the address (SIGSEGV, SIGBUS; 0
 * for SIGSYS) and, for SIGSYS raised by the filter, the refused system call (else -1). */
typedef struct gt_fault {
    int signal, code, syscall;
    uint64_t addr;
} gt_fault;

/* Called from the fault handler, on the thread that faulted. It may only use async-signal-
 * safe functions (write, sendmsg and stores into memory allocated beforehand); the process
 * dies of the signal when it returns. */
typedef void gt_sandbox_report_fn(const gt_fault *fault);

/* Installs the handler of every fatal fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP
 * and SIGSYS): the first fault is reported through report (may be NULL), and the process then
 * dies of that signal by its default action, so its parent still sees which. Faults on other
 * threads meanwhile wait for the end. Call it before gt_sandbox_enter, which forbids changing
 * SIGSYS's action afterwards. The handler only runs on threads that do not block the signal: on
 * a thread that blocks it, the kernel kills the process without calling it (the pool's workers
 * leave these signals unblocked). Returns 0 or a negative errno with a sentence in err. */
int gt_sandbox_catch_faults(gt_sandbox_report_fn *report, char *err, size_t errlen);

/* Sets no_new_privs, makes the process not dumpable, and installs the filter on every thread
 * of the process (the pool's workers included). There is no way back. Returns 0, or a negative
 * errno with a sentence in err: -EOPNOTSUPP when there is no seccomp() system call with thread
 * sync (an old kernel, or a process run by valgrind), another one when the filter cannot be
 * built or loaded. The filter is then not loaded, and the process must not go on to run
 * kernels (no_new_privs and not dumpable may already be set). */
int gt_sandbox_enter(char *err, size_t errlen);

/* The name of system call nr on this machine's architecture, for messages ("openat"). Returns
 * 0, or -ENOENT when the number names no system call; buf then reads "system call NR". */
int gt_sandbox_syscall_name(int nr, char *buf, size_t len);

#endif
