/* test_sandbox.c: inside the sandbox a pool made before it still runs kernels, memory comes and
 * goes, buffers arrive over a socket and map, pipes, stdio, clocks and counters work, abort
 * dies of SIGABRT and clone3 fails with ENOSYS; opening, socket making, running programs,
 * forking, reaching other processes, executable memory and changing SIGSYS's action each kill
 * the process with SIGSYS after the handler has named the call. Every test forks a child that
 * enters a real seccomp sandbox and reports through a pipe. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/counters.h"
#include "engine/pool.h"
#include "engine/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <gridtune/kernel.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the child and its reports ------------------------------------------------------------ */

/* What a child tells the test: a violation its SIGSYS handler reported, or why a check failed.
 * A record is one write of less than PIPE_BUF bytes, so records from two threads never mix. */
enum { REPORT_VIOLATION = 1, REPORT_FAILURE };
typedef struct report {
    int kind;
    int nr;
    char text[240];
} report;

/* The child's end of the pipe; written by the SIGSYS handler too, so set before the sandbox. */
static int report_fd = -1;

/* The test process, for the children's attempts to reach it (getppid is not allowed inside). */
static pid_t parent_pid;

/* The exit status of a child that found it cannot run the test here (no counters, or no
 * seccomp() with thread sync). */
#define CHILD_SKIP 77

static void send_report(const report *r)
{
    ssize_t n = write(report_fd, r, sizeof *r);
    (void)n; /* a lost record shows as a missing report in the parent */
}

/* The violation handler's report: async-signal-safe, one write of a record on the stack. */
/* Only the sandbox's own faults are reported: a child that aborts is checked by its status. */
static void report_violation(const gt_fault *f)
{
    if (f->signal != SIGSYS)
        return;
    report r = {.kind = REPORT_VIOLATION, .nr = f->syscall};
    send_report(&r);
}

__attribute__((format(printf, 1, 2), noreturn)) static void child_fail(const char *fmt, ...)
{
    report r = {.kind = REPORT_FAILURE};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, fmt, ap);
    va_end(ap);
    send_report(&r);
    _exit(1);
}

#define CHILD_CHECK(cond)                                                                                   \
    do {                                                                                                    \
        if (!(cond))                                                                                        \
            child_fail("line %d: %s (errno: %s)", __LINE__, #cond, strerror(errno));                        \
    } while (0)

/* In the child: the handler that reports through the pipe, then the sandbox. */
static void enter_sandbox(void)
{
    char err[256];
    if (gt_sandbox_catch_faults(report_violation, err, sizeof err) != 0)
        child_fail("%s", err);
    int rc = gt_sandbox_enter(err, sizeof err);
    if (rc == -EOPNOTSUPP)
        _exit(CHILD_SKIP); /* no seccomp() here: valgrind, for one */
    if (rc)
        child_fail("%s", err);
}

typedef struct outcome {
    int status; /* waitpid's */
    int violations;
    int nr; /* the last violation's system call */
    char failure[240];
} outcome;

/* Forks a child that runs body (which sets up what it needs and calls enter_sandbox) and then
 * exits 0; returns how it ended and what it reported. */
static outcome run_child(void (*body)(void *), void *arg)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL); /* the child must not write the parent's buffered output again */
    parent_pid = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        report_fd = fds[1];
        body(arg);
        _exit(0);
    }
    close(fds[1]);
    outcome o = {.nr = -1};
    assert_int_equal(waitpid(pid, &o.status, 0), pid);
    report r;
    while (read(fds[0], &r, sizeof r) == (ssize_t)sizeof r) {
        if (r.kind == REPORT_VIOLATION) {
            o.violations++;
            o.nr = r.nr;
        } else if (!o.failure[0]) {
            snprintf(o.failure, sizeof o.failure, "%s", r.text);
        }
    }
    close(fds[0]);
    return o;
}

/* The child exited 0 and nothing was refused; a skip when it could not run the test here. */
static void assert_child_passed(const outcome *o)
{
    if (o->failure[0])
        fail_msg("the sandboxed child failed: %s", o->failure);
    if (o->violations) {
        char name[64];
        gt_sandbox_syscall_name(o->nr, name, sizeof name);
        fail_msg("the sandbox refused %s, which the child needs", name);
    }
    if (WIFSIGNALED(o->status))
        fail_msg("the sandboxed child died of signal %d (%s)", WTERMSIG(o->status), strsignal(WTERMSIG(o->status)));
    if (WIFEXITED(o->status) && WEXITSTATUS(o->status) == CHILD_SKIP)
        skip();
    assert_true(WIFEXITED(o->status));
    assert_int_equal(WEXITSTATUS(o->status), 0);
}

/* ---- what keeps working ------------------------------------------------------------------- */

/* Counts how often each work-item runs, by global linear id. */
GT_KERNEL(count_items, uint32_t *, hits)
{
    size_t id = gt_global_id(0) + gt_global_size(0) * gt_global_id(1);
    __atomic_fetch_add(&hits[id], 1, __ATOMIC_RELAXED);
}

/* Runs count_items over a 33 x 17 grid, on the workers or on the caller, and checks that every
 * work-item ran once; the hits are allocated inside the sandbox. */
static void check_batch(gt_pool *pool, bool here, gt_batch_result *res)
{
    gt_range r = {.dims = 2, .global = {66, 51, 1}, .local = {2, 3, 1}};
    size_t n = 66 * 51;
    uint32_t *hits = calloc(n, sizeof *hits);
    CHILD_CHECK(hits != NULL);
    void *args[] = {&hits};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = r};
    char err[256];
    if (gt_schedule_parse("group=hilbert,span=3,assign=dynamic:2", &b.schedule, err, sizeof err) != 0)
        child_fail("bad schedule: %s", err);
    int rc = here ? gt_pool_run_here(pool, &b, res, err, sizeof err) : gt_pool_run(pool, &b, res, err, sizeof err);
    if (rc)
        child_fail("the pool refused the batch: %s", err);
    for (size_t i = 0; i < n; i++)
        if (hits[i] != 1)
            child_fail("work-item %zu ran %u times", i, hits[i]);
    CHILD_CHECK(res->groups == 33 * 17);
    free(hits);
}

static void pool_body(void *arg)
{
    (void)arg;
    gt_pool *pool;
    char err[256];
    if (gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err) != 0)
        child_fail("%s", err);
    enter_sandbox();
    gt_batch_result res;
    for (int i = 0; i < 3; i++) {
        check_batch(pool, false, &res);
        CHILD_CHECK(res.workers == 2);
        check_batch(pool, true, &res);
        CHILD_CHECK(res.workers == 1);
    }
    gt_pool_destroy(pool); /* the workers exit inside the sandbox */
}

/* A pool started before the sandbox runs batches on its workers and on the caller, and stops. */
static void a_pool_made_before_runs_kernels_inside(void **state)
{
    (void)state;
    outcome o = run_child(pool_body, NULL);
    assert_child_passed(&o);
}

static void memory_body(void *arg)
{
    (void)arg;
    enter_sandbox();
    /* small blocks from the heap, many sizes, freed out of order */
    void *small[1000];
    for (int i = 0; i < 1000; i++) {
        small[i] = malloc((size_t)(i % 97) * 8 + 1);
        CHILD_CHECK(small[i] != NULL);
        memset(small[i], i & 0xff, (size_t)(i % 97) * 8 + 1);
    }
    for (int i = 0; i < 1000; i += 2)
        free(small[i]);
    for (int i = 1; i < 1000; i += 2)
        free(small[i]);
    /* large blocks are mappings of their own; growing one moves it with mremap */
    size_t big = 64u << 20;
    unsigned char *p = malloc(big);
    CHILD_CHECK(p != NULL);
    memset(p, 1, big);
    p = realloc(p, 2 * big);
    CHILD_CHECK(p != NULL);
    CHILD_CHECK(p[big - 1] == 1);
    memset(p + big, 2, big);
    free(p);
    unsigned *z = calloc(1u << 20, sizeof *z);
    CHILD_CHECK(z != NULL && z[12345] == 0);
    free(z);
    /* a reservation made accessible later, as thread arenas are: readable and writable is fine */
    unsigned char *q = mmap(NULL, 1u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHILD_CHECK(q != MAP_FAILED);
    CHILD_CHECK(mprotect(q, 4096, PROT_READ | PROT_WRITE) == 0);
    q[0] = 7;
    CHILD_CHECK(madvise(q, 4096, MADV_DONTNEED) == 0);
    CHILD_CHECK(q[0] == 0);
    CHILD_CHECK(munmap(q, 1u << 20) == 0);
}

/* malloc and free, small and large, realloc that moves, and anonymous mappings. */
static void memory_comes_and_goes(void **state)
{
    (void)state;
    outcome o = run_child(memory_body, NULL);
    assert_child_passed(&o);
}

static void send_fd(int sock, int fd)
{
    char byte = 'b';
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control = {0};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    CHILD_CHECK(sendmsg(sock, &msg, 0) == 1);
}

static int receive_fd(int sock)
{
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    CHILD_CHECK(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == 1);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    CHILD_CHECK(c != NULL && c->cmsg_type == SCM_RIGHTS);
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static void buffer_body(void *arg)
{
    (void)arg;
    const size_t size = 1u << 20;
    int sv[2];
    CHILD_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    int mfd = memfd_create("gt-test-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    CHILD_CHECK(mfd >= 0);
    CHILD_CHECK(ftruncate(mfd, (off_t)size) == 0);
    CHILD_CHECK(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
    uint32_t *mine = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    CHILD_CHECK(mine != MAP_FAILED);
    enter_sandbox();
    for (uint32_t i = 0; i < size / 4; i++)
        mine[i] = i * 2654435761u;
    /* The sender is this process too: what matters is that the fd arrives and maps. */
    send_fd(sv[0], mfd);
    int got = receive_fd(sv[1]);
    CHILD_CHECK(got != mfd);
    struct stat st;
    CHILD_CHECK(fstat(got, &st) == 0 && (size_t)st.st_size == size);
    CHILD_CHECK(fcntl(got, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW));
    CHILD_CHECK((fcntl(got, F_GETFL) & O_ACCMODE) == O_RDWR);
    CHILD_CHECK(fcntl(got, F_GETFD) == FD_CLOEXEC);
    CHILD_CHECK(lseek(got, 0, SEEK_END) == (off_t)size);
    uint32_t *theirs = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, got, 0);
    CHILD_CHECK(theirs != MAP_FAILED);
    for (uint32_t i = 0; i < size / 4; i++)
        if (theirs[i] != i * 2654435761u)
            child_fail("word %u of the received buffer differs from what was written", i);
    theirs[0] = 42;
    CHILD_CHECK(mine[0] == 42);
    CHILD_CHECK(munmap(theirs, size) == 0);
    CHILD_CHECK(close(got) == 0);
}

/* A memfd sent over a socketpair made before arrives by recvmsg, maps, and shows its seals. */
static void buffers_arrive_over_a_socket_and_map(void **state)
{
    (void)state;
    outcome o = run_child(buffer_body, NULL);
    assert_child_passed(&o);
}

static void io_body(void *arg)
{
    (void)arg;
    int p[2], q[2];
    CHILD_CHECK(pipe(p) == 0 && pipe(q) == 0);
    int devnull = open("/dev/null", O_WRONLY);
    CHILD_CHECK(devnull >= 0);
    enter_sandbox();
    /* plain bytes, and vectors */
    CHILD_CHECK(write(p[1], "ping", 4) == 4);
    char buf[64] = {0};
    CHILD_CHECK(read(p[0], buf, sizeof buf) == 4 && memcmp(buf, "ping", 4) == 0);
    struct iovec out[2] = {{.iov_base = "ab", .iov_len = 2}, {.iov_base = "cd", .iov_len = 2}};
    CHILD_CHECK(writev(p[1], out, 2) == 4);
    struct pollfd pfd = {.fd = p[0], .events = POLLIN};
    CHILD_CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN));
    struct iovec in = {.iov_base = buf, .iov_len = sizeof buf};
    CHILD_CHECK(readv(p[0], &in, 1) == 4 && memcmp(buf, "abcd", 4) == 0);
    /* stdio on a pipe and on /dev/null: fdopen, buffering decisions, fflush */
    FILE *f = fdopen(q[1], "w");
    CHILD_CHECK(f != NULL);
    CHILD_CHECK(fprintf(f, "%d %s", 42, "answer") > 0 && fflush(f) == 0);
    memset(buf, 0, sizeof buf);
    CHILD_CHECK(read(q[0], buf, sizeof buf) == 9 && strcmp(buf, "42 answer") == 0);
    FILE *null = fdopen(devnull, "w");
    CHILD_CHECK(null != NULL);
    CHILD_CHECK(fprintf(null, "nothing %d", 0) > 0 && fflush(null) == 0);
    CHILD_CHECK(fclose(f) == 0 && fclose(null) == 0);
    /* clocks and short sleeps */
    const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_MONOTONIC_RAW, CLOCK_THREAD_CPUTIME_ID,
                                CLOCK_PROCESS_CPUTIME_ID};
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        struct timespec t;
        CHILD_CHECK(clock_gettime(clocks[i], &t) == 0);
    }
    /* the older clocks as system calls, as where the vDSO cannot answer them */
    struct timeval tv;
    CHILD_CHECK(syscall(SYS_gettimeofday, &tv, NULL) == 0 && tv.tv_sec > 0);
    CHILD_CHECK(syscall(SYS_time, NULL) > 0);
    CHILD_CHECK(nanosleep(&(struct timespec){.tv_nsec = 1000}, NULL) == 0);
    CHILD_CHECK(sched_yield() == 0);
    /* random bytes, and raise's own-process signal */
    uint64_t seed;
    CHILD_CHECK(getrandom(&seed, sizeof seed, 0) == sizeof seed);
    CHILD_CHECK(signal(SIGUSR1, SIG_IGN) != SIG_ERR && raise(SIGUSR1) == 0);
    CHILD_CHECK(signal(SIGRTMIN + 1, SIG_IGN) != SIG_ERR && signal(SIGRTMAX, SIG_IGN) != SIG_ERR);
}

/* Pipes, readv/writev, poll, stdio on a pipe and on /dev/null, clocks, sleeps, getrandom, signal
 * actions (standard and real-time) and raise. */
static void pipes_stdio_and_clocks_work(void **state)
{
    (void)state;
    outcome o = run_child(io_body, NULL);
    assert_child_passed(&o);
}

static void counters_body(void *arg)
{
    (void)arg;
    gt_counters *counters;
    gt_pool *pool;
    char err[256];
    if (gt_counters_create(NULL, 0, 2, &counters, err, sizeof err) != 0)
        child_fail("%s", err);
    if (gt_counters_status(counters)->nused == 0)
        _exit(CHILD_SKIP);
    if (gt_pool_create(&(gt_pool_config){.workers = 2, .counters = counters}, &pool, err, sizeof err) != 0)
        child_fail("%s", err);
    enter_sandbox();
    gt_batch_result res;
    check_batch(pool, false, &res);
    CHILD_CHECK(res.ncounters == gt_counters_status(counters)->nused);
    gt_pool_destroy(pool); /* PAPI stops and closes each worker's event set inside the sandbox */
    gt_counters_destroy(counters);
}

/* Counters opened before the sandbox are read around a batch, and stopped and closed after it. */
static void counters_opened_before_keep_counting(void **state)
{
    (void)state;
    outcome o = run_child(counters_body, NULL);
    assert_child_passed(&o);
}

static int open_task_clock(void)
{
    struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE, .size = sizeof attr,
                                   .config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1, .exclude_kernel = 1,
                                   .exclude_hv = 1};
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void perf_body(void *arg)
{
    (void)arg;
    int fd = open_task_clock();
    if (fd < 0)
        _exit(CHILD_SKIP);
    enter_sandbox();
    CHILD_CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0);
    CHILD_CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
    volatile uint64_t x = 1;
    for (int i = 0; i < 1000000; i++)
        x = x * 3 + 1;
    CHILD_CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
    uint64_t ns = 0;
    CHILD_CHECK(read(fd, &ns, sizeof ns) == sizeof ns);
    CHILD_CHECK(ns > 0);
    CHILD_CHECK(close(fd) == 0);
}

/* The ioctls PAPI makes on the perf events it opened before the sandbox (reset, enable,
 * disable) work, and so does reading them: the same calls as PAPI's, without PAPI, so that
 * they are checked on machines where PAPI has no usable component. */
static void perf_events_opened_before_keep_counting(void **state)
{
    (void)state;
    outcome o = run_child(perf_body, NULL);
    assert_child_passed(&o);
}

static void state_body(void *arg)
{
    (void)arg;
    enter_sandbox();
    CHILD_CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0);
    CHILD_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
    CHILD_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == SECCOMP_MODE_FILTER);
}

/* Once inside, the process is not dumpable, has no_new_privs, and is in seccomp filter mode. */
static void inside_the_process_is_not_dumpable_and_has_no_new_privs(void **state)
{
    (void)state;
    outcome o = run_child(state_body, NULL);
    assert_child_passed(&o);
}

static void abort_body(void *arg)
{
    (void)arg;
    enter_sandbox();
    abort();
}

/* abort still works inside: it resets SIGABRT's action and signals this process, which dies of
 * SIGABRT, not of SIGSYS. */
static void abort_kills_with_sigabrt(void **state)
{
    (void)state;
    outcome o = run_child(abort_body, NULL);
    if (o.failure[0])
        fail_msg("%s", o.failure);
    if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHILD_SKIP)
        skip();
    assert_int_equal(o.violations, 0);
    assert_true(WIFSIGNALED(o.status));
    assert_int_equal(WTERMSIG(o.status), SIGABRT);
}

static void clone3_body(void *arg)
{
    (void)arg;
    enter_sandbox();
    errno = 0;
    CHILD_CHECK(syscall(SYS_clone3, NULL, 0) == -1 && errno == ENOSYS);
}

/* clone3 fails with ENOSYS rather than trapping, so glibc falls back to clone (refused below). */
static void clone3_fails_with_enosys(void **state)
{
    (void)state;
    outcome o = run_child(clone3_body, NULL);
    assert_child_passed(&o);
}

/* ---- what kills the process --------------------------------------------------------------- */

static void try_open(void)
{
    open("/etc/hostname", O_RDONLY);
}

static void try_open_syscall(void)
{
    syscall(SYS_open, "/etc/hostname", O_RDONLY);
}

static void try_openat(void)
{
    openat(AT_FDCWD, "/etc/hostname", O_RDONLY);
}

static void try_creat(void)
{
    syscall(SYS_creat, "/nonexistent/gt-sandbox", 0600);
}

static void try_socket(void)
{
    socket(AF_INET, SOCK_STREAM, 0);
}

static void try_socketpair(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
}

static void try_execve(void)
{
    char *argv[] = {"true", NULL}, *envp[] = {NULL};
    execve("/bin/true", argv, envp);
}

static void try_fork(void)
{
    if (fork() == 0)
        _exit(0);
}

static void try_vfork(void)
{
    syscall(SYS_vfork);
}

static void *nothing(void *arg)
{
    return arg;
}

static void try_thread(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0)
        pthread_join(t, NULL);
}

static void try_ptrace(void)
{
    ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}

static void try_process_vm_readv(void)
{
    char buf[8];
    struct iovec local = {.iov_base = buf, .iov_len = sizeof buf}, remote = {.iov_base = buf, .iov_len = sizeof buf};
    process_vm_readv(parent_pid, &local, 1, &remote, 1, 0);
}

static void try_kill_parent(void)
{
    kill(parent_pid, SIGCONT); /* kill(pid, 0) is allowed: it signals nothing */
}

static void try_tgkill_parent(void)
{
    syscall(SYS_tgkill, parent_pid, parent_pid, 0);
}

static void try_mmap_exec(void)
{
    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void try_mprotect_exec(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        child_fail("a plain mmap was refused: %s", strerror(errno));
    mprotect(p, 4096, PROT_READ | PROT_EXEC);
}

static void try_memfd_create(void)
{
    memfd_create("gt-sandbox", 0);
}

static void try_perf_event_open(void)
{
    syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
}

static void try_bpf(void)
{
    syscall(SYS_bpf, 0, NULL, 0);
}

static void try_unshare(void)
{
    unshare(0);
}

static void try_unlink(void)
{
    unlink("/nonexistent/gt-sandbox");
}

static void try_set_dumpable(void)
{
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void try_ignore_sigsys(void)
{
    signal(SIGSYS, SIG_IGN);
}

/* The kernel reads the signal number as an int: SIGSYS with the upper half of the register set. */
static void try_ignore_sigsys_upper_half(void)
{
    struct {
        void (*handler)(int);
        unsigned long flags;
        void (*restorer)(void);
        uint64_t mask;
    } action = {.handler = SIG_IGN};
    syscall(SYS_rt_sigaction, (1ull << 32) | SIGSYS, &action, NULL, sizeof action.mask);
}

static void try_other_ioctl(void)
{
    int n;
    ioctl(0, FIONREAD, &n);
}

static void try_fcntl_dup(void)
{
    fcntl(0, F_DUPFD, 100);
}

typedef struct forbidden {
    const char *what;
    void (*attempt)(void);
    const char *syscall; /* the system call the filter refuses */
    /* The call is made with SIGSYS blocked, so the kernel kills the process without running the
       handler: only the death by SIGSYS is checked. */
    bool unreported;
} forbidden;

static const forbidden forbidden_calls[] = {
    {"open a file", try_open, "openat", false},
    {"open a file by the open system call", try_open_syscall, "open", false},
    {"openat a file", try_openat, "openat", false},
    {"creat a file", try_creat, "creat", false},
    {"make a socket", try_socket, "socket", false},
    {"make a socketpair", try_socketpair, "socketpair", false},
    {"execve a program", try_execve, "execve", false},
    {"fork", try_fork, "clone", false},
    {"vfork", try_vfork, "vfork", false},
    /* pthread_create blocks every signal around its clone */
    {"start a thread (clone3 fails, glibc falls back to clone)", try_thread, "clone", true},
    {"ptrace", try_ptrace, "ptrace", false},
    {"read the parent's memory", try_process_vm_readv, "process_vm_readv", false},
    {"signal the parent", try_kill_parent, "kill", false},
    {"signal a thread of the parent", try_tgkill_parent, "tgkill", false},
    {"map executable memory", try_mmap_exec, "mmap", false},
    {"make memory executable", try_mprotect_exec, "mprotect", false},
    {"make a memfd", try_memfd_create, "memfd_create", false},
    {"open a perf event", try_perf_event_open, "perf_event_open", false},
    {"load a BPF program", try_bpf, "bpf", false},
    {"unshare", try_unshare, "unshare", false},
    {"unlink a file", try_unlink, "unlink", false},
    {"make the process dumpable again", try_set_dumpable, "prctl", false},
    {"ignore SIGSYS", try_ignore_sigsys, "rt_sigaction", false},
    {"ignore SIGSYS, named with the upper half set", try_ignore_sigsys_upper_half, "rt_sigaction", false},
    {"an ioctl that is not a counters' one", try_other_ioctl, "ioctl", false},
    {"duplicate an fd", try_fcntl_dup, "fcntl", false},
};

static void forbidden_body(void *arg)
{
    const forbidden *f = arg;
    enter_sandbox();
    f->attempt();
    child_fail("%s was allowed", f->what);
}

/* Each forbidden call kills the child with SIGSYS, after the handler named that system call
 * (unless the call is made with SIGSYS blocked). */
static void forbidden_calls_die_of_sigsys_naming_the_call(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof forbidden_calls / sizeof forbidden_calls[0]; i++) {
        const forbidden *f = &forbidden_calls[i];
        outcome o = run_child(forbidden_body, (void *)f);
        if (o.failure[0])
            fail_msg("%s: %s", f->what, o.failure);
        if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHILD_SKIP)
            skip();
        if (!WIFSIGNALED(o.status) || WTERMSIG(o.status) != SIGSYS)
            fail_msg("%s: the child ended with status 0x%x, not by SIGSYS", f->what, (unsigned)o.status);
        if (f->unreported)
            continue;
        char name[64];
        gt_sandbox_syscall_name(o.nr, name, sizeof name);
        if (o.violations != 1 || strcmp(name, f->syscall) != 0)
            fail_msg("%s: %d violation(s) reported, the last %s; expected one, %s", f->what, o.violations, name,
                     f->syscall);
        assert_int_equal(o.nr, seccomp_syscall_resolve_name(f->syscall));
    }
}

/* Opens a file from a kernel: untrusted code on a worker thread. */
GT_KERNEL(open_a_file, int *, fd)
{
    if (gt_global_id(0) == 0)
        *fd = open("/etc/hostname", O_RDONLY);
}

static void worker_body(void *arg)
{
    (void)arg;
    gt_pool *pool;
    char err[256];
    if (gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err) != 0)
        child_fail("%s", err);
    enter_sandbox();
    int fd = -1, *pfd = &fd;
    void *args[] = {&pfd};
    gt_batch b = {.run = gt_kernel_desc_open_a_file.run, .args = args,
                  .range = {.dims = 1, .global = {64, 1, 1}, .local = {8, 1, 1}}};
    if (gt_schedule_parse("assign=block", &b.schedule, err, sizeof err) != 0 ||
        gt_pool_run(pool, &b, NULL, err, sizeof err) != 0)
        child_fail("%s", err);
    child_fail("a kernel on a worker opened a file (fd %d)", fd);
}

/* A kernel that opens a file on a pool worker kills the whole process with SIGSYS. The workers
 * block every signal, so the kernel kills it without running the handler: no report is
 * required here. */
static void a_kernel_on_a_worker_cannot_open_files(void **state)
{
    (void)state;
    outcome o = run_child(worker_body, NULL);
    if (o.failure[0])
        fail_msg("%s", o.failure);
    if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHILD_SKIP)
        skip();
    assert_true(WIFSIGNALED(o.status));
    assert_int_equal(WTERMSIG(o.status), SIGSYS);
}

/* ---- names -------------------------------------------------------------------------------- */

static void syscall_numbers_have_names(void **state)
{
    (void)state;
    char name[64];
    assert_int_equal(gt_sandbox_syscall_name(SCMP_SYS(openat), name, sizeof name), 0);
    assert_string_equal(name, "openat");
    assert_int_equal(gt_sandbox_syscall_name(SCMP_SYS(execve), name, sizeof name), 0);
    assert_string_equal(name, "execve");
    assert_int_equal(gt_sandbox_syscall_name(99999, name, sizeof name), -ENOENT);
    assert_string_equal(name, "system call 99999");
    assert_int_equal(gt_sandbox_syscall_name(-1, name, sizeof name), -ENOENT);
    assert_string_equal(name, "system call -1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pool_made_before_runs_kernels_inside),
        cmocka_unit_test(memory_comes_and_goes),
        cmocka_unit_test(buffers_arrive_over_a_socket_and_map),
        cmocka_unit_test(pipes_stdio_and_clocks_work),
        cmocka_unit_test(counters_opened_before_keep_counting),
        cmocka_unit_test(perf_events_opened_before_keep_counting),
        cmocka_unit_test(inside_the_process_is_not_dumpable_and_has_no_new_privs),
        cmocka_unit_test(abort_kills_with_sigabrt),
        cmocka_unit_test(clone3_fails_with_enosys),
        cmocka_unit_test(forbidden_calls_die_of_sigsys_naming_the_call),
        cmocka_unit_test(a_kernel_on_a_worker_cannot_open_files),
        cmocka_unit_test(syscall_numbers_have_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
