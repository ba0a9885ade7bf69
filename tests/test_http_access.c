/* test_http_access.c: who may read gridtuned's HTTP side, and how much of gridtuned a peer
 * may hold. A TCP port is refused without --http-public; --http unix:PATH serves the daemon's
 * own user over a private socket and refuses other uids in per-user mode; in system mode it
 * serves the group, each uid seeing only the reports of its own launches, another user's
 * report id answered as a missing one. Oversized requests are refused, connections past
 * --http-max-connections wait (in system mode, one user's past half of them are closed), and a
 * request that trickles in is cut at --http-timeout. Other
 * users are child processes that change uid before they connect, since SO_PEERCRED records
 * who connected; so these tests need root and are skipped without it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/become_user.h"
#include "tests/fixtures/daemon_fixture.h"
#include "tests/fixtures/temp_dir.h"
#include "tuner/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_TEST_DAEMON_MODULE
#error "GT_TEST_DAEMON_MODULE must name the test kernel module"
#endif
#ifndef GT_GRIDTUNED_PATH
#error "GT_GRIDTUNED_PATH must name the gridtuned executable"
#endif

#define HTTP_MAX_ANSWER (1u << 20)
#define UID_A 65533 /* launches in system mode */
#define UID_B 65534 /* reads */
#define MISSING_ID "987654321"
#define CHECK_SIDE 16
#define CHECK_LOCAL 4
#define CHECK_V 777

/* What a child reports instead of an answer when it could not become its uid or connect. */
enum child_exit { CHILD_OK = 0, CHILD_NO_UID = BECOME_USER_FAILED, CHILD_NO_CONNECT = 4, CHILD_NO_LAUNCH = 5 };

typedef struct access_test {
    daemon_fixture fx;
    char dir[64];    /* mkdtemp: the HTTP socket's parent's parent */
    char socket[108]; /* dir/run/http.sock; gridtuned makes run/ */
} access_test;

typedef struct http_answer {
    int code;
    char *body; /* NUL-terminated; free() it */
} http_answer;

static void skip_unless_root(void)
{
    if (geteuid() != 0) {
        print_message("skipped: other users are played by child processes that setuid(), which needs root\n");
        skip();
    }
}

/* ---- becoming another user --------------------------------------------------------------- */

/* Everything fd delivers until it closes, bounded by the guard; NULL when it fails. Free of
   cmocka, since children use it too (a failed assertion in a child would run the rest of the
   suite there). free() it. */
static char *slurp(int fd)
{
    char *text = malloc(HTTP_MAX_ANSWER + 1);
    size_t len = 0;
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    while (text) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - gt_clock_ms());
        ssize_t got = left > 0 && poll(&p, 1, left) == 1 ? read(fd, text + len, HTTP_MAX_ANSWER - len) : -1;
        if (got < 0 && errno == EINTR)
            continue;
        if (got == 0)
            break;
        len += got > 0 ? (size_t)got : 0;
        if (got < 0 || len == HTTP_MAX_ANSWER) {
            free(text);
            return NULL;
        }
    }
    if (text)
        text[len] = '\0';
    return text;
}

static char *read_all(int fd, const char *what)
{
    char *text = slurp(fd);
    if (!text)
        fail_msg("%s: nothing to the end within %d s, or over %u bytes", what, DAEMON_FIXTURE_GUARD_SECONDS,
                 HTTP_MAX_ANSWER);
    return text;
}

/* Waits for a child and fails the test, or skips it, unless it exited CHILD_OK. */
static void reap(pid_t pid, uid_t uid, const char *what)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            fail_msg("waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NO_UID) {
        print_message("skipped: a child could not become uid %u (setresuid or capset was refused)\n", (unsigned)uid);
        skip();
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != CHILD_OK)
        fail_msg("%s as uid %u: the child ended with wait status 0x%x (%d: could not connect, %d: the launch "
                 "failed)", what, (unsigned)uid, (unsigned)status, CHILD_NO_CONNECT, CHILD_NO_LAUNCH);
}

/* ---- HTTP on a Unix socket ---------------------------------------------------------------- */

/* One HTTP/1.0 GET over the Unix socket at path, read until the daemon closes; in the calling
   process, so usable from a child. The raw answer, or NULL when it cannot connect. */
static char *raw_get(const char *path, const char *target)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (s >= 0)
            close(s);
        return NULL;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: gridtuned\r\n\r\n", target);
    if (send(s, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(s);
        return NULL;
    }
    char *text = slurp(s);
    close(s);
    return text;
}

static http_answer parse_answer(char *text, const char *target)
{
    http_answer a = {.code = 0};
    if (sscanf(text, "HTTP/1.%*d %d", &a.code) != 1)
        fail_msg("GET %s: not an HTTP answer: %.200s", target, text);
    char *end = strstr(text, "\r\n\r\n");
    if (!end)
        fail_msg("GET %s: the answer has no end of headers: %.200s", target, text);
    a.body = strdup(end + 4);
    free(text);
    return a;
}

/* GET target over the Unix socket at path, as this process. */
static http_answer get(const char *path, const char *target)
{
    char *text = raw_get(path, target);
    if (!text)
        fail_msg("cannot connect to the HTTP socket %s: %s", path, strerror(errno));
    return parse_answer(text, target);
}

/* GET target over the Unix socket at path, from a child that became uid (group gid) first. */
static http_answer get_as(uid_t uid, gid_t gid, bool dac_override, const char *path, const char *target)
{
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        become_user(uid, gid, dac_override);
        char *text = raw_get(path, target);
        if (!text)
            _exit(CHILD_NO_CONNECT);
        size_t len = strlen(text);
        _exit(write(p[1], text, len) == (ssize_t)len ? CHILD_OK : CHILD_NO_CONNECT);
    }
    close(p[1]);
    char *text = read_all(p[0], target);
    close(p[0]);
    reap(pid, uid, target);
    return parse_answer(text, target);
}

/* Whether a /reports answer lists the report with this id. */
static bool lists_report(const char *body, const char *id)
{
    cJSON *list = cJSON_Parse(body);
    if (!cJSON_IsArray(list))
        fail_msg("/reports did not answer a JSON array: %.200s", body);
    bool found = false;
    const cJSON *r;
    cJSON_ArrayForEach(r, list)
    {
        const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
        found |= got && strcmp(got, id) == 0;
    }
    cJSON_Delete(list);
    return found;
}

/* ---- launches ------------------------------------------------------------------------------ */

/* Runs the fill kernel once through c; the launch's report id, or "" when something failed. */
static void launch_fill(gt_client *c, char id[32])
{
    id[0] = '\0';
    gt_kernel *k = NULL;
    gt_buffer *b = NULL;
    gt_event ev = 0;
    gt_range range = {.dims = 2, .global = {CHECK_SIDE, CHECK_SIDE}, .local = {CHECK_LOCAL, CHECK_LOCAL}};
    char *json = NULL;
    if (gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k) == 0 &&
        gt_buffer_create(c, CHECK_SIDE * CHECK_SIDE * sizeof(int32_t), &b) == 0) {
        gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(CHECK_V)};
        if (gt_launch(c, k, &range, args, 2, NULL, &ev) == 0 && gt_wait(c, ev) == 0 && gt_report(c, ev, &json) == 0) {
            cJSON *report = cJSON_Parse(json);
            const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "id"));
            if (got)
                snprintf(id, 32, "%s", got);
            cJSON_Delete(report);
        }
    }
    free(json);
    gt_buffer_release(b);
    gt_kernel_release(k);
}

/* A launch by uid (group gid) through the main socket, from a child; its report id. */
static void launch_as(const access_test *t, uid_t uid, gid_t gid, char id[32])
{
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        become_user(uid, gid, false);
        gt_client *c = NULL;
        if (gt_connect(t->fx.socket, &c) != 0)
            _exit(CHILD_NO_CONNECT);
        char mine[32];
        launch_fill(c, mine);
        gt_disconnect(c);
        size_t len = strlen(mine);
        _exit(len && write(p[1], mine, len) == (ssize_t)len ? CHILD_OK : CHILD_NO_LAUNCH);
    }
    close(p[1]);
    char *text = read_all(p[0], "the launching child's report id");
    close(p[0]);
    reap(pid, uid, "a launch");
    snprintf(id, 32, "%s", text);
    free(text);
}

/* ---- setup --------------------------------------------------------------------------------- */

/* A daemon serving HTTP on DIR/run/http.sock; in system mode, open to this process's group
   with modules from the test module's directory; with the flags `extra` (four at most, may be
   NULL). DIR can be passed through by other users (0711), so that in system mode only
   gridtuned's own modes decide. */
static void start(access_test *t, bool system_mode, const char *const *extra)
{
    skip_unless_root();
    snprintf(t->dir, sizeof t->dir, "/tmp/gt-http-XXXXXX");
    if (!mkdtemp(t->dir))
        fail_msg("mkdtemp: %s", strerror(errno));
    assert_int_equal(chmod(t->dir, system_mode ? 0711 : 0700), 0);
    snprintf(t->socket, sizeof t->socket, "%s/run/http.sock", t->dir);
    static char http[128], group[256], modules[PATH_MAX];
    snprintf(http, sizeof http, "unix:%s", t->socket);
    const struct group *g = getgrgid(getgid());
    if (!g)
        fail_msg("this process's group %u has no name", (unsigned)getgid());
    snprintf(group, sizeof group, "%s", g->gr_name);
    snprintf(modules, sizeof modules, "%s", GT_TEST_DAEMON_MODULE);
    *strrchr(modules, '/') = '\0';
    const char *flags[12] = {"--http", http, "--system", "--group", group, "--module-dir", modules};
    int n = system_mode ? 7 : 2;
    for (int i = 0; extra && extra[i]; i++) {
        assert_true(i < 4);
        flags[n++] = extra[i];
    }
    flags[n] = NULL;
    daemon_fixture_start(&t->fx, NULL, flags);
}

static int setup_user(void **state)
{
    access_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    start(t, false, NULL);
    return 0;
}

/* At most two HTTP connections at once. */
static int setup_two_connections(void **state)
{
    access_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    static const char *const flags[] = {"--http-max-connections", "2", NULL};
    start(t, false, flags);
    return 0;
}

/* An HTTP connection lives a second without a whole request. */
static int setup_short_timeout(void **state)
{
    access_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    static const char *const flags[] = {"--http-timeout", "1", NULL};
    start(t, false, flags);
    return 0;
}

/* System mode, at most four HTTP connections at once: two per user, which --http-timeout
   leaves open for the test's whole length. */
static int setup_system_four_connections(void **state)
{
    access_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    static const char *const flags[] = {"--http-max-connections", "4", "--http-timeout", "3600", NULL};
    start(t, true, flags);
    return 0;
}

static int setup_system(void **state)
{
    access_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    start(t, true, NULL);
    return 0;
}

/* Stops the daemon, which must exit 0 and remove its HTTP socket. */
static int teardown(void **state)
{
    access_test *t = *state;
    if (t->fx.pid > 0) {
        int status = daemon_fixture_stop(&t->fx);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        struct stat st;
        if (lstat(t->socket, &st) == 0)
            fail_msg("gridtuned left its HTTP socket %s behind", t->socket);
    }
    daemon_fixture_clean_up(&t->fx);
    if (t->dir[0])
        temp_dir_remove(t->dir);
    free(t);
    return 0;
}

/* ---- TCP ------------------------------------------------------------------------------------- */

/* gridtuned with these flags (and a socket of its own, in case it starts): its exit status
   and what it wrote to stderr. */
static int run_gridtuned(const char *const *flags, char **err)
{
    char dir[] = "/tmp/gt-http-XXXXXX", socket[64], wisdom[64], cache[64];
    if (!mkdtemp(dir))
        fail_msg("mkdtemp: %s", strerror(errno));
    snprintf(socket, sizeof socket, "%s/s.sock", dir);
    snprintf(wisdom, sizeof wisdom, "%s/wisdom.json", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    const char *argv[20] = {GT_GRIDTUNED_PATH, "--foreground", "--socket", socket, "--wisdom", wisdom, "--cache-dir",
                            cache, "--workers", "1"};
    size_t n = 10;
    for (size_t i = 0; flags[i]; i++)
        argv[n++] = flags[i];
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], STDERR_FILENO);
        execv(GT_GRIDTUNED_PATH, (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    /* A gridtuned that started stays in the foreground: stop it after the guard. */
    int status;
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    pid_t got;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
        if (gt_clock_ms() > deadline && kill(pid, SIGTERM) == 0)
            deadline = INT64_MAX;
        gt_clock_sleep_ms(10);
    }
    if (got != pid)
        fail_msg("waitpid: %s", strerror(errno));
    *err = read_all(p[0], "gridtuned's stderr");
    close(p[0]);
    temp_dir_remove(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A TCP port cannot tell who asks: without --http-public gridtuned refuses to start, with
   exit status 2 and a sentence that says why and what to give instead. */
static void test_tcp_refused_without_http_public(void **state)
{
    (void)state;
    const char *flags[] = {"--http", "127.0.0.1:0", NULL};
    char *err;
    int status = run_gridtuned(flags, &err);
    if (status != 2 || !strstr(err, "--http 127.0.0.1:0: a TCP port cannot tell who asks") ||
        !strstr(err, "--http-public") || !strstr(err, "--http unix:PATH"))
        fail_msg("gridtuned --http 127.0.0.1:0 exited %d, saying \"%s\"; expected 2 and the sentence on "
                 "--http-public", status, err);
    free(err);
}

/* --http-public means a TCP port; with a Unix socket it is a mistake, said so. */
static void test_http_public_needs_tcp(void **state)
{
    (void)state;
    const char *flags[] = {"--http", "unix:/tmp/gt-http-nowhere/h.sock", "--http-public", NULL};
    char *err;
    int status = run_gridtuned(flags, &err);
    if (status != 2 || !strstr(err, "--http-public: applies only to --http ADDRESS:PORT"))
        fail_msg("gridtuned --http unix:... --http-public exited %d, saying \"%s\"; expected 2", status, err);
    free(err);
}

/* ---- per-user mode ----------------------------------------------------------------------- */

/* The daemon's own user gets /status and its reports over a socket only it can open. */
static void test_unix_serves_own_user(void **state)
{
    access_test *t = *state;
    struct stat st;
    assert_int_equal(lstat(t->socket, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    char run[128];
    snprintf(run, sizeof run, "%s/run", t->dir);
    assert_int_equal(lstat(run, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);

    http_answer a = get(t->socket, "/status");
    assert_int_equal(a.code, 200);
    cJSON *status = cJSON_Parse(a.body);
    char want[160];
    snprintf(want, sizeof want, "unix:%s", t->socket);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "http")), want);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "mode")), "user");
    cJSON_Delete(status);
    free(a.body);

    gt_client *c = daemon_fixture_connect(&t->fx);
    char id[32], path[64];
    launch_fill(c, id);
    gt_disconnect(c);
    assert_true(id[0]);
    a = get(t->socket, "/reports");
    assert_int_equal(a.code, 200);
    assert_true(lists_report(a.body, id));
    free(a.body);
    snprintf(path, sizeof path, "/reports/%s", id);
    a = get(t->socket, path);
    assert_int_equal(a.code, 200);
    free(a.body);
}

/* Another uid that reaches the socket anyway (here with CAP_DAC_OVERRIDE) is refused by the
   daemon's SO_PEERCRED check, and learns nothing. */
static void test_unix_refuses_other_uid_per_user(void **state)
{
    access_test *t = *state;
    const char *targets[] = {"/status", "/reports", "/metrics"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        http_answer a = get_as(UID_B, UID_B, true, t->socket, targets[i]);
        if (a.code != 403 || !strstr(a.body, "serves uid 0 only"))
            fail_msg("GET %s as uid %u from a per-user gridtuned of root: %d \"%s\"; expected 403", targets[i],
                     UID_B, a.code, a.body);
        free(a.body);
    }
}

/* ---- system mode ----------------------------------------------------------------------------- */

/* The group reaches the HTTP socket; each uid reads only its own launches' reports, and
   another's report id is answered exactly as a missing one. Root reads them all. */
static void test_system_mode_reports_by_uid(void **state)
{
    access_test *t = *state;
    gid_t gid = getgid();
    struct stat st;
    assert_int_equal(lstat(t->socket, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0660);
    assert_int_equal(st.st_gid, gid);

    char id_a[32], path_a[64];
    launch_as(t, UID_A, gid, id_a);
    assert_true(id_a[0]);
    snprintf(path_a, sizeof path_a, "/reports/%s", id_a);

    /* A sees its own launch; root sees it too. */
    http_answer a = get_as(UID_A, gid, false, t->socket, "/reports");
    assert_int_equal(a.code, 200);
    assert_true(lists_report(a.body, id_a));
    free(a.body);
    a = get_as(UID_A, gid, false, t->socket, path_a);
    assert_int_equal(a.code, 200);
    free(a.body);
    a = get(t->socket, "/reports");
    assert_true(lists_report(a.body, id_a));
    free(a.body);

    /* B does not. */
    a = get_as(UID_B, gid, false, t->socket, "/reports");
    assert_int_equal(a.code, 200);
    if (lists_report(a.body, id_a))
        fail_msg("uid %u's /reports lists uid %u's launch %s: %.300s", UID_B, UID_A, id_a, a.body);
    free(a.body);
    http_answer other = get_as(UID_B, gid, false, t->socket, path_a);
    http_answer missing = get_as(UID_B, gid, false, t->socket, "/reports/" MISSING_ID);
    assert_int_equal(missing.code, 404);
    if (other.code != missing.code || strcmp(other.body, missing.body) != 0)
        fail_msg("uid %u's GET %s answered %d \"%s\"; a missing report answers %d \"%s\"", UID_B, path_a, other.code,
                 other.body, missing.code, missing.body);
    free(other.body);
    free(missing.body);

    /* The aggregates are served to the group whole. */
    a = get_as(UID_B, gid, false, t->socket, "/status");
    assert_int_equal(a.code, 200);
    cJSON *status = cJSON_Parse(a.body);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(status, "mode")), "system");
    cJSON_Delete(status);
    free(a.body);
    a = get_as(UID_B, gid, false, t->socket, "/metrics");
    assert_int_equal(a.code, 200);
    assert_non_null(strstr(a.body, "gridtune_launches_total{outcome=\"succeeded\"}"));
    free(a.body);
}

/* A request with a body larger than any GET needs, or with endless headers, is refused by
 * evhttp's limits before the daemon holds it (one POST of 500 MiB used to grow the daemon by
 * as much); the socket serves on. */
static void test_oversized_requests_are_refused(void **state)
{
    access_test *t = *state;
    const char *const requests[] = {
        "POST /status HTTP/1.0\r\nHost: gridtuned\r\nContent-Length: 600000000\r\n\r\nxxxx",
        NULL, /* headers past the limit, built below */
    };
    static char big_headers[64 * 1024];
    size_t n = (size_t)snprintf(big_headers, sizeof big_headers, "GET /status HTTP/1.0\r\n");
    while (n + 64 < sizeof big_headers)
        n += (size_t)snprintf(big_headers + n, sizeof big_headers - n, "X-Filler: %048d\r\n", 0);
    for (int i = 0; i < 2; i++) {
        const char *req = requests[i] ? requests[i] : big_headers;
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", t->socket);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(s >= 0);
        assert_int_equal(connect(s, (struct sockaddr *)&addr, sizeof addr), 0);
        (void)send(s, req, strlen(req), MSG_NOSIGNAL); /* the daemon may close before all of it is read */
        char *text = slurp(s);
        close(s);
        int code = 0;
        if (text && text[0])
            sscanf(text, "HTTP/1.%*d %d", &code);
        free(text);
        if (code != 413 && code != 400 && code != 0)
            fail_msg("oversized request %d: answered %d, expected 413, 400 or a closed connection", i, code);
        if (i == 0)
            assert_int_equal(code, 413);
    }
    http_answer a = get(t->socket, "/status");
    assert_int_equal(a.code, 200);
    free(a.body);
}

static int connect_http(const access_test *t)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", t->socket);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    assert_int_equal(connect(s, (struct sockaddr *)&addr, sizeof addr), 0);
    return s;
}

/* Waits until gridtuned's status, asked over the main socket, counts `want` HTTP connections. */
static void wait_http_connections(gt_client *c, unsigned want)
{
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    for (;;) {
        cJSON *st = daemon_fixture_status(c);
        double have = daemon_fixture_status_number(st, "http_connections");
        cJSON_Delete(st);
        if (have == want)
            return;
        if (gt_clock_ms() > deadline)
            fail_msg("the status counts %.0f HTTP connections, not %u, after %d s", have, want,
                     DAEMON_FIXTURE_GUARD_SECONDS);
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* Two silent HTTP connections are all --http-max-connections 2 allows: a third peer's request
 * waits unanswered (gridtuned holds its listener, so the descriptor stays in the backlog, not
 * in gridtuned) while the main socket serves on, and is answered once one of the two goes.
 * Without the limit, peers opening connections took every descriptor gridtuned had, and the
 * main socket's clients waited as long as they kept them open. */
static void test_connections_past_the_limit_wait(void **state)
{
    access_test *t = *state;
    gt_client *c = daemon_fixture_connect(&t->fx);
    int first = connect_http(t), second = connect_http(t);
    wait_http_connections(c, 2);
    int third = connect_http(t);
    static const char req[] = "GET /status HTTP/1.0\r\nHost: gridtuned\r\n\r\n";
    assert_int_equal(send(third, req, sizeof req - 1, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1));
    /* a window, not a timing assertion: an answer in it means the limit let the third in */
    struct pollfd p = {.fd = third, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 300), 0);
    cJSON *st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "http_connections"), 2);
    cJSON_Delete(st);
    assert_true(daemon_fixture_log_has_line(&t->fx, "2 HTTP connections are open, the most gridtuned serves at once "
                                                     "(--http-max-connections): new ones wait until one ends (0 "
                                                     "more such lines held)"));
    close(first);
    http_answer a = parse_answer(read_all(third, "GET /status past the limit"), "/status");
    assert_int_equal(a.code, 200);
    free(a.body);
    close(third);
    close(second);
    wait_http_connections(c, 0);
    gt_disconnect(c);
}

/* In system mode one user holds at most half of --http-max-connections: this process's user
 * opens four connections, its third and fourth are closed unanswered as soon as they are
 * accepted, and another user is served beside its two. Without the share the four took every
 * place, and the other user's request waited unanswered as long as they stayed open. */
static void test_one_user_holds_half_the_connections(void **state)
{
    access_test *t = *state;
    int s[4];
    for (int i = 0; i < 4; i++)
        s[i] = connect_http(t);
    for (int i = 2; i < 4; i++) {
        char *rest = read_all(s[i], "a connection past the user's share");
        if (rest[0])
            fail_msg("connection %d past the user's share was answered: %.100s", i, rest);
        free(rest);
    }
    gt_client *c = daemon_fixture_connect(&t->fx);
    cJSON *st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "http_connections"), 2);
    cJSON_Delete(st);
    http_answer a = get_as(UID_B, getgid(), false, t->socket, "/status");
    assert_int_equal(a.code, 200);
    free(a.body);
    char line[160];
    snprintf(line, sizeof line, "closed a new HTTP connection of uid %u: it holds 2, its share of "
             "--http-max-connections in system mode (0 more such lines held)", (unsigned)getuid());
    assert_true(daemon_fixture_log_has_line(&t->fx, line));
    for (int i = 0; i < 4; i++)
        close(s[i]);
    wait_http_connections(c, 0);
    gt_disconnect(c);
}

/* A request sent a byte every 200 ms never lets evhttp's per-read timeout (1 s here) run out,
 * and used to hold its connection for as long as its sender liked; --http-timeout 1 cuts it
 * about a second after it opened, long before its 60 bytes are through. */
static void test_trickled_request_is_cut(void **state)
{
    access_test *t = *state;
    int s = connect_http(t);
    static const char req[] = "GET /status HTTP/1.0\r\nX-Slow: 0123456789012345678901234567\r\n\r\n";
    size_t sent = 0;
    bool closed = false;
    while (!closed && sent < sizeof req - 1) {
        if (send(s, req + sent, 1, MSG_NOSIGNAL) == 1)
            sent++;
        struct pollfd p = {.fd = s, .events = POLLIN};
        closed = poll(&p, 1, 200) == 1;
    }
    if (!closed)
        fail_msg("all %zu bytes of a request trickled in at 5 a second went through: the connection was not cut",
                 sent);
    char *rest = read_all(s, "the cut connection");
    if (rest[0])
        fail_msg("the cut connection was answered: %.100s", rest);
    free(rest);
    close(s);
    http_answer a = get(t->socket, "/status");
    assert_int_equal(a.code, 200);
    free(a.body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_refused_without_http_public),
        cmocka_unit_test(test_http_public_needs_tcp),
        cmocka_unit_test_setup_teardown(test_unix_serves_own_user, setup_user, teardown),
        cmocka_unit_test_setup_teardown(test_unix_refuses_other_uid_per_user, setup_user, teardown),
        cmocka_unit_test_setup_teardown(test_oversized_requests_are_refused, setup_user, teardown),
        cmocka_unit_test_setup_teardown(test_connections_past_the_limit_wait, setup_two_connections, teardown),
        cmocka_unit_test_setup_teardown(test_trickled_request_is_cut, setup_short_timeout, teardown),
        cmocka_unit_test_setup_teardown(test_system_mode_reports_by_uid, setup_system, teardown),
        cmocka_unit_test_setup_teardown(test_one_user_holds_half_the_connections, setup_system_four_connections,
                                        teardown),
    };
    return cmocka_run_group_tests_name("gridtuned's HTTP side: who may read what, and how much a peer may hold",
                                       tests, NULL, NULL);
}
