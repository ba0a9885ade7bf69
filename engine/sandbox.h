/* sandbox.h: the seccomp sandbox the executor process enters before it runs clients' kernels.
 *
 * The executor loads its kernel modules, starts its worker pool, maps its buffers and opens its
 * counters first; then gt_sandbox_enter leaves it only the system calls a running pool, a
 * running kernel and the executor's control loop need. Opening files, making sockets, running
 * programs, forking and reaching into other processes end the process with SIGSYS. */
#ifndef GT_SANDBOX_H
#define GT_SANDBOX_H

#include <stddef.h>

/* Called from the SIGSYS handler with the number of the refused system call (-1 when SIGSYS
 * was sent by someone rather than raised by the filter). It runs in a signal handler on the
 * thread that made the call, and so may only use async-signal-safe functions (write, sendmsg
 * and stores into memory allocated beforehand); the process dies of SIGSYS when it returns. */
typedef void gt_sandbox_report_fn(int syscall_nr);

/* Installs the SIGSYS handler that calls report and then lets SIGSYS kill the process with its
 * default action, so the parent still sees a death by SIGSYS. Call it before gt_sandbox_enter,
 * which forbids changing SIGSYS's action afterwards;
 * report may be NULL (the handler then only re-raises). The handler only runs on threads that
 * do not block SIGSYS: on a thread that blocks it (the pool's workers block every signal), the
 * kernel kills the process with SIGSYS without calling it. Returns 0 or a negative errno with a
 * sentence in err. */
int gt_sandbox_install_violation_handler(gt_sandbox_report_fn *report, char *err, size_t errlen);

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
