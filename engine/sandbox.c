/* sandbox.c: the executor's seccomp filter, written as one table of the system calls it keeps.
 * Every row allows one system call, possibly only for some values of one argument; a system
 * call with several rows is allowed when any of them matches. Anything else raises SIGSYS
 * (SCMP_ACT_TRAP), so the process can say which call it was before it dies. The filter is
 * loaded with TSYNC, so the pool's workers, started before, are sandboxed with the caller. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* si_code of a SIGSYS raised by a seccomp filter: the kernel's asm-generic/siginfo.h, which
   cannot be included beside glibc's signal.h, and glibc does not define it. */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

typedef struct rule {
    int nr;
    int refuse;  /* 0: allow; else fail the call with this errno instead of trapping */
    int arg;     /* the argument compared, or -1: any arguments */
    enum scmp_compare op;
    uint64_t a, b; /* the datums: for SCMP_CMP_MASKED_EQ, (argument & a) == b */
    bool own_pid; /* the argument must be this process's id (known only when entering) */
} rule;

#define ALLOW(name) {.nr = SCMP_SYS(name), .arg = -1}
#define ALLOW_IF(name, i, cmp, x, y) {.nr = SCMP_SYS(name), .arg = (i), .op = (cmp), .a = (x), .b = (y)}
#define ALLOW_EQ(name, i, x) ALLOW_IF(name, i, SCMP_CMP_EQ, x, 0)
#define ALLOW_OWN_PID(name, i) {.nr = SCMP_SYS(name), .arg = (i), .op = SCMP_CMP_EQ, .own_pid = true}
#define REFUSE(name, e) {.nr = SCMP_SYS(name), .arg = -1, .refuse = (e)}

static const rule rules[] = {
    /* The control loop: bytes and new buffers' fds over its socket, pipes and eventfds. */
    ALLOW(read), ALLOW(write), ALLOW(readv), ALLOW(writev), ALLOW(recvmsg), ALLOW(sendmsg), ALLOW(close),
    ALLOW(lseek), ALLOW(poll), ALLOW(ppoll),
    /* malloc, kernels and received buffers map memory; none of it may become executable. */
    ALLOW_IF(mmap, 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0), ALLOW_IF(mprotect, 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
    ALLOW(munmap), ALLOW(madvise), ALLOW(mremap), ALLOW(brk),
    /* The pool's locks and condition variables, clocks, sleeps and yields, and glibc's need for
       barriers and random bytes. gettimeofday and time are clocks too: the vDSO answers them
       where it can, as it does clock_gettime, and the system call where the clock source has no
       vDSO path; ThreadSanitizer's runtime calls gettimeofday itself. */
    ALLOW(futex), ALLOW(clock_gettime), ALLOW(gettimeofday), ALLOW(time), ALLOW(clock_nanosleep), ALLOW(nanosleep),
    ALLOW(sched_yield),
    ALLOW(sched_getaffinity), ALLOW(membarrier), ALLOW(getrandom),
    /* glibc's per-thread bookkeeping: ids, restartable sequences, robust futexes, and exits. */
    ALLOW(getpid), ALLOW(gettid), ALLOW(rseq), ALLOW(set_robust_list), ALLOW(exit), ALLOW(exit_group),
    ALLOW(restart_syscall),
    /* Signals: handlers and masks, and raise or abort, which signal this process only. */
    ALLOW(rt_sigreturn), ALLOW(rt_sigprocmask), ALLOW(sigaltstack), ALLOW_OWN_PID(tgkill, 0),
    /* kill(pid, 0) only asks whether a process exists and signals nothing (the tests' hold
       kernel waits on one that way). */
    ALLOW_EQ(kill, 1, 0),
    /* Any signal's action but SIGSYS's (31), so a kernel cannot make a refused call survivable.
       The filter sees 64 bits where the kernel reads an int, so each row also pins the upper
       half to zero: signals 1 to 30, 32 to 63, and 64. */
    ALLOW_IF(rt_sigaction, 0, SCMP_CMP_LT, SIGSYS, 0), ALLOW_IF(rt_sigaction, 0, SCMP_CMP_MASKED_EQ, ~(uint64_t)31, 32),
    ALLOW_EQ(rt_sigaction, 0, 64),
    /* glibc's fstat is newfstatat(fd, "", AT_EMPTY_PATH); a filter cannot read the path, so a
       named file's metadata can still be asked for, but nothing can be opened. */
    ALLOW(fstat), ALLOW_IF(newfstatat, 3, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH),
    /* A received buffer's seals and an fd's flags. */
    ALLOW_EQ(fcntl, 1, F_GETFD), ALLOW_EQ(fcntl, 1, F_GETFL), ALLOW_EQ(fcntl, 1, F_GET_SEALS),
    /* PAPI starts, stops and resets the counters each worker opened before the sandbox. */
    ALLOW_EQ(ioctl, 1, PERF_EVENT_IOC_ENABLE), ALLOW_EQ(ioctl, 1, PERF_EVENT_IOC_DISABLE),
    ALLOW_EQ(ioctl, 1, PERF_EVENT_IOC_RESET),
    /* stdio asks whether a character device (such as /dev/null) is a terminal before buffering it. */
    ALLOW_EQ(ioctl, 1, TCGETS),
    /* Read-only questions about the process's own state, for the executor's self-check. */
    ALLOW_EQ(prctl, 0, PR_GET_DUMPABLE), ALLOW_EQ(prctl, 0, PR_GET_NO_NEW_PRIVS), ALLOW_EQ(prctl, 0, PR_GET_SECCOMP),
    /* clone3's flags sit in memory a filter cannot read: glibc takes ENOSYS as "use clone",
       whose flags it can, and clone itself is not allowed (the workers exist already). */
    REFUSE(clone3, ENOSYS),
};

static int add_rule(scmp_filter_ctx ctx, const rule *r, pid_t pid)
{
    uint32_t action = r->refuse ? SCMP_ACT_ERRNO((uint32_t)r->refuse) : SCMP_ACT_ALLOW;
    if (r->arg < 0)
        return seccomp_rule_add(ctx, action, r->nr, 0);
    struct scmp_arg_cmp cmp = {.arg = (unsigned)r->arg, .op = r->op, .datum_a = r->a, .datum_b = r->b};
    if (r->own_pid)
        cmp.datum_a = (scmp_datum_t)pid;
    return seccomp_rule_add_array(ctx, action, r->nr, 1, &cmp);
}

/* The filter of the table, or NULL with a sentence in err. */
static scmp_filter_ctx build_filter(int *rc, char *err, size_t errlen)
{
    /* Level 2 is the seccomp() system call with TSYNC; below it a filter would sandbox only
       the calling thread. */
    unsigned api = (unsigned)seccomp_api_get();
    if (api < 2) {
        *rc = -EOPNOTSUPP;
        snprintf(err, errlen, "seccomp() with thread sync is not available here (libseccomp API level %u, 2 "
                 "needed); valgrind, for one, does not provide seccomp()", api);
        return NULL;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
    if (!ctx) {
        *rc = -ENOMEM;
        snprintf(err, errlen, "out of memory starting the sandbox's seccomp filter");
        return NULL;
    }
    /* TSYNC: the workers must get the filter too. SYSRAWRC: the kernel's own errno from load. */
    *rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (*rc == 0)
        *rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    if (*rc) {
        snprintf(err, errlen, "cannot set the seccomp filter's attributes: %s", strerror(-*rc));
        seccomp_release(ctx);
        return NULL;
    }
    pid_t pid = getpid();
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        *rc = add_rule(ctx, &rules[i], pid);
        if (*rc) {
            char name[64];
            gt_sandbox_syscall_name(rules[i].nr, name, sizeof name);
            snprintf(err, errlen, "cannot add the sandbox's rule %zu, for %s: %s", i, name, strerror(-*rc));
            seccomp_release(ctx);
            return NULL;
        }
    }
    return ctx;
}

int gt_sandbox_enter(char *err, size_t errlen)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot set no_new_privs before entering the sandbox: %s", strerror(e));
        return -e;
    }
    /* Not dumpable: no core file of clients' buffers, and no ptrace or /proc/PID/mem by others
       of the same uid. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot make the process not dumpable before entering the sandbox: %s", strerror(e));
        return -e;
    }
    int rc;
    scmp_filter_ctx ctx = build_filter(&rc, err, errlen);
    if (!ctx)
        return rc;
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc == -ESRCH)
        snprintf(err, errlen, "cannot load the sandbox's seccomp filter: a thread of the process has a filter "
                 "of its own, so the filter cannot be synced to every thread");
    else if (rc)
        snprintf(err, errlen, "cannot load the sandbox's seccomp filter: %s", strerror(-rc));
    return rc;
}

/* Set before the handler is installed, read only by it. */
static gt_sandbox_report_fn *reporter;
static atomic_flag reporting = ATOMIC_FLAG_INIT;
static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

/* Several threads may fault at once: the handler stays installed (the sandbox forbids
 * changing SIGSYS's action, so it could not be put back), the first thread reports, and the
 * others wait for the end, so that the report is whole and is the first fault's. The first
 * then dies of its signal by the default action: put back, for all but SIGSYS; for SIGSYS a
 * forbidden call made with SIGSYS blocked (it is, inside its own handler) makes the kernel do
 * it. Before the sandbox nothing is forbidden, and the default action is put back then too. */
static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    if (atomic_flag_test_and_set(&reporting))
        for (;;)
            sched_yield();
    gt_fault f = {.signal = sig, .code = info->si_code, .syscall = -1, .addr = (uint64_t)(uintptr_t)info->si_addr};
    if (sig == SIGSYS) {
        f.syscall = info->si_code == SYS_SECCOMP ? info->si_syscall : -1;
        f.addr = 0;
    }
    if (reporter)
        reporter(&f);
    if (sig == SIGSYS)
        syscall(SYS_socket, -1, 0, 0);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

int gt_sandbox_catch_faults(gt_sandbox_report_fn *report, char *err, size_t errlen)
{
    reporter = report;
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (sigaction(faults[i], &sa, NULL) != 0) {
            int e = errno;
            snprintf(err, errlen, "cannot install the handler of %s: %s", strsignal(faults[i]), strerror(e));
            return -e;
        }
    return 0;
}

int gt_sandbox_syscall_name(int nr, char *buf, size_t len)
{
    char *name = nr < 0 ? NULL : seccomp_syscall_resolve_num_arch(seccomp_arch_native(), nr);
    if (!name) {
        snprintf(buf, len, "system call %d", nr);
        return -ENOENT;
    }
    snprintf(buf, len, "%s", name);
    free(name);
    return 0;
}
