/* daemon_fixture.c: starting, watching and stopping a real gridtuned for a test, and a raw
 * client for frames libgridtune would never send (daemon_fixture.h). The test process makes
 * itself a child subreaper, so the daemon, detached from its first process, is reparented to
 * the test and its exit status can be waited for; without that it would be a zombie of an
 * init that may never reap it, and kill(pid, 0) would say it still lives. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_GRIDTUNED_PATH
#error "GT_GRIDTUNED_PATH must name the gridtuned executable"
#endif
#ifndef GT_SOURCE_INCLUDE_DIR
#error "GT_SOURCE_INCLUDE_DIR must name the source tree's include directory"
#endif

#define POLL_MS 10
#define MAX_EXTRA_FLAGS 16
/* Bigger than any frame the daemon sends. */
#define RAW_MAX_FRAME (16u << 20)
#define NFTW_FDS 16
/* What sanitizers write when they find something; -fno-sanitize-recover makes UBSan abort. */
static const char *const sanitizer_reports[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"};

/* ---- time and files --------------------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The whole file as a string, or NULL when it cannot be read. free() it. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = more;
        }
        memcpy(text + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!text)
        text = calloc(1, 1);
    else
        text[len] = '\0';
    return text;
}

/* Fails the test when the file holds a sanitizer report. */
static void check_no_sanitizer_report(const char *path)
{
    char *text = read_text(path);
    if (!text)
        return;
    for (size_t i = 0; i < sizeof sanitizer_reports / sizeof sanitizer_reports[0]; i++) {
        const char *hit = strstr(text, sanitizer_reports[i]);
        if (hit) {
            print_error("%s holds a sanitizer report:\n%.4000s\n", path, hit);
            free(text);
            fail_msg("gridtuned reported a sanitizer error (see %s)", path);
        }
    }
    free(text);
}

void daemon_fixture_assert_no_sanitizer_report(const daemon_fixture *fx)
{
    check_no_sanitizer_report(fx->log);
    DIR *dir = opendir(fx->dir);
    if (!dir)
        return;
    char paths[8][PATH_MAX];
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 8)
        if (strncmp(e->d_name, "sanitizer.", 10) == 0)
            snprintf(paths[n++], sizeof paths[0], "%s/%s", fx->dir, e->d_name);
    closedir(dir);
    for (unsigned i = 0; i < n; i++)
        check_no_sanitizer_report(paths[i]);
}

/* ---- starting and stopping ---------------------------------------------------------------- */

/* The daemon's environment: ours, with each sanitizer told to write its reports to
 * DIR/sanitizer.PID, since a detached daemon's stderr is /dev/null. Built before the fork, so
 * that the child only has to exec. */
typedef struct daemon_env {
    char *vars[512];
    char options[3][2 * PATH_MAX];
} daemon_env;

static void make_env(daemon_env *env, const daemon_fixture *fx)
{
    static const char *const names[] = {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"};
    extern char **environ;
    size_t n = 0;
    for (char **e = environ; *e && n < sizeof env->vars / sizeof env->vars[0] - 4; e++) {
        bool replaced = false;
        for (size_t i = 0; i < 3; i++)
            replaced |= strncmp(*e, names[i], strlen(names[i])) == 0 && (*e)[strlen(names[i])] == '=';
        if (!replaced)
            env->vars[n++] = *e;
    }
    for (size_t i = 0; i < 3; i++) {
        const char *old = getenv(names[i]);
        snprintf(env->options[i], sizeof env->options[i], "%s=%s%slog_path=%s/sanitizer%s", names[i],
                 old && *old ? old : "", old && *old ? ":" : "", fx->dir, i == 2 ? ":print_stacktrace=1" : "");
        env->vars[n++] = env->options[i];
    }
    env->vars[n] = NULL;
}

/* Waits for child pid to exit; its wait status. */
static int wait_child(pid_t pid, const char *what)
{
    int64_t deadline = now_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            fail_msg("waiting for %s (pid %d) failed: %s", what, (int)pid, strerror(errno));
        if (now_ms() > deadline)
            fail_msg("%s (pid %d) did not exit within %d s", what, (int)pid, DAEMON_FIXTURE_GUARD_SECONDS);
        sleep_ms(POLL_MS);
    }
}

/* In the child, before exec: without the capabilities BPF needs in its bounding set, a root
   process keeps none of them across exec. */
static void drop_bpf_capabilities(void)
{
    static const int caps[] = {CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) != 0)
            _exit(126);
}

void daemon_fixture_start(daemon_fixture *fx, const char *trace, const char *const *extra)
{
    daemon_fixture_start_as(fx, trace, extra, false);
}

void daemon_fixture_start_as(daemon_fixture *fx, const char *trace, const char *const *extra, bool without_bpf)
{
    *fx = (daemon_fixture){.pid = 0};
    setenv("GRIDTUNE_NO_AUTOSTART", "1", 1);
    signal(SIGPIPE, SIG_IGN); /* a raw client writes to connections the daemon may have closed */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        fail_msg("cannot become a child subreaper, so the daemon could not be waited for: %s", strerror(errno));
    snprintf(fx->dir, sizeof fx->dir, "/tmp/gt-itest-XXXXXX");
    if (!mkdtemp(fx->dir))
        fail_msg("mkdtemp: %s", strerror(errno));
    snprintf(fx->socket, sizeof fx->socket, "%s/s.sock", fx->dir);
    snprintf(fx->log, sizeof fx->log, "%s/gridtuned.log", fx->dir);
    snprintf(fx->wisdom, sizeof fx->wisdom, "%s/wisdom.json", fx->dir);
    snprintf(fx->trace, sizeof fx->trace, "%s", trace ? trace : "");
    if (!trace)
        snprintf(fx->trace, sizeof fx->trace, "%s/trace.jsonl", fx->dir);
    /* The daemon appends; a trace must describe one daemon, whose connection numbers are
       unique only within it. */
    if (unlink(fx->trace) != 0 && errno != ENOENT)
        fail_msg("cannot remove the old trace %s: %s", fx->trace, strerror(errno));

    char cache[PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache", fx->dir);
    const char *argv[32 + MAX_EXTRA_FLAGS] = {
        GT_GRIDTUNED_PATH, "--socket", fx->socket, "--wisdom", fx->wisdom, "--cache-dir", cache,
        "--include-dir", GT_SOURCE_INCLUDE_DIR, "--log", fx->log, "--trace", fx->trace, "--workers", "2"};
    size_t n = 15;
    for (size_t i = 0; extra && extra[i]; i++) {
        if (i == MAX_EXTRA_FLAGS)
            fail_msg("more than %d extra flags for gridtuned", MAX_EXTRA_FLAGS);
        argv[n++] = extra[i];
    }
    argv[n] = NULL;
    static daemon_env env;
    make_env(&env, fx);
    pid_t first = fork();
    if (first < 0)
        fail_msg("fork: %s", strerror(errno));
    if (first == 0) {
        if (without_bpf)
            drop_bpf_capabilities();
        execve(GT_GRIDTUNED_PATH, (char *const *)argv, env.vars);
        _exit(127);
    }
    /* Without --foreground the first process exits 0 only once the socket listens. */
    int status = wait_child(first, "gridtuned's starting process");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("gridtuned did not start (wait status 0x%x); its log is %s", (unsigned)status, fx->log);

    gt_client *c = daemon_fixture_connect(fx);
    cJSON *st = daemon_fixture_status(c);
    fx->pid = (pid_t)daemon_fixture_status_number(st, "pid");
    const char *http = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "http"));
    snprintf(fx->http, sizeof fx->http, "%s", http ? http : "");
    cJSON_Delete(st);
    gt_disconnect(c);
    if (fx->pid <= 0)
        fail_msg("gridtuned's status names no pid");
}

int daemon_fixture_wait_exit(daemon_fixture *fx)
{
    int status = wait_child(fx->pid, "gridtuned");
    fx->pid = 0;
    fx->exit_status = status;
    daemon_fixture_assert_no_sanitizer_report(fx);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return status;
    if (access(fx->socket, F_OK) == 0)
        fail_msg("gridtuned exited but left its socket %s behind", fx->socket);
    if (!daemon_fixture_log_has_line(fx, "info: stopped"))
        fail_msg("gridtuned exited without logging \"stopped\" (see %s)", fx->log);
    return status;
}

int daemon_fixture_stop(daemon_fixture *fx)
{
    if (kill(fx->pid, SIGTERM) != 0)
        fail_msg("cannot signal gridtuned (pid %d): %s", (int)fx->pid, strerror(errno));
    return daemon_fixture_wait_exit(fx);
}

void daemon_fixture_clean_up(daemon_fixture *fx)
{
    if (!fx->dir[0])
        return;
    if (fx->pid == 0 && WIFEXITED(fx->exit_status) && WEXITSTATUS(fx->exit_status) == 0)
        nftw(fx->dir, remove_entry, NFTW_FDS, FTW_DEPTH | FTW_PHYS);
    else
        print_error("gridtuned's files are left in %s\n", fx->dir);
    fx->dir[0] = '\0';
}

/* ---- looking at the daemon -------------------------------------------------------------- */

gt_client *daemon_fixture_connect(const daemon_fixture *fx)
{
    gt_client *c = NULL;
    int rc = gt_connect(fx->socket, &c);
    if (rc) {
        char why[1024];
        snprintf(why, sizeof why, "%s", gt_last_error(c));
        gt_disconnect(c);
        fail_msg("cannot connect to gridtuned at %s: %s", fx->socket, why);
    }
    return c;
}

cJSON *daemon_fixture_status(gt_client *c)
{
    char *json;
    int rc = gt_status(c, &json);
    if (rc)
        fail_msg("gt_status failed (%d): %s", rc, gt_last_error(c));
    cJSON *st = cJSON_Parse(json);
    free(json);
    if (!cJSON_IsObject(st))
        fail_msg("gt_status gave something that is not a JSON object");
    return st;
}

double daemon_fixture_status_number(const cJSON *status, const char *path)
{
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", path);
    const cJSON *v = status;
    for (char *key = strtok_r(copy, ".", &save); key && v; key = strtok_r(NULL, ".", &save))
        v = cJSON_GetObjectItemCaseSensitive(v, key);
    if (!cJSON_IsNumber(v))
        fail_msg("the status has no number at %s", path);
    return v->valuedouble;
}

void daemon_fixture_wait_quiet(gt_client *c, unsigned clients)
{
    int64_t deadline = now_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    for (;;) {
        cJSON *st = daemon_fixture_status(c);
        double have = daemon_fixture_status_number(st, "clients");
        double queued = daemon_fixture_status_number(st, "launches.queued");
        double running = daemon_fixture_status_number(st, "launches.running");
        cJSON_Delete(st);
        if (have == clients && queued == 0 && running == 0)
            return;
        if (now_ms() > deadline)
            fail_msg("gridtuned did not settle within %d s: %g clients (waiting for %u), %g launches queued, %g "
                     "running", DAEMON_FIXTURE_GUARD_SECONDS, have, clients, queued, running);
        sleep_ms(POLL_MS);
    }
}

unsigned daemon_fixture_fd_count(const daemon_fixture *fx)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)fx->pid);
    DIR *dir = opendir(path);
    if (!dir)
        fail_msg("cannot list %s: %s", path, strerror(errno));
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

unsigned daemon_fixture_memfd_count(const daemon_fixture *fx)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)fx->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    unsigned n = 0;
    while (getline(&line, &cap, f) > 0)
        n += strstr(line, "gridtune-buffer") != NULL;
    free(line);
    fclose(f);
    return n;
}

unsigned long daemon_fixture_rss_kib(const daemon_fixture *fx)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)fx->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    unsigned long kib = 0;
    bool found = false;
    while (!found && getline(&line, &cap, f) > 0)
        found = sscanf(line, "VmRSS: %lu kB", &kib) == 1;
    free(line);
    fclose(f);
    if (!found)
        fail_msg("%s has no VmRSS line", path);
    return kib;
}

cJSON *daemon_fixture_trace_error(const daemon_fixture *fx, const char *message)
{
    FILE *f = fopen(fx->trace, "re");
    if (!f)
        fail_msg("cannot read the trace %s: %s", fx->trace, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    cJSON *found = NULL;
    while (getline(&line, &cap, f) > 0) {
        cJSON *entry = cJSON_Parse(line);
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(entry, "msg");
        const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "dir"));
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"));
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "message"));
        if (dir && !strcmp(dir, "out") && type && !strcmp(type, "error") && text &&
            !strncmp(text, message, strlen(message))) {
            cJSON_Delete(found);
            found = cJSON_Duplicate(msg, 1);
        }
        cJSON_Delete(entry);
    }
    free(line);
    fclose(f);
    return found;
}

unsigned daemon_fixture_trace_count(const daemon_fixture *fx, const char *dir, const char *type)
{
    FILE *f = fopen(fx->trace, "re");
    if (!f)
        fail_msg("cannot read the trace %s: %s", fx->trace, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    unsigned n = 0;
    while (getline(&line, &cap, f) > 0) {
        cJSON *entry = cJSON_Parse(line);
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "dir"));
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(entry, "msg");
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"));
        n += d && t && !strcmp(d, dir) && !strcmp(t, type);
        cJSON_Delete(entry);
    }
    free(line);
    fclose(f);
    return n;
}

bool daemon_fixture_log_has_line(const daemon_fixture *fx, const char *text)
{
    FILE *f = fopen(fx->log, "re");
    if (!f)
        fail_msg("cannot read the log %s: %s", fx->log, strerror(errno));
    char *line = NULL;
    size_t cap = 0, n = strlen(text);
    bool found = false;
    ssize_t len;
    while (!found && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        found = (size_t)len >= n && strcmp(line + len - n, text) == 0;
    }
    free(line);
    fclose(f);
    return found;
}

void assert_error_answer(const cJSON *msg, const char *code, int errnum, const char *needle)
{
    if (!msg)
        fail_msg("expected a %s error, but the connection ended", code);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"));
    if (!type || strcmp(type, "error") != 0) {
        char *text = cJSON_PrintUnformatted(msg);
        print_error("answer: %s\n", text);
        free(text);
        fail_msg("expected a %s error answer", code);
    }
    const char *have_code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "code"));
    const cJSON *have_errno = cJSON_GetObjectItemCaseSensitive(msg, "errno");
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "message"));
    if (!message)
        fail_msg("the %s error has no message", code);
    if (!have_code || strcmp(have_code, code) != 0)
        fail_msg("expected code %s, got %s (message: %s)", code, have_code ? have_code : "none", message);
    if (!cJSON_IsNumber(have_errno) || have_errno->valuedouble != errnum)
        fail_msg("expected errno %d (%s), got %g (message: %s)", errnum, strerror(errnum),
                 cJSON_IsNumber(have_errno) ? have_errno->valuedouble : -1.0, message);
    if (!strstr(message, needle))
        fail_msg("the %s error's message does not name \"%s\": %s", code, needle, message);
}

void assert_api_error(const daemon_fixture *fx, gt_client *c, int rc, const char *code, int errnum,
                      const char *needle)
{
    const char *text = gt_last_error(c);
    if (rc != -errnum)
        fail_msg("expected -%d (%s), got %d: %s", errnum, strerror(errnum), rc, text);
    if (!strstr(text, needle))
        fail_msg("gt_last_error does not name \"%s\": %s", needle, text);
    cJSON *answer = text[0] ? daemon_fixture_trace_error(fx, text) : NULL;
    if (!answer)
        fail_msg("the trace %s shows no error answer with the message \"%s\"", fx->trace, text);
    assert_error_answer(answer, code, errnum, needle);
    cJSON_Delete(answer);
}

/* ---- the raw client --------------------------------------------------------------------- */

void raw_client_open(raw_client *rc, const daemon_fixture *fx)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", fx->socket);
    rc->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (rc->fd < 0)
        fail_msg("socket: %s", strerror(errno));
    if (connect(rc->fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        fail_msg("cannot connect to %s: %s", fx->socket, strerror(errno));
    rc->reader = gt_wire_reader_new(RAW_MAX_FRAME);
    if (!rc->reader)
        fail_msg("no memory for a wire reader");
}

void raw_client_open_hello(raw_client *rc, const daemon_fixture *fx)
{
    raw_client_open(rc, fx);
    cJSON *answer = raw_client_call(rc, "{\"type\":\"hello\",\"id\":1,\"protocol\":1,\"client\":\"raw test client\"}",
                                    NULL, 0);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type"));
    if (!type || strcmp(type, "result") != 0)
        fail_msg("gridtuned refused the raw client's hello");
    cJSON_Delete(answer);
}

void raw_client_close(raw_client *rc)
{
    if (rc->fd >= 0)
        close(rc->fd);
    rc->fd = -1;
    gt_wire_reader_free(rc->reader);
    rc->reader = NULL;
}

void raw_client_send(raw_client *rc, const char *json, const int *fds, unsigned nfds)
{
    char err[256];
    int r = gt_wire_send(rc->fd, json, strlen(json), fds, nfds, err, sizeof err);
    if (r)
        fail_msg("cannot send a frame: %s", err);
}

void raw_client_send_bytes(raw_client *rc, const void *bytes, size_t len)
{
    const char *p = bytes;
    while (len > 0) {
        ssize_t n = send(rc->fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fail_msg("cannot send %zu bytes: %s", len, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}

cJSON *raw_client_read(raw_client *rc)
{
    int64_t deadline = now_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    char err[256];
    for (;;) {
        gt_wire_frame f;
        int r = gt_wire_next(rc->reader, &f, err, sizeof err);
        if (r < 0)
            fail_msg("gridtuned sent a broken frame: %s", err);
        if (r == 1) {
            for (unsigned i = 0; i < f.nfds; i++)
                close(f.fds[i]);
            cJSON *msg = cJSON_ParseWithLength(f.json, f.len);
            if (!cJSON_IsObject(msg))
                fail_msg("gridtuned sent a frame that is not a JSON object: %s", f.json);
            free(f.json);
            return msg;
        }
        int left = (int)(deadline - now_ms());
        if (left <= 0)
            fail_msg("no answer from gridtuned within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
        struct pollfd p = {.fd = rc->fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0)
            continue;
        long n = gt_wire_read(rc->reader, rc->fd);
        /* A Unix socket closed with our bytes unread reports ECONNRESET after its data. */
        if (n == 0 || n == -ECONNRESET) {
            if (gt_wire_pending(rc->reader) > 0)
                fail_msg("gridtuned closed the connection in the middle of a frame");
            return NULL;
        }
        if (n < 0 && n != -EAGAIN)
            fail_msg("reading from gridtuned failed: %s", strerror((int)-n));
    }
}

cJSON *raw_client_call(raw_client *rc, const char *json, const int *fds, unsigned nfds)
{
    raw_client_send(rc, json, fds, nfds);
    cJSON *answer = raw_client_read(rc);
    if (!answer)
        fail_msg("gridtuned closed the connection instead of answering %s", json);
    return answer;
}

void raw_client_expect_closed(raw_client *rc)
{
    cJSON *msg = raw_client_read(rc);
    if (msg) {
        char *text = cJSON_PrintUnformatted(msg);
        print_error("unexpected frame: %s\n", text);
        free(text);
        cJSON_Delete(msg);
        fail_msg("expected gridtuned to close the connection, but it sent another frame");
    }
}
