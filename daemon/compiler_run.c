/* compiler_run.c: spawning the compiler, feeding its stdin, collecting its output, its deadline.
 * posix_spawn (a vfork-style clone: cheap in a large multi-threaded daemon) puts the child in its
 * own process group so a timeout can kill the compiler's helpers (cc1, as, ld) with it. One poll
 * loop writes the input and reads the output, with the remaining time as its timeout; after the
 * output ends, the child's exit is awaited under the same deadline. Every way out kills what is
 * left of the group and reaps. (No pidfd: valgrind 3.19 does not know pidfd_open.) */
#include "compiler_run.h"

#include "build.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STDIO_FDS 3          /* the child's stdin, stdout, stderr */
#define IO_CHUNK 16384       /* bytes moved per read or write */
#define OUTPUT_INITIAL 4096  /* first allocation for the output; it doubles up to max_output */
#define NS_PER_MS 1000000u
#define MS_PER_S 1000u
/* Waiting for the exit that follows the end of the output: first and longest sleep between checks. */
#define EXIT_POLL_FIRST_NS 100000u
#define EXIT_POLL_MAX_NS 10000000u

static char *const child_env[] = {"PATH=" GT_BUILD_CHILD_PATH, "LC_ALL=" GT_BUILD_CHILD_LOCALE, NULL};

/* One run in progress. An fd is -1 once closed. */
typedef struct run {
    const gt_compiler_job *job;
    gt_compiler_result *res;
    size_t cap;
    pid_t pid;
    int in_fd, out_fd;
    size_t written;
} run;

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

/* Returns 0 or a positive errno, as posix_spawn does. */
static int spawn(run *r, int child_in, int child_out)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all); /* an ignored SIGPIPE would survive exec; every signal starts at its default */
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc)
        return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    rc = posix_spawn_file_actions_adddup2(&fa, child_in, STDIN_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, child_out, STDOUT_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, child_out, STDERR_FILENO);
    if (!rc) /* the daemon holds client sockets and memfds: none of them reaches the compiler */
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, STDIO_FDS);
    if (!rc)
        rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!rc)
        rc = posix_spawnattr_setpgroup(&attr, 0);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (!rc)
        rc = posix_spawn(&r->pid, r->job->path, &fa, &attr, r->job->argv, child_env);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
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

/* The end of the output comes with the compiler's exit, so the first checks are close together.
 * WNOWAIT leaves the child unreaped for reap(). */
static int await_exit(const run *r, uint64_t deadline_ns)
{
    uint64_t pause_ns = EXIT_POLL_FIRST_NS;
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)r->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
            return -errno;
        if (info.si_pid == r->pid)
            return 0;
        uint64_t now = gt_clock_ns();
        if (now >= deadline_ns)
            return -ETIME;
        if (pause_ns > deadline_ns - now)
            pause_ns = deadline_ns - now;
        struct timespec ts = {0, (long)pause_ns}; /* at most EXIT_POLL_MAX_NS, below a second */
        nanosleep(&ts, NULL);
        pause_ns = pause_ns * 2 < EXIT_POLL_MAX_NS ? pause_ns * 2 : EXIT_POLL_MAX_NS;
    }
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
    int spawn_rc = spawn(r, in[0], out[1]);
    close_fd(&in[0]);
    close_fd(&out[1]);
    r->in_fd = in[1];
    r->out_fd = out[0];
    if (spawn_rc) {
        snprintf(err, errlen, "cannot run the compiler %s: %s", r->job->path, strerror(spawn_rc));
        return -spawn_rc;
    }
    return 0;
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
            rc = await_exit(&r, deadline_ns);
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
