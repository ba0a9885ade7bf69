/* autostart.c: start gridtuned, wait for its first process, connect (autostart.h).
 * The program is $GRIDTUNE_DAEMON, else gridtuned found in $PATH, else the installed one: at
 * the prefix the build was configured for, else where the install put it relative to this
 * library (an install under another prefix).
 * Its first process exits 0 once the socket listens, 3 when another daemon already serves
 * it, anything else after printing why on its stderr (which is ours). Another program may
 * be starting a daemon at the same moment, so connecting is retried for a while. */
#include "autostart.h"

#include "connection.h"

#include "tuner/clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined GT_DAEMON_INSTALL_PATH || !defined GT_LIB_TO_BIN
#error "GT_DAEMON_INSTALL_PATH and GT_LIB_TO_BIN must locate the installed gridtuned (client/CMakeLists.txt)"
#endif

#define DAEMON_NAME "gridtuned"
#define EXIT_ALREADY_SERVED 3
#define START_WAIT_S 30        /* most time given to the first process to exit (it may wait 20 s for a stopping one) */
#define START_WAIT_MS (START_WAIT_S * 1000)
#define CONNECT_RETRY_MS 2000  /* most time spent retrying to connect after the start */
#define POLL_MS 5

#define STR_(x) #x
#define STR(x) STR_(x)
#define TURN_OFF_HINT "set " GT_ENV_NO_AUTOSTART "=1 to turn autostart off"

typedef enum start_outcome {
    START_LISTENING,       /* exit status 0 */
    START_ALREADY_SERVED,  /* exit status 3 */
    START_REAPED_ELSEWHERE, /* ECHILD: the application reaps its own children */
    START_STILL_RUNNING,   /* no exit within START_WAIT_MS */
    START_FAILED,
} start_outcome;

bool gt_autostart_enabled(void)
{
    const char *off = getenv(GT_ENV_NO_AUTOSTART);
    return !off || strcmp(off, "1") != 0;
}

static bool is_program(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* An install under another prefix than the configured one: gridtuned is GT_LIB_TO_BIN from
 * the directory of the object this code is in (libgridtune.so), or beside it (a program that
 * links libgridtune.a). NULL when neither is there. */
static const char *daemon_beside_library(char *buf, size_t len)
{
    Dl_info info;
    char self[PATH_MAX];
    const char *object = dladdr((void *)daemon_beside_library, &info) && info.dli_fname && info.dli_fname[0] == '/'
                             ? info.dli_fname
                             : NULL;
    if (!object) { /* the main program: its path is not in the link map */
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return NULL;
        self[n] = '\0';
        object = self;
    }
    const char *slash = strrchr(object, '/');
    const char *tries[] = {GT_LIB_TO_BIN "/" DAEMON_NAME, DAEMON_NAME};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        int w = snprintf(buf, len, "%.*s/%s", (int)(slash - object), object, tries[i]);
        if (w > 0 && (size_t)w < len && is_program(buf))
            return buf;
    }
    return NULL;
}

/* The daemon program: $GRIDTUNE_DAEMON, gridtuned in $PATH (written into buf), or the
 * installed path. */
static const char *find_daemon(char *buf, size_t len)
{
    const char *env = getenv(GT_ENV_DAEMON);
    if (env && *env)
        return env;
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        int w = n ? snprintf(buf, len, "%.*s/%s", (int)n, p, DAEMON_NAME) : snprintf(buf, len, "./%s", DAEMON_NAME);
        if (w > 0 && (size_t)w < len && is_program(buf))
            return buf;
        p += n + (p[n] == ':');
    }
    if (is_program(GT_DAEMON_INSTALL_PATH))
        return GT_DAEMON_INSTALL_PATH;
    const char *beside = daemon_beside_library(buf, len);
    return beside ? beside : GT_DAEMON_INSTALL_PATH; /* the error then names the configured path */
}

/* The daemon serves every program of the user and sizes its pool by the CPUs it may use, so it
 * must not take the CPU affinity of the thread that happened to start it (a pinned OpenMP or
 * MPI program's). A spawned process inherits the calling thread's, so the thread asks for every
 * CPU (the kernel keeps those its cpuset allows) until the daemon is spawned. True when *saved
 * holds the thread's mask to put back. */
static bool widen_affinity(cpu_set_t *saved)
{
    cpu_set_t every;
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return false;
    memset(&every, 0xff, sizeof every);
    return sched_setaffinity(0, sizeof every, &every) == 0;
}

/* Starts prog --socket path with a clean signal state, every CPU and only stdin, stdout and
 * stderr open: the daemon must not inherit the application's blocked or ignored signals or its
 * pinning, nor keep its other files (a lock it holds, a pipe whose reader waits for end of
 * file) open for as long as the daemon lives. Returns 0 or a negative errno. */
static int spawn_daemon(const char *prog, const char *path, pid_t *pid)
{
    char *argv[] = {(char *)prog, "--socket", (char *)path, NULL};
    posix_spawn_file_actions_t files;
    int rc = posix_spawn_file_actions_init(&files);
    if (rc)
        return -rc;
    rc = posix_spawn_file_actions_addclosefrom_np(&files, STDERR_FILENO + 1);
    if (rc) {
        posix_spawn_file_actions_destroy(&files);
        return -rc;
    }
    posix_spawnattr_t attr;
    rc = posix_spawnattr_init(&attr);
    if (rc) {
        posix_spawn_file_actions_destroy(&files);
        return -rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (!rc)
        rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!rc) {
        cpu_set_t pinned;
        bool widened = widen_affinity(&pinned);
        rc = posix_spawnp(pid, prog, &files, &attr, argv, environ); /* a bare name is looked up in $PATH */
        if (widened)
            sched_setaffinity(0, sizeof pinned, &pinned);
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&files);
    return -rc;
}

/* Waits for the first process; on START_FAILED *status holds its wait status. */
static start_outcome wait_first_process(pid_t pid, int *status)
{
    int64_t start = gt_clock_ms();
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
                return START_LISTENING;
            if (WIFEXITED(*status) && WEXITSTATUS(*status) == EXIT_ALREADY_SERVED)
                return START_ALREADY_SERVED;
            return START_FAILED;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return START_REAPED_ELSEWHERE;
        if (gt_clock_ms() - start >= START_WAIT_MS)
            return START_STILL_RUNNING;
        gt_clock_sleep_ms(POLL_MS);
    }
}

static int dial_retrying(const char *path, int *fd, char *err, size_t errlen)
{
    int64_t start = gt_clock_ms();
    for (;;) {
        int rc = gt_conn_dial(path, fd, err, errlen);
        if ((rc != -ENOENT && rc != -ECONNREFUSED) || gt_clock_ms() - start >= CONNECT_RETRY_MS)
            return rc;
        gt_clock_sleep_ms(POLL_MS);
    }
}

static const char *outcome_words(start_outcome o)
{
    switch (o) {
    case START_LISTENING: return "reported its socket listening";
    case START_ALREADY_SERVED: return "reported another daemon serving the socket";
    case START_REAPED_ELSEWHERE: return "was reaped by the application before its status could be read";
    case START_STILL_RUNNING: return "was still starting after " STR(START_WAIT_S) " s";
    case START_FAILED: break;
    }
    return "failed";
}

int gt_autostart(const char *path, int first_rc, int *fd, char *err, size_t errlen)
{
    char found[PATH_MAX];
    const char *prog = find_daemon(found, sizeof found);
    pid_t pid;
    int rc = spawn_daemon(prog, path, &pid);
    if (rc) {
        snprintf(err, errlen,
                 "no gridtuned answers at %s, and starting %s --socket %s failed: %s; set %s to the daemon's path, "
                 "or " TURN_OFF_HINT,
                 path, prog, path, strerror(-rc), GT_ENV_DAEMON);
        return first_rc;
    }
    int status = 0;
    start_outcome o = wait_first_process(pid, &status);
    if (o == START_FAILED) {
        if (WIFSIGNALED(status))
            snprintf(err, errlen,
                     "gridtuned (%s) could not start: killed by signal %d (%s); socket %s; " TURN_OFF_HINT, prog,
                     WTERMSIG(status), strsignal(WTERMSIG(status)), path);
        else
            snprintf(err, errlen,
                     "gridtuned (%s) could not start: exit status %d; see its message above; socket %s; " TURN_OFF_HINT,
                     prog, WEXITSTATUS(status), path);
        return first_rc;
    }
    char dial_err[512];
    rc = dial_retrying(path, fd, dial_err, sizeof dial_err);
    if (rc)
        snprintf(err, errlen,
                 "%s, although %s --socket %s was started and %s; " TURN_OFF_HINT " and start gridtuned yourself",
                 dial_err, prog, path, outcome_words(o));
    return rc;
}
