/* private_daemon.c: starting and stopping a gridtuned of the benchmark's own (private_daemon.h). */
#include "private_daemon.h"

#include "kernels/say.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_POLLS 1000 /* of 10 ms: 10 s */
#define OWN_ARGS 13     /* the program and the flags it always or optionally gets here */

const char *gt_private_daemon_program(void)
{
    const char *env = getenv("GRIDTUNE_DAEMON");
    if (env && *env)
        return env;
    return access(GT_DAEMON_BUILD_PATH, X_OK) == 0 ? GT_DAEMON_BUILD_PATH : GT_DAEMON_INSTALL_PATH;
}

/* The daemon's status object, or NULL when it cannot be had; cJSON_Delete it. */
static cJSON *status_of(gt_client *c)
{
    char *text = NULL;
    cJSON *st = gt_status(c, &text) == 0 ? cJSON_Parse(text) : NULL;
    free(text);
    return st;
}

double gt_private_daemon_status_number(gt_client *c, const char *key)
{
    cJSON *st = status_of(c);
    double v = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, key));
    cJSON_Delete(st);
    return v > 0 ? v : 0;
}

void gt_private_daemon_huge_pages(gt_client *c, char *mode, size_t len)
{
    cJSON *st = status_of(c);
    const char *v = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "buffers"), "huge_pages"));
    snprintf(mode, len, "%s", v ? v : "unknown");
    cJSON_Delete(st);
}

int gt_private_daemon_start(const char *program, unsigned workers, bool trace,
                            const char *const *extra, gt_private_daemon *d, gt_client **out)
{
    size_t nextra = 0;
    while (extra && extra[nextra])
        nextra++;
    if (nextra > GT_PRIVATE_DAEMON_MAX_EXTRA) {
        say("%zu extra flags for gridtuned; at most %d", nextra, GT_PRIVATE_DAEMON_MAX_EXTRA);
        return -1;
    }
    if (!d->dir[0]) {
        snprintf(d->dir, sizeof d->dir, "%s/gridtune-bench-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(d->dir)) {
            say("cannot make a temporary directory %s: %s", d->dir, strerror(errno));
            d->dir[0] = 0;
            return -1;
        }
    }
    char wisdom[PATH_MAX + 16], cache[PATH_MAX + 16], log[PATH_MAX + 16], nworkers[16];
    snprintf(d->socket, sizeof d->socket, "%.*s/s.sock", PATH_MAX - 16, d->dir);
    snprintf(wisdom, sizeof wisdom, "%s/wisdom.json", d->dir);
    snprintf(cache, sizeof cache, "%s/cache", d->dir);
    snprintf(log, sizeof log, "%s/gridtuned.log", d->dir);
    snprintf(nworkers, sizeof nworkers, "%u", workers);
    d->trace[0] = 0;
    if (trace) {
        snprintf(d->trace, sizeof d->trace, "%.*s/trace.jsonl", PATH_MAX - 16, d->dir);
        unlink(d->trace); /* the daemon appends; one trace describes one daemon */
    }
    const char *argv[OWN_ARGS + GT_PRIVATE_DAEMON_MAX_EXTRA + 1] = {
        program, "--socket", d->socket, "--wisdom", wisdom, "--cache-dir", cache, "--log", log};
    size_t n = 9;
    if (workers) {
        argv[n++] = "--workers";
        argv[n++] = nworkers;
    }
    if (trace) {
        argv[n++] = "--trace";
        argv[n++] = d->trace;
    }
    for (size_t i = 0; i < nextra; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t first = fork();
    if (first < 0) {
        say("fork: %s", strerror(errno));
        return -1;
    }
    if (first == 0) {
        execv(program, (char *const *)argv);
        say("cannot run %s: %s", program, strerror(errno));
        _exit(127);
    }
    /* without --foreground the first process exits 0 only once the socket listens */
    int status;
    while (waitpid(first, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        say("%s did not start (exit status %d); its log is %s", program, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
            log);
        return -1;
    }
    gt_client *c = NULL;
    if (gt_connect(d->socket, &c) != 0 || !(d->pid = (pid_t)gt_private_daemon_status_number(c, "pid"))) {
        say("cannot talk to the gridtuned just started on %s: %s", d->socket, c ? gt_last_error(c) : "no memory");
        gt_disconnect(c);
        return -1;
    }
    *out = c;
    return 0;
}

int gt_private_daemon_stop(gt_private_daemon *d)
{
    if (d->pid <= 0)
        return 0;
    pid_t pid = d->pid;
    d->pid = 0;
    if (kill(pid, SIGTERM) != 0) {
        say("cannot stop gridtuned (pid %d): %s", (int)pid, strerror(errno));
        return -1;
    }
    for (int i = 0; i < STOP_POLLS; i++) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return 0;
        gt_clock_sleep_ms(10);
    }
    say("gridtuned (pid %d) did not stop within 10 s of SIGTERM", (int)pid);
    return -1;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(path);
    return 0;
}

void gt_private_daemon_remove(gt_private_daemon *d)
{
    if (d->dir[0])
        nftw(d->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    d->dir[0] = 0;
}
