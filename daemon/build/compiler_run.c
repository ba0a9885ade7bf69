/* compiler_run.c: starting the compiler, its sandbox, feeding its stdin, collecting its output,
 * its deadline. The child is forked, not posix_spawn'd, because the Landlock sandbox must be laid
 * on between fork and exec: the ruleset is built in the parent, and the child, which only makes
 * system calls (the daemon has threads, so nothing that could take a lock), joins its own process
 * group, so a timeout can kill the compiler's helpers (cc1, as, ld) with it, wires its stdio,
 * enters the sandbox and executes; a close-on-exec pipe brings back which step failed. One poll
 * loop writes the input and reads the output, with the remaining time as its timeout; after the
 * output ends, the child's exit is awaited under the same deadline. Every way out kills what is
 * left of the group and reaps. */
#include "compiler_run.h"

#include "build.h"
#include "engine/child_exit.h"
#include "tuner/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Landlock's ABI is stable; Debian 12's headers stop at ABI 2, so the later rights are named here. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
/* The first ABI with each right or feature. */
#define LL_ABI_REFER 2
#define LL_ABI_TRUNCATE 3
#define LL_ABI_IOCTL_DEV 5
#define LL_FS_V1 ((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1)
/* The rights a rule on a file (not a directory) may carry. */
#define LL_FILE_RIGHTS                                                                                   \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |          \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_EXEC (LL_READ | LANDLOCK_ACCESS_FS_EXECUTE)
#define LL_WRITE                                                                                          \
    (LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_MAKE_REG | \
     LANDLOCK_ACCESS_FS_REMOVE_FILE)

/* struct landlock_ruleset_attr as of ABI 4; older kernels are given only its first field. */
typedef struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
} ruleset_attr;

#define STDIO_FDS 3          /* the child's stdin, stdout, stderr */
#define IO_CHUNK 16384       /* bytes moved per read or write */
#define OUTPUT_INITIAL 4096  /* first allocation for the output; it doubles up to max_output */
#define NS_PER_MS 1000000u
#define MS_PER_S 1000u

#define ENV_MAX 4 /* PATH, LC_ALL, TMPDIR, NULL */
#define TMPDIR_VAR "TMPDIR="

/* One run in progress. An fd is -1 once closed. */
typedef struct run {
    const gt_compiler_job *job;
    gt_compiler_result *res;
    size_t cap;
    pid_t pid;
    int in_fd, out_fd;
    size_t written;
    char *env[ENV_MAX];
    char tmpdir[sizeof TMPDIR_VAR + PATH_MAX];
} run;

/* What a child that could not execute writes back before it exits: the step and its errno. */
typedef struct child_failure {
    const char *step; /* a static string, the same in parent and child */
    int errnum;
} child_failure;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The child's dup2s onto 0, 1 and 2 would clobber a pipe end sitting there (a daemon may have
 * closed its stdio), so pipe ends are kept above them. */
static int above_stdio(int *fd)
{
    if (*fd >= STDIO_FDS)
        return 0;
    int moved = fcntl(*fd, F_DUPFD_CLOEXEC, STDIO_FDS);
    int rc = moved < 0 ? -errno : 0;
    close(*fd);
    *fd = moved;
    return rc;
}

static int make_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -errno;
    int rc = above_stdio(&fds[0]);
    if (rc == 0)
        rc = above_stdio(&fds[1]);
    if (rc) {
        close_fd(&fds[0]);
        close_fd(&fds[1]);
    }
    return rc;
}

static void describe_timeout(const gt_compiler_job *job, char *err, size_t errlen)
{
    if (job->timeout_ms % MS_PER_S == 0)
        snprintf(err, errlen, "the compiler %s ran longer than %u s and was killed", job->path,
                 job->timeout_ms / MS_PER_S);
    else
        snprintf(err, errlen, "the compiler %s ran longer than %u ms and was killed", job->path, job->timeout_ms);
}

/* ---- the sandbox ------------------------------------------------------------------------------ */

int gt_compiler_sandbox_abi(char *err, size_t errlen)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi >= 1)
        return (int)abi;
    int rc = -errno;
    if (rc == -ENOSYS)
        snprintf(err, errlen, "this kernel has no Landlock (landlock_create_ruleset: %s)", strerror(-rc));
    else if (rc == -EOPNOTSUPP)
        snprintf(err, errlen, "Landlock is built into this kernel but not enabled (add landlock to its lsm= boot "
                              "parameter)");
    else
        snprintf(err, errlen, "Landlock cannot be used here (landlock_create_ruleset: %s)", strerror(-rc));
    return rc;
}

static uint64_t handled_fs(int abi)
{
    uint64_t fs = LL_FS_V1;
    if (abi >= LL_ABI_REFER)
        fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= LL_ABI_TRUNCATE)
        fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= LL_ABI_IOCTL_DEV)
        fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return fs;
}

/* Adds each existing path of list with these rights (those a file can carry, for a file). */
static int allow_paths(int ruleset, const char *const *list, uint64_t rights, uint64_t handled, char *err,
                       size_t errlen)
{
    for (size_t i = 0; list && list[i]; i++) {
        int fd = open(list[i], O_PATH | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue;
        struct stat st;
        int rc = fd < 0 || fstat(fd, &st) < 0 ? -errno : 0;
        if (rc == 0) {
            uint64_t allowed = rights & handled & (S_ISDIR(st.st_mode) ? ~0ULL : LL_FILE_RIGHTS);
            struct landlock_path_beneath_attr rule = {.allowed_access = allowed, .parent_fd = fd};
            if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
                rc = -errno;
        }
        if (fd >= 0)
            close(fd);
        if (rc) {
            snprintf(err, errlen, "cannot open %s to the compiler's sandbox: %s", list[i], strerror(-rc));
            return rc;
        }
    }
    return 0;
}

/* A Landlock ruleset fd (close-on-exec) for the job's sandbox, or a negative errno. */
static int make_ruleset(const gt_compiler_sandbox *sb, char *err, size_t errlen)
{
    int abi = gt_compiler_sandbox_abi(err, errlen);
    if (abi < 0)
        return abi;
    ruleset_attr attr = {.handled_access_fs = handled_fs(abi),
                         .handled_access_net = abi >= GT_COMPILER_SANDBOX_NET_ABI ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0};
    size_t size = abi >= GT_COMPILER_SANDBOX_NET_ABI ? sizeof attr : sizeof attr.handled_access_fs;
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot make the compiler's sandbox (landlock_create_ruleset: %s)", strerror(-rc));
        return rc;
    }
    int rc = allow_paths(ruleset, sb->exec_paths, LL_EXEC, attr.handled_access_fs, err, errlen);
    if (rc == 0)
        rc = allow_paths(ruleset, sb->read_paths, LL_READ, attr.handled_access_fs, err, errlen);
    if (rc == 0)
        rc = allow_paths(ruleset, sb->write_paths, LL_WRITE, attr.handled_access_fs, err, errlen);
    if (rc) {
        close(ruleset);
        return rc;
    }
    return ruleset;
}

/* ---- the child --------------------------------------------------------------------------------- */

static void make_env(run *r)
{
    size_t n = 0;
    r->env[n++] = "PATH=" GT_BUILD_CHILD_PATH;
    r->env[n++] = "LC_ALL=" GT_BUILD_CHILD_LOCALE;
    if (r->job->dir) { /* gcc's temporaries (the assembly, the object) belong in the build directory */
        snprintf(r->tmpdir, sizeof r->tmpdir, TMPDIR_VAR "%s", r->job->dir);
        r->env[n++] = r->tmpdir;
    }
    r->env[n] = NULL;
}

static _Noreturn void child_fail(int report, const char *step)
{
    child_failure f = {.step = step, .errnum = errno};
    while (write(report, &f, sizeof f) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* Runs in the forked child: system calls only, no allocation. */
/* Kernels before 5.11 have no CLOSE_RANGE_CLOEXEC: mark each descriptor past stdio close-on-exec
 * up to the limit instead (at most 65536: gridtuned's own stay far below), keeping the report
 * pipe (already close-on-exec). Only system calls, so safe between fork and exec. False when
 * the limit cannot be read. */
static bool cloexec_each(int report)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    int last = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
    for (int fd = STDIO_FDS; fd < last; fd++)
        if (fd != report)
            fcntl(fd, F_SETFD, FD_CLOEXEC); /* EBADF for the many that are not open */
    return true;
}

static _Noreturn void child_exec(const run *r, int child_in, int child_out, int ruleset, int report)
{
    if (setpgid(0, 0) < 0)
        child_fail(report, "join its own process group");
    /* an ignored SIGPIPE would survive exec: every signal starts at its default, then none is
     * blocked (spawn blocked them all) */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and libc's own refuse; nothing to undo */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(child_in, STDIN_FILENO) < 0 || dup2(child_out, STDOUT_FILENO) < 0 || dup2(child_out, STDERR_FILENO) < 0)
        child_fail(report, "wire its stdin and output");
    /* the daemon holds client sockets and memfds: none of them reaches the compiler (the report
     * pipe stays open until the exec) */
    if (close_range(STDIO_FDS, ~0U, CLOSE_RANGE_CLOEXEC) < 0 && !cloexec_each(report))
        child_fail(report, "close the daemon's descriptors");
    if (r->job->dir && chdir(r->job->dir) < 0)
        child_fail(report, "enter its build directory");
    if (ruleset >= 0) {
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            child_fail(report, "give up gaining privileges");
        if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
            child_fail(report, "enter its Landlock sandbox");
    }
    execve(r->job->path, r->job->argv, r->env);
    child_fail(report, "execute it");
}

/* Waits for the child's exec (the report pipe closes) or for its account of what failed. */
static int await_exec(run *r, int report, char *err, size_t errlen)
{
    child_failure f;
    ssize_t n;
    while ((n = read(report, &f, sizeof f)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof f)
        return 0;
    int status;
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->pid = -1;
    snprintf(err, errlen, "cannot run the compiler %s: the child could not %s: %s", r->job->path, f.step,
             strerror(f.errnum));
    return f.errnum ? -f.errnum : -ECHILD;
}

static int spawn(run *r, int child_in, int child_out, char *err, size_t errlen)
{
    int ruleset = -1, report[2];
    make_env(r);
    if (r->job->sandbox && (ruleset = make_ruleset(r->job->sandbox, err, errlen)) < 0)
        return ruleset;
    if (pipe2(report, O_CLOEXEC) < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot make a pipe for the compiler %s: %s", r->job->path, strerror(-rc));
        if (ruleset >= 0)
            close(ruleset);
        return rc;
    }
    /* Until the child has reset them, the daemon's handlers must not run in it (libevent's would
     * write to the daemon's own signal pipe), so every signal stays blocked across the fork. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    r->pid = fork();
    if (r->pid == 0)
        child_exec(r, child_in, child_out, ruleset, report[1]);
    int rc = r->pid < 0 ? -errno : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(report[1]);
    if (ruleset >= 0)
        close(ruleset);
    if (rc)
        snprintf(err, errlen, "cannot run the compiler %s: fork: %s", r->job->path, strerror(-rc));
    else
        rc = await_exec(r, report[0], err, errlen);
    close(report[0]);
    return rc;
}

/* write() that cannot raise SIGPIPE when the compiler stopped reading: the signal is blocked in
 * this thread for the call and, if the write raised it, taken back before unblocking. A SIGPIPE
 * that was already pending is left alone. */
static ssize_t write_quietly(int fd, const void *buf, size_t len)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    ssize_t n = write(fd, buf, len);
    int saved = errno;
    if (n < 0 && saved == EPIPE && !was_pending) {
        const struct timespec now = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &now) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return n;
}

static int feed(run *r)
{
    size_t left = r->job->input_len - r->written;
    ssize_t n = write_quietly(r->in_fd, r->job->input + r->written, left < IO_CHUNK ? left : IO_CHUNK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n < 0 && errno != EPIPE)
        return -errno;
    if (n > 0)
        r->written += (size_t)n;
    /* on EPIPE the compiler closed its stdin: what it did not read, it did not want */
    if (n < 0 || r->written == r->job->input_len)
        close_fd(&r->in_fd);
    return 0;
}

static int keep_output(run *r, const char *buf, size_t n)
{
    gt_compiler_result *res = r->res;
    size_t room = r->job->max_output - res->len;
    size_t keep = n < room ? n : room;
    res->truncated |= keep < n;
    if (res->len + keep + 1 > r->cap) {
        size_t cap = r->cap;
        while (cap < res->len + keep + 1)
            cap *= 2;
        if (cap > r->job->max_output + 1)
            cap = r->job->max_output + 1;
        char *grown = realloc(res->output, cap);
        if (!grown)
            return -ENOMEM;
        res->output = grown;
        r->cap = cap;
    }
    memcpy(res->output + res->len, buf, keep);
    res->len += keep;
    res->output[res->len] = '\0';
    return 0;
}

static int drain(run *r)
{
    char buf[IO_CHUNK];
    ssize_t n = read(r->out_fd, buf, sizeof buf);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    if (n == 0) {
        close_fd(&r->out_fd);
        return 0;
    }
    return keep_output(r, buf, (size_t)n);
}

static int poll_timeout(uint64_t deadline_ns)
{
    uint64_t now = gt_clock_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Fills p with what is still open: the input while unwritten, the output until EOF. */
static nfds_t watched(const run *r, struct pollfd p[2])
{
    nfds_t n = 0;
    if (r->in_fd >= 0)
        p[n++] = (struct pollfd){.fd = r->in_fd, .events = POLLOUT};
    if (r->out_fd >= 0)
        p[n++] = (struct pollfd){.fd = r->out_fd, .events = POLLIN};
    return n;
}

static int serve(run *r, const struct pollfd *p)
{
    if (!p->revents)
        return 0;
    return p->fd == r->in_fd ? feed(r) : drain(r);
}

/* Until the child (and whatever inherited its stdout) closed the output, or the deadline:
 * 0, -ETIME or -errno. */
static int pump(run *r, uint64_t deadline_ns)
{
    while (r->out_fd >= 0) {
        if (gt_clock_ns() >= deadline_ns)
            return -ETIME;
        struct pollfd p[2];
        nfds_t n = watched(r, p);
        int ready = poll(p, n, poll_timeout(deadline_ns));
        if (ready < 0 && errno != EINTR)
            return -errno;
        for (nfds_t i = 0; ready > 0 && i < n; i++) {
            int rc = serve(r, &p[i]);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The group is killed even after a normal exit, in case a helper outlived the compiler; while the
 * leader is unreaped its pid, which names the group, cannot be reused. */
static int reap(run *r)
{
    int status = 0;
    kill(-r->pid, SIGKILL);
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

static int start(run *r, char *err, size_t errlen)
{
    int in[2], out[2];
    int rc = make_pipe(in);
    if (rc == 0 && (rc = make_pipe(out)) != 0) {
        close_fd(&in[0]);
        close_fd(&in[1]);
    }
    if (rc) {
        snprintf(err, errlen, "cannot make a pipe for the compiler %s: %s", r->job->path, strerror(-rc));
        return rc;
    }
    rc = spawn(r, in[0], out[1], err, errlen);
    close_fd(&in[0]);
    close_fd(&out[1]);
    r->in_fd = in[1];
    r->out_fd = out[0];
    return rc;
}

static int watch(run *r, char *err, size_t errlen)
{
    if (fcntl(r->in_fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(r->out_fd, F_SETFL, O_NONBLOCK) < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot watch the compiler %s: %s", r->job->path, strerror(-rc));
        return rc;
    }
    r->cap = OUTPUT_INITIAL < r->job->max_output + 1 ? OUTPUT_INITIAL : r->job->max_output + 1;
    r->res->output = malloc(r->cap);
    if (!r->res->output) {
        snprintf(err, errlen, "out of memory for the compiler's output");
        return -ENOMEM;
    }
    r->res->output[0] = '\0';
    if (r->job->input_len == 0)
        close_fd(&r->in_fd);
    return 0;
}

int gt_compiler_run(const gt_compiler_job *job, gt_compiler_result *res, char *err, size_t errlen)
{
    uint64_t deadline_ns = gt_clock_ns() + (uint64_t)job->timeout_ms * NS_PER_MS;
    *res = (gt_compiler_result){0};
    run r = {.job = job, .res = res, .pid = -1, .in_fd = -1, .out_fd = -1};
    int rc = start(&r, err, errlen);
    if (rc == 0)
        rc = watch(&r, err, errlen);
    if (rc == 0) {
        rc = pump(&r, deadline_ns);
        if (rc == 0)
            rc = gt_child_await_exit(r.pid, deadline_ns);
        if (rc == -ETIME)
            describe_timeout(job, err, errlen);
        else if (rc)
            snprintf(err, errlen, "lost contact with the compiler %s: %s", job->path, strerror(-rc));
    }
    if (r.pid > 0)
        res->status = reap(&r);
    close_fd(&r.in_fd);
    close_fd(&r.out_fd);
    if (rc) {
        free(res->output);
        *res = (gt_compiler_result){0};
    }
    return rc;
}
