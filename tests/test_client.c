/* test_client.c: libgridtune against a scripted fake gridtuned. The fake is a thread that
 * listens on a Unix socket in a fresh directory, records every request it reads (and keeps
 * the descriptors that came with them), and answers through a per-test function. The test
 * thread asserts on what was recorded once the client calls have returned; the fake itself
 * asserts nothing, since cmocka's assertions belong to the test thread. With
 * $GT_TEST_REQUESTS_FILE set, every request read is also written there, one per line, for
 * client_requests_schema to check against schemas/protocol. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gridtune/gridtune.h>

#include "protocol/protocol.h"
#include "protocol/wire.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUESTS 64
#define MAX_KEPT_FDS 8
/* A guard against a test hanging on a request that never comes; not a timing assertion. */
#define GUARD_SECONDS 60
#define KERNEL_ID 7
#define EVENT_ID 42
#define FIRST_BUFFER_ID 100
#define ENV_REQUESTS_FILE "GT_TEST_REQUESTS_FILE"

/* Where every request the fakes read is logged, or NULL; written under log_lock. */
static FILE *request_log;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct fake fake;
/* Answers one request: the reply to send now, or NULL to send nothing (yet). */
typedef cJSON *(*fake_answer)(fake *f, const cJSON *req);

struct fake {
    char dir[64];
    char path[sizeof ((struct sockaddr_un *)0)->sun_path];
    int listen_fd;
    pthread_t thread;
    bool serving;
    fake_answer answer;
    bool hang_up;          /* set by an answer: close the connection after it */
    uint64_t held_id;      /* a request an answer holds back, 0 for none */
    int sock;              /* the fake thread's end, sent on by answers */
    gt_wire_reader *reader; /* the fake thread's, kept here so that a forked child (which has
                               no such thread) still reaches it, and valgrind calls it no leak */

    pthread_mutex_t lock;  /* guards what follows, read by the test thread */
    pthread_cond_t changed;
    int conn_fd;
    cJSON *got[MAX_REQUESTS];
    unsigned nfds[MAX_REQUESTS];
    unsigned ngot;
    int kept_fds[MAX_KEPT_FDS];
    unsigned nkept;
};

/* ---- the fake daemon ------------------------------------------------------------------ */

static double field_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *field_string(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static uint64_t request_id(const cJSON *req)
{
    return (uint64_t)field_number(req, "id");
}

static cJSON *result_for(uint64_t id)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "type", "result");
    cJSON_AddNumberToObject(r, "id", (double)id);
    return r;
}

/* An error reply; errno_value 0 leaves "errno" out. */
static cJSON *error_for(uint64_t id, const char *code, int errno_value, const char *message)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "type", "error");
    cJSON_AddNumberToObject(r, "id", (double)id);
    cJSON_AddStringToObject(r, "code", code);
    if (errno_value)
        cJSON_AddNumberToObject(r, "errno", errno_value);
    cJSON_AddStringToObject(r, "message", message);
    return r;
}

static void fake_send(fake *f, cJSON *reply)
{
    char *text = cJSON_PrintUnformatted(reply);
    char err[256];
    gt_wire_send(f->sock, text, strlen(text), NULL, 0, err, sizeof err); /* a closed client is its business */
    free(text);
    cJSON_Delete(reply);
}

static cJSON *kernel_params(void)
{
    cJSON *params = cJSON_CreateArray();
    const char *names[] = {"out", "in", "n"};
    for (int i = 0; i < 3; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", names[i]);
        cJSON_AddStringToObject(p, "type", i < 2 ? "float *" : "uint32_t");
        cJSON_AddStringToObject(p, "kind", i == 0 ? "buffer" : i == 1 ? "buffer_ro" : "scalar");
        cJSON_AddNumberToObject(p, "size", i < 2 ? 8 : 4);
        cJSON_AddItemToArray(params, p);
    }
    return params;
}

/* What a well-behaved daemon answers to each request. */
static cJSON *default_answer(fake *f, const cJSON *req)
{
    const char *type = field_string(req, "type");
    cJSON *r = result_for(request_id(req));
    if (!strcmp(type, "hello")) {
        cJSON_AddNumberToObject(r, "protocol", GT_PROTOCOL_VERSION);
        cJSON_AddStringToObject(r, "daemon", "fake 0.0");
        cJSON_AddNumberToObject(r, "pid", getpid());
        cJSON_AddNumberToObject(r, "workers", 2);
    } else if (!strcmp(type, "buffer_create")) {
        pthread_mutex_lock(&f->lock); /* its memfd is kept already: the first is number 0 */
        cJSON_AddNumberToObject(r, "buffer", FIRST_BUFFER_ID + f->nkept - 1);
        pthread_mutex_unlock(&f->lock);
    } else if (!strcmp(type, "kernel_load") || !strcmp(type, "kernel_build")) {
        cJSON_AddNumberToObject(r, "kernel", KERNEL_ID);
        cJSON_AddItemToObject(r, "params", kernel_params());
        if (!strcmp(type, "kernel_build"))
            cJSON_AddFalseToObject(r, "cached");
    } else if (!strcmp(type, "launch") || !strcmp(type, "wait")) {
        cJSON_AddNumberToObject(r, "event", EVENT_ID);
    } else if (!strcmp(type, "report")) {
        cJSON *report = cJSON_AddObjectToObject(r, "report");
        cJSON_AddStringToObject(report, "kernel", "saxpy");
        cJSON_AddNumberToObject(report, "event", EVENT_ID);
    } else if (!strcmp(type, "status")) {
        cJSON *status = cJSON_AddObjectToObject(r, "status");
        cJSON_AddNumberToObject(status, "workers", 2);
        cJSON_AddNumberToObject(status, "clients", 1);
    } else if (!strcmp(type, "reports")) {
        cJSON *reports = cJSON_AddArrayToObject(r, "reports");
        cJSON *one = cJSON_CreateObject();
        cJSON_AddNumberToObject(one, "event", EVENT_ID);
        cJSON_AddItemToArray(reports, one);
    } else if (!strcmp(type, "wisdom_import")) {
        cJSON_AddNumberToObject(r, "merged", 1);
        cJSON_AddNumberToObject(r, "entries", 3);
    } else if (!strcmp(type, "cancel")) {
        cJSON_AddBoolToObject(r, "cancelled", request_id(req) % 2 == 0);
    } else if (!strcmp(type, "wisdom_clear")) {
        cJSON_AddNumberToObject(r, "cleared", 3);
        cJSON_AddNumberToObject(r, "entries", 0);
    }
    return r;
}

/* Records the request and the descriptors that came with it (kept open for the test). False
 * when the record is full: the request stays the caller's to free once it is answered. */
static bool record(fake *f, cJSON *req, gt_wire_frame *frame)
{
    pthread_mutex_lock(&f->lock);
    bool kept = f->ngot < MAX_REQUESTS;
    if (kept) {
        f->nfds[f->ngot] = frame->nfds;
        f->got[f->ngot++] = req;
    }
    for (unsigned i = 0; i < frame->nfds; i++) {
        if (f->nkept < MAX_KEPT_FDS)
            f->kept_fds[f->nkept++] = frame->fds[i];
        else
            close(frame->fds[i]);
    }
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
    return kept;
}

/* Flushed at once: a child forked meanwhile must not inherit a part of a line, which valgrind,
 * which frees the C library's buffers as a child exits, writes out a second time. */
static void log_request(const gt_wire_frame *frame)
{
    pthread_mutex_lock(&log_lock);
    if (request_log) {
        fprintf(request_log, "%s\n", frame->json);
        fflush(request_log);
    }
    pthread_mutex_unlock(&log_lock);
}

static void serve_frame(fake *f, gt_wire_frame *frame)
{
    log_request(frame);
    cJSON *req = cJSON_ParseWithLength(frame->json, frame->len);
    free(frame->json);
    if (!req) {
        for (unsigned i = 0; i < frame->nfds; i++)
            close(frame->fds[i]);
        f->hang_up = true;
        return;
    }
    bool kept = record(f, req, frame);
    cJSON *reply = f->answer ? f->answer(f, req) : default_answer(f, req);
    if (reply)
        fake_send(f, reply);
    if (!kept)
        cJSON_Delete(req);
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    int sock = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return NULL;
    pthread_mutex_lock(&f->lock);
    f->conn_fd = sock;
    pthread_mutex_unlock(&f->lock);
    f->sock = sock;
    gt_wire_reader *r = f->reader = gt_wire_reader_new(GT_DEFAULT_MAX_FRAME);
    char err[256];
    while (!f->hang_up && gt_wire_read(r, sock) > 0) {
        gt_wire_frame frame;
        while (!f->hang_up && gt_wire_next(r, &frame, err, sizeof err) == 1)
            serve_frame(f, &frame);
    }
    f->reader = NULL;
    gt_wire_reader_free(r);
    pthread_mutex_lock(&f->lock);
    f->conn_fd = -1;
    close(sock);
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

/* Starts answering the one connection the client will make. */
static void fake_serve(fake *f, fake_answer answer)
{
    f->answer = answer;
    assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
    f->serving = true;
}

/* Ends the fake thread (waking it if it still waits) and waits for it. */
static void fake_stop(fake *f)
{
    if (!f->serving)
        return;
    pthread_mutex_lock(&f->lock);
    if (f->conn_fd >= 0)
        shutdown(f->conn_fd, SHUT_RDWR);
    pthread_mutex_unlock(&f->lock);
    shutdown(f->listen_fd, SHUT_RDWR); /* wakes an accept that never got its client */
    pthread_join(f->thread, NULL);
    f->serving = false;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[PATH_MAX];
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

static fake *fake_new(void)
{
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    strcpy(f->dir, "/tmp/gt-client-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, GT_SOCKET_NAME);
    f->conn_fd = -1;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->changed, NULL);
    f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(f->listen_fd >= 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, f->path);
    assert_int_equal(bind(f->listen_fd, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(listen(f->listen_fd, 4), 0);
    return f;
}

static void fake_free(fake *f)
{
    fake_stop(f);
    close(f->listen_fd);
    for (unsigned i = 0; i < f->ngot; i++)
        cJSON_Delete(f->got[i]);
    for (unsigned i = 0; i < f->nkept; i++)
        close(f->kept_fds[i]);
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
    remove_dir(f->dir);
    free(f);
}

/* The n-th (from 0) recorded request of a type, or NULL; *nfds gets its descriptor count. */
static const cJSON *fake_request(fake *f, const char *type, unsigned n, unsigned *nfds)
{
    const cJSON *found = NULL;
    pthread_mutex_lock(&f->lock);
    for (unsigned i = 0; i < f->ngot && !found; i++) {
        if (!strcmp(field_string(f->got[i], "type"), type) && n-- == 0) {
            found = f->got[i];
            if (nfds)
                *nfds = f->nfds[i];
        }
    }
    pthread_mutex_unlock(&f->lock);
    return found;
}

static unsigned fake_count(fake *f, const char *type)
{
    unsigned n = 0;
    while (fake_request(f, type, n, NULL))
        n++;
    return n;
}

/* Blocks until the fake has read a request of this type. */
static void fake_wait_for(fake *f, const char *type)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += GUARD_SECONDS;
    pthread_mutex_lock(&f->lock);
    int rc = 0;
    for (;;) {
        bool seen = false;
        for (unsigned i = 0; i < f->ngot && !seen; i++)
            seen = !strcmp(field_string(f->got[i], "type"), type);
        if (seen || rc == ETIMEDOUT)
            break;
        rc = pthread_cond_timedwait(&f->changed, &f->lock, &until);
    }
    pthread_mutex_unlock(&f->lock);
    if (rc == ETIMEDOUT)
        fail_msg("the fake daemon never got a %s request", type);
}

static int fake_kept_fd(fake *f, unsigned i)
{
    pthread_mutex_lock(&f->lock);
    int fd = i < f->nkept ? f->kept_fds[i] : -1;
    pthread_mutex_unlock(&f->lock);
    return fd;
}

/* ---- fixtures ------------------------------------------------------------------------- */

/* No test may start a real daemon, or find one through the environment. */
static void clean_environment(void)
{
    setenv("GRIDTUNE_NO_AUTOSTART", "1", 1);
    unsetenv("GRIDTUNE_SOCKET");
    unsetenv("GRIDTUNE_DAEMON");
}

static int setup(void **state)
{
    clean_environment();
    *state = fake_new();
    return 0;
}

static int teardown(void **state)
{
    fake_free(*state);
    clean_environment();
    return 0;
}

static gt_client *connect_ok(fake *f, fake_answer answer)
{
    fake_serve(f, answer);
    gt_client *c = NULL;
    int rc = gt_connect(f->path, &c);
    if (rc)
        fail_msg("gt_connect failed (%d): %s", rc, gt_last_error(c));
    return c;
}

static gt_kernel *load_ok(gt_client *c)
{
    gt_kernel *k = NULL;
    int rc = gt_kernel_load(c, "/nonexistent/kernels.so", "saxpy", &k);
    if (rc)
        fail_msg("gt_kernel_load failed (%d): %s", rc, gt_last_error(c));
    return k;
}

/* ---- connecting ----------------------------------------------------------------------- */

static void test_connect_says_hello(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    assert_string_equal(gt_last_error(c), "");
    const cJSON *hello = fake_request(f, "hello", 0, NULL);
    assert_non_null(hello);
    assert_true(field_number(hello, "protocol") == GT_PROTOCOL_VERSION);
    assert_string_equal(field_string(hello, "client"), "libgridtune 0.4");
    assert_true(field_number(hello, "id") >= 1);
    gt_disconnect(c);
}

static cJSON *refuse_version(fake *f, const cJSON *req)
{
    if (strcmp(field_string(req, "type"), "hello"))
        return default_answer(f, req);
    f->hang_up = true;
    return error_for(request_id(req), GT_ERR_VERSION, EPROTONOSUPPORT,
                     "gridtuned speaks protocol 2 and the client asked for protocol 1; update libgridtune");
}

static void test_connect_refused_version(void **state)
{
    fake *f = *state;
    fake_serve(f, refuse_version);
    gt_client *c = NULL;
    assert_int_equal(gt_connect(f->path, &c), -EPROTONOSUPPORT);
    assert_non_null(c);
    assert_string_equal(gt_last_error(c),
                        "gridtuned speaks protocol 2 and the client asked for protocol 1; update libgridtune");
    gt_disconnect(c);
}

static void test_connect_uses_socket_variable(void **state)
{
    fake *f = *state;
    fake_serve(f, NULL);
    setenv("GRIDTUNE_SOCKET", f->path, 1);
    gt_client *c = NULL;
    int rc = gt_connect(NULL, &c);
    if (rc)
        fail_msg("gt_connect(NULL) failed (%d): %s", rc, gt_last_error(c));
    assert_non_null(fake_request(f, "hello", 0, NULL));
    gt_disconnect(c);
}

static void test_connect_missing_socket(void **state)
{
    fake *f = *state;
    char missing[sizeof f->path];
    snprintf(missing, sizeof missing, "%s/missing.sock", f->dir);
    setenv("GRIDTUNE_SOCKET", missing, 1);
    gt_client *c = NULL;
    assert_int_equal(gt_connect(NULL, &c), -ENOENT);
    assert_non_null(strstr(gt_last_error(c), missing));
    gt_disconnect(c);
    gt_disconnect(NULL); /* a no-op */
}

/* ---- autostart ------------------------------------------------------------------------ */

/* Writes dir/daemon.sh: it records its arguments in dir/argv, runs `then` and exits with
 * status. Returns the script's path in buf. */
static void write_daemon_script(const fake *f, const char *then, int status, char *buf, size_t len)
{
    snprintf(buf, len, "%s/daemon.sh", f->dir);
    FILE *s = fopen(buf, "w");
    assert_non_null(s);
    fprintf(s, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s/argv'\n%s\nexit %d\n", f->dir, then, status);
    assert_int_equal(fclose(s), 0);
    assert_int_equal(chmod(buf, 0755), 0);
}

/* What the script recorded, or "" when it did not run. */
static void read_script_argv(const fake *f, char *buf, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/argv", f->dir);
    buf[0] = '\0';
    FILE *a = fopen(path, "r");
    if (!a)
        return;
    size_t n = fread(buf, 1, len - 1, a);
    buf[n] = '\0';
    fclose(a);
}

/* Autostarts dir/daemon.sh, which runs `then` and exits 1, for a socket nothing serves: the
 * connect fails. The script's path in script, the socket's in missing; the failed client to
 * read its error from and disconnect. */
static gt_client *autostart_failing(const fake *f, const char *then, char *script, size_t len,
                                    char missing[sizeof f->path])
{
    write_daemon_script(f, then, 1, script, len);
    snprintf(missing, sizeof f->path, "%s/missing.sock", f->dir);
    setenv("GRIDTUNE_SOCKET", missing, 1);
    setenv("GRIDTUNE_DAEMON", script, 1);
    unsetenv("GRIDTUNE_NO_AUTOSTART");
    gt_client *c = NULL;
    assert_true(gt_connect(NULL, &c) < 0);
    return c;
}

static void test_autostart_failure_is_reported(void **state)
{
    fake *f = *state;
    char script[PATH_MAX], missing[sizeof f->path], want[PATH_MAX], got[PATH_MAX];
    gt_client *c = autostart_failing(f, "echo 'gridtuned: cannot work here' >&2", script, sizeof script, missing);
    const char *why = gt_last_error(c);
    assert_non_null(strstr(why, "could not start"));
    assert_non_null(strstr(why, "exit status 1"));
    assert_non_null(strstr(why, script));
    assert_non_null(strstr(why, "GRIDTUNE_NO_AUTOSTART=1"));
    gt_disconnect(c);
    read_script_argv(f, got, sizeof got);
    snprintf(want, sizeof want, "--socket\n%s\n", missing);
    assert_string_equal(got, want);
}

/* Autostarts a daemon script that runs `probe` and exits 1 (so gt_connect fails), then reads
 * what the probe wrote to dir/probe into got. */
static void autostart_probe(const fake *f, const char *probe, char *got, size_t len)
{
    char script[PATH_MAX], missing[sizeof f->path], path[PATH_MAX];
    gt_disconnect(autostart_failing(f, probe, script, sizeof script, missing));
    snprintf(path, sizeof path, "%s/probe", f->dir);
    FILE *out = fopen(path, "r");
    assert_non_null(out);
    size_t n = fread(got, 1, len - 1, out);
    got[n] = '\0';
    fclose(out);
}

/* The started daemon holds none of the application's files but stdin, stdout and stderr: a
 * pipe left open to it (without O_CLOEXEC, as many programs leave theirs) would never see end
 * of file while the daemon lives. */
static void test_autostart_leaves_the_applications_files(void **state)
{
    fake *f = *state;
    int p[2];
    assert_int_equal(pipe(p), 0); /* inheritable */
    char probe[PATH_MAX], got[PATH_MAX];
    snprintf(probe, sizeof probe,
             "for fd in %d %d; do if [ -e /proc/$$/fd/$fd ]; then echo held; else echo closed; fi; done > '%s/probe'",
             p[0], p[1], f->dir);
    autostart_probe(f, probe, got, sizeof got);
    close(p[0]);
    close(p[1]);
    assert_string_equal(got, "closed\nclosed\n");
}

/* The started daemon may use every CPU this process may, though the thread that started it
 * was pinned to one; the thread's own pinning is put back. */
static void test_autostart_unpins_the_daemon(void **state)
{
    fake *f = *state;
    cpu_set_t allowed, one, after;
    assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    if (CPU_COUNT(&allowed) < 2)
        skip(); /* nothing to tell apart on one CPU */
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    char probe[PATH_MAX], got[64];
    snprintf(probe, sizeof probe, "env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc > '%s/probe'", f->dir);
    autostart_probe(f, probe, got, sizeof got);
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&after, &one));
    assert_int_equal(sched_setaffinity(0, sizeof allowed, &allowed), 0);
    assert_int_equal(atoi(got), CPU_COUNT(&allowed));
}

static void test_autostart_off_runs_nothing(void **state)
{
    fake *f = *state;
    char script[PATH_MAX], missing[sizeof f->path], got[PATH_MAX];
    write_daemon_script(f, "", 0, script, sizeof script);
    snprintf(missing, sizeof missing, "%s/missing.sock", f->dir);
    setenv("GRIDTUNE_SOCKET", missing, 1);
    setenv("GRIDTUNE_DAEMON", script, 1);
    gt_client *c = NULL;
    assert_int_equal(gt_connect(NULL, &c), -ENOENT);
    assert_non_null(strstr(gt_last_error(c), "GRIDTUNE_NO_AUTOSTART=1"));
    gt_disconnect(c);
    read_script_argv(f, got, sizeof got);
    assert_string_equal(got, "");
}

/* A socket the caller names is never started on, even with autostart on. */
static void test_named_socket_never_autostarts(void **state)
{
    fake *f = *state;
    char script[PATH_MAX], missing[sizeof f->path], got[PATH_MAX];
    write_daemon_script(f, "", 0, script, sizeof script);
    snprintf(missing, sizeof missing, "%s/missing.sock", f->dir);
    setenv("GRIDTUNE_DAEMON", script, 1);
    unsetenv("GRIDTUNE_NO_AUTOSTART");
    gt_client *c = NULL;
    assert_int_equal(gt_connect(missing, &c), -ENOENT);
    assert_non_null(strstr(gt_last_error(c), missing));
    gt_disconnect(c);
    read_script_argv(f, got, sizeof got);
    assert_string_equal(got, "");
}

/* The script "starts" the daemon by linking the socket path it is given to the fake's
 * socket, then exits with status: 0 (listening) or 3 (another daemon serves it). */
static void autostart_connects(fake *f, int status)
{
    char script[PATH_MAX], link_to[PATH_MAX], started[sizeof f->path];
    snprintf(link_to, sizeof link_to, "ln -s '%s' \"$2\"", f->path);
    write_daemon_script(f, link_to, status, script, sizeof script);
    snprintf(started, sizeof started, "%s/started.sock", f->dir);
    setenv("GRIDTUNE_SOCKET", started, 1);
    setenv("GRIDTUNE_DAEMON", script, 1);
    unsetenv("GRIDTUNE_NO_AUTOSTART");
    fake_serve(f, NULL);
    gt_client *c = NULL;
    int rc = gt_connect(NULL, &c);
    if (rc)
        fail_msg("gt_connect(NULL) with autostart failed (%d): %s", rc, gt_last_error(c));
    assert_non_null(fake_request(f, "hello", 0, NULL));
    gt_disconnect(c);
}

static void test_autostart_listening(void **state)
{
    autostart_connects(*state, 0);
}

static void test_autostart_already_served(void **state)
{
    autostart_connects(*state, 3);
}

/* ---- buffers -------------------------------------------------------------------------- */

/* The VmFlags line of this process's mapping that starts at addr, into flags ("" if none). */
static void mapping_flags(const void *addr, char *flags, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    assert_non_null(f);
    char line[512];
    bool inside = false;
    flags[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3) /* a mapping's first line */
            inside = start == (unsigned long)addr;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            snprintf(flags, len, "%s", line + 8);
    }
    fclose(f);
}

static void test_buffer_is_a_sealed_shared_memfd(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    const size_t bytes = 3 * 4096 + 100;
    gt_buffer *b = NULL;
    assert_int_equal(gt_buffer_create(c, bytes, &b), 0);
    assert_int_equal(gt_buffer_size(b), bytes);

    unsigned nfds = 0;
    const cJSON *req = fake_request(f, "buffer_create", 0, &nfds);
    assert_non_null(req);
    assert_true(field_number(req, "size") == (double)bytes);
    assert_int_equal(nfds, 1);
    int fd = fake_kept_fd(f, 0);
    assert_true(fd >= 0);
    int seals = fcntl(fd, F_GET_SEALS);
    assert_true(seals >= 0);
    assert_true(seals & F_SEAL_SHRINK);
    assert_true(seals & F_SEAL_SEAL);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, (off_t)bytes);
    char link[64], target[PATH_MAX] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    assert_true(readlink(link, target, sizeof target - 1) > 0);
    assert_non_null(strstr(target, "memfd:gridtune-buffer"));

    /* the daemon's own mapping sees the client's writes and the other way round: one memory */
    unsigned char *theirs = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(theirs != MAP_FAILED);
    unsigned char *ours = gt_buffer_data(b);
    assert_int_equal(ours[0], 0);
    assert_int_equal(ours[bytes - 1], 0);
    memcpy(ours + 5000, "written by the client", 22);
    assert_memory_equal(theirs + 5000, "written by the client", 22);
    theirs[bytes - 1] = 0xab;
    assert_int_equal(ours[bytes - 1], 0xab);
    munmap(theirs, bytes);
    /* mapped asking for huge pages, which the kernel gives where shmem_enabled allows them */
    char flags[512];
    mapping_flags(ours, flags, sizeof flags);
    if (!strstr(flags, " hg"))
        fail_msg("the buffer's mapping has VmFlags \"%s\", without hg (MADV_HUGEPAGE)", flags);

    gt_buffer_release(b);
    const cJSON *rel = fake_request(f, "buffer_release", 0, NULL);
    assert_non_null(rel);
    assert_true(field_number(rel, "buffer") == FIRST_BUFFER_ID);
    gt_disconnect(c);
}

static void test_buffer_of_no_bytes_is_refused(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b = (gt_buffer *)c; /* must be cleared */
    assert_int_equal(gt_buffer_create(c, 0, &b), -EINVAL);
    assert_null(b);
    assert_non_null(strstr(gt_last_error(c), "0 bytes"));
    char *status = NULL;
    assert_int_equal(gt_status(c, &status), 0); /* a round trip, so a stray request would show */
    free(status);
    assert_int_equal(fake_count(f, "buffer_create"), 0);
    gt_disconnect(c);
}

/* ---- kernels -------------------------------------------------------------------------- */

static void test_kernel_load_sends_an_absolute_path(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = NULL;
    assert_int_equal(gt_kernel_load(c, "no-such-dir/kernels.so", "saxpy", &k), 0);
    assert_int_equal(gt_kernel_nargs(k), 3);
    assert_int_equal(gt_kernel_nargs(NULL), 0);
    const cJSON *req = fake_request(f, "kernel_load", 0, NULL);
    char cwd[PATH_MAX], want[PATH_MAX + 32];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/no-such-dir/kernels.so", cwd);
    assert_string_equal(field_string(req, "path"), want);
    assert_string_equal(field_string(req, "name"), "saxpy");
    gt_kernel_release(k);
    const cJSON *rel = fake_request(f, "kernel_release", 0, NULL);
    assert_non_null(rel);
    assert_true(field_number(rel, "kernel") == KERNEL_ID);
    gt_disconnect(c);
}

static const char *long_diagnostics(void)
{
    static char text[20000];
    if (!text[0]) {
        size_t n = 0;
        for (int line = 0; n + 80 < sizeof text; line++)
            n += (size_t)snprintf(text + n, sizeof text - n, "kernel.c:%d:5: error: 'y' undeclared (first use here)\n",
                                  line + 1);
    }
    return text;
}

static cJSON *fail_builds(fake *f, const cJSON *req)
{
    const char *source = field_string(req, "source");
    if (strcmp(field_string(req, "type"), "kernel_build") || !strstr(source, "broken"))
        return default_answer(f, req);
    return error_for(request_id(req), GT_ERR_BUILD, ENOEXEC, long_diagnostics());
}

static void test_kernel_build(void **state)
{
    fake *f = *state;
    long_diagnostics(); /* filled in here, before the fake thread reads it */
    gt_client *c = connect_ok(f, fail_builds);
    gt_kernel *k = NULL;
    assert_int_equal(gt_kernel_build(c, "GT_KERNEL(saxpy) fine", "saxpy", NULL, &k), 0);
    assert_int_equal(gt_kernel_nargs(k), 3);
    const cJSON *req = fake_request(f, "kernel_build", 0, NULL);
    assert_string_equal(field_string(req, "source"), "GT_KERNEL(saxpy) fine");
    assert_string_equal(field_string(req, "name"), "saxpy");
    assert_string_equal(field_string(req, "options"), "");

    gt_kernel *broken = (gt_kernel *)c;
    assert_int_equal(gt_kernel_build(c, "broken", "saxpy", "-O3 -ffast-math", &broken), -ENOEXEC);
    assert_null(broken);
    assert_string_equal(gt_last_error(c), long_diagnostics());
    assert_string_equal(field_string(fake_request(f, "kernel_build", 1, NULL), "options"), "-O3 -ffast-math");
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* ---- launches ------------------------------------------------------------------------- */

/* Asserts that args[i] is an object with the one key `key`, and returns its value. */
static const cJSON *arg_value(const cJSON *args, int i, const char *key)
{
    const cJSON *a = cJSON_GetArrayItem(args, i);
    assert_true(cJSON_IsObject(a));
    assert_int_equal(cJSON_GetArraySize(a), 1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, key);
    if (!v)
        fail_msg("argument %d has no \"%s\"", i, key);
    return v;
}

static void assert_numbers(const cJSON *array, int n, const double *want)
{
    assert_true(cJSON_IsArray(array));
    assert_int_equal(cJSON_GetArraySize(array), n);
    for (int i = 0; i < n; i++)
        assert_true(cJSON_GetArrayItem(array, i)->valuedouble == want[i]);
}

static void test_launch_encodes_everything(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_buffer *b = NULL;
    assert_int_equal(gt_buffer_create(c, 64, &b), 0);
    gt_arg args[] = {gt_arg_i32(-5),        gt_arg_u32(4000000000u), gt_arg_i64(INT64_MIN),
                     gt_arg_u64(UINT64_MAX), gt_arg_f32(0.5f),        gt_arg_f64(NAN),
                     gt_arg_buffer(b),       gt_arg_f32(-INFINITY),   gt_arg_f64(INFINITY)};
    gt_range range = {.dims = 2, .global = {64, 32, 999}, .local = {8, 4, 7}};
    gt_event waits[] = {5, 6};
    gt_launch_options o = gt_launch_options_default();
    o.schedule = "group=hilbert,item=linear,assign=dynamic:4";
    o.tuning = GT_TUNING_RETUNE;
    o.budget = 0.25;
    o.metric = "ipc";
    o.wait = waits;
    o.nwait = 2;
    gt_event ev = 0;
    assert_int_equal(gt_launch(c, k, &range, args, 9, &o, &ev), 0);
    assert_int_equal(ev, EVENT_ID);

    const cJSON *req = fake_request(f, "launch", 0, NULL);
    assert_non_null(req);
    assert_true(field_number(req, "kernel") == KERNEL_ID);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(req, "range");
    assert_int_equal(cJSON_GetArraySize(r), 3);
    assert_true(field_number(r, "dims") == 2);
    assert_numbers(cJSON_GetObjectItemCaseSensitive(r, "global"), 2, (const double[]){64, 32});
    assert_numbers(cJSON_GetObjectItemCaseSensitive(r, "local"), 2, (const double[]){8, 4});

    const cJSON *a = cJSON_GetObjectItemCaseSensitive(req, "args");
    assert_int_equal(cJSON_GetArraySize(a), 9);
    assert_true(arg_value(a, 0, "i32")->valuedouble == -5);
    assert_true(arg_value(a, 1, "u32")->valuedouble == 4000000000.0);
    assert_string_equal(cJSON_GetStringValue(arg_value(a, 2, "i64")), "-9223372036854775808");
    assert_string_equal(cJSON_GetStringValue(arg_value(a, 3, "u64")), "18446744073709551615");
    assert_true(arg_value(a, 4, "f32")->valuedouble == 0.5);
    assert_string_equal(cJSON_GetStringValue(arg_value(a, 5, "f64")), "nan");
    assert_true(arg_value(a, 6, "buffer")->valuedouble == FIRST_BUFFER_ID);
    assert_string_equal(cJSON_GetStringValue(arg_value(a, 7, "f32")), "-inf");
    assert_string_equal(cJSON_GetStringValue(arg_value(a, 8, "f64")), "inf");

    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(req, "options");
    assert_int_equal(cJSON_GetArraySize(opts), 4);
    assert_string_equal(field_string(opts, "schedule"), "group=hilbert,item=linear,assign=dynamic:4");
    assert_string_equal(field_string(opts, "tuning"), "retune");
    assert_true(field_number(opts, "budget") == 0.25);
    assert_string_equal(field_string(opts, "metric"), "ipc");
    assert_numbers(cJSON_GetObjectItemCaseSensitive(req, "wait"), 2, (const double[]){5, 6});

    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
}

static void test_launch_defaults_send_only_what_differs(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_range range = {.dims = 1, .global = {1024, 5, 5}, .local = {64, 5, 5}};
    gt_event ev = 0;
    assert_int_equal(gt_launch(c, k, &range, NULL, 0, NULL, &ev), 0);
    gt_launch_options off = gt_launch_options_default();
    off.tuning = GT_TUNING_OFF;
    assert_int_equal(gt_launch(c, k, &range, NULL, 0, &off, &ev), 0);

    const cJSON *req = fake_request(f, "launch", 0, NULL);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(req, "range");
    assert_numbers(cJSON_GetObjectItemCaseSensitive(r, "global"), 1, (const double[]){1024});
    assert_numbers(cJSON_GetObjectItemCaseSensitive(r, "local"), 1, (const double[]){64});
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(req, "args")), 0);
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(req, "options");
    assert_true(cJSON_IsObject(opts));
    assert_int_equal(cJSON_GetArraySize(opts), 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(req, "wait"));
    const cJSON *second = cJSON_GetObjectItemCaseSensitive(fake_request(f, "launch", 1, NULL), "options");
    assert_int_equal(cJSON_GetArraySize(second), 1);
    assert_string_equal(field_string(second, "tuning"), "off");
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* gt_run asks for the answer on completion, and for no event when it has nowhere to put one. */
static void test_run_asks_for_the_answer_on_completion(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_range range = {.dims = 1, .global = {64}, .local = {64}};
    gt_event ev = 0;
    assert_int_equal(gt_run(c, k, &range, NULL, 0, NULL, &ev), 0);
    assert_int_equal(ev, EVENT_ID);
    assert_int_equal(gt_run(c, k, &range, NULL, 0, NULL, NULL), 0);
    assert_int_equal(gt_run(NULL, k, &range, NULL, 0, NULL, NULL), -EINVAL);
    assert_int_equal(gt_run(c, NULL, &range, NULL, 0, NULL, NULL), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "gt_run was given no kernel"));

    const cJSON *kept = fake_request(f, "launch", 0, NULL), *forgotten = fake_request(f, "launch", 1, NULL);
    assert_string_equal(field_string(kept, "answer"), "completed");
    assert_null(cJSON_GetObjectItemCaseSensitive(kept, "keep_event"));
    assert_string_equal(field_string(forgotten, "answer"), "completed");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(forgotten, "keep_event")));
    assert_null(fake_request(f, "launch", 2, NULL));
    assert_null(fake_request(f, "wait", 0, NULL));
    gt_kernel_release(k);
    gt_disconnect(c);
}

static void test_launch_refuses_bad_calls_locally(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_range range = {.dims = 1, .global = {64}, .local = {8}};
    gt_event ev = 99;

    assert_int_equal(gt_launch(c, k, NULL, NULL, 0, NULL, &ev), -EINVAL);
    assert_int_equal(ev, 0);
    assert_non_null(strstr(gt_last_error(c), "range"));
    assert_int_equal(gt_launch(c, k, &range, NULL, 2, NULL, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "args is NULL"));
    gt_range four = {.dims = 4, .global = {64}, .local = {8}};
    assert_int_equal(gt_launch(c, k, &four, NULL, 0, NULL, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "4 dimensions"));

    /* a buffer and a kernel of another handle, connected to a second fake daemon */
    fake *other = fake_new();
    gt_client *c2 = connect_ok(other, NULL);
    gt_buffer *theirs = NULL;
    assert_int_equal(gt_buffer_create(c2, 16, &theirs), 0);
    gt_arg args[] = {gt_arg_u32(1), gt_arg_buffer(theirs)};
    assert_int_equal(gt_launch(c, k, &range, args, 2, NULL, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "argument 1 is a buffer of another gridtune handle"));
    gt_kernel *their_kernel = load_ok(c2);
    assert_int_equal(gt_launch(c, their_kernel, &range, NULL, 0, NULL, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "another gridtune handle"));
    gt_disconnect(c2);
    fake_free(other);

    char *status = NULL;
    assert_int_equal(gt_status(c, &status), 0);
    free(status);
    assert_int_equal(fake_count(f, "launch"), 0);
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* ---- answers and errors --------------------------------------------------------------- */

static void test_report_status_and_reports_are_json(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    char *json = NULL;
    assert_int_equal(gt_report(c, EVENT_ID, &json), 0);
    assert_string_equal(json, "{\"kernel\":\"saxpy\",\"event\":42}");
    free(json);
    assert_true(field_number(fake_request(f, "report", 0, NULL), "event") == EVENT_ID);
    assert_int_equal(gt_status(c, &json), 0);
    assert_string_equal(json, "{\"workers\":2,\"clients\":1}");
    free(json);
    assert_int_equal(gt_reports(c, 5, &json), 0);
    assert_string_equal(json, "[{\"event\":42}]");
    free(json);
    assert_true(field_number(fake_request(f, "reports", 0, NULL), "limit") == 5);
    assert_int_equal(gt_wait(c, EVENT_ID), 0);
    assert_int_equal(gt_event_release(c, EVENT_ID), 0);
    assert_true(field_number(fake_request(f, "event_release", 0, NULL), "event") == EVENT_ID);
    /* The fake takes effect on even request ids: one of two cancels is -EALREADY. */
    int first = gt_cancel(c, EVENT_ID), second = gt_cancel(c, EVENT_ID);
    assert_true(field_number(fake_request(f, "cancel", 0, NULL), "event") == EVENT_ID);
    assert_true((first == 0 && second == -EALREADY) || (first == -EALREADY && second == 0));
    assert_int_equal(gt_cancel(c, 0), -EINVAL);
    assert_int_equal(gt_wait(c, 0), -EINVAL);
    assert_non_null(strstr(gt_last_error(c), "not an event"));
    gt_disconnect(c);
}

/* The document goes as the request's "wisdom" object; the counts come from the answer. */
static void test_daemon_wisdom_import_and_clear(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    static const char doc[] =
        "{\"format\":\"gridtune-wisdom\",\"version\":1,\"entries\":[{\"kernel\":\"saxpy\","
        "\"kernel_hash\":\"0123456789abcdef\",\"machine\":\"fedcba9876543210\",\"range\":{\"dims\":1,"
        "\"global\":[1024,1,1],\"local\":[64,1,1]},\"workers\":2,\"schedule\":\"item=tiled:4x4,assign=block\","
        "\"metric\":\"time\",\"cost\":1.25,\"gain\":0.3,\"decided\":1795000000}]}";
    size_t merged = 0, cleared = 0;
    assert_int_equal(gt_daemon_wisdom_import(c, doc, &merged), 0);
    assert_int_equal(merged, 1);
    const cJSON *wisdom = cJSON_GetObjectItemCaseSensitive(fake_request(f, "wisdom_import", 0, NULL), "wisdom");
    assert_string_equal(field_string(wisdom, "format"), "gridtune-wisdom");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(wisdom, "entries")), 1);
    assert_int_equal(gt_daemon_wisdom_clear(c, &cleared), 0);
    assert_int_equal(cleared, 3);
    assert_non_null(fake_request(f, "wisdom_clear", 0, NULL));
    gt_disconnect(c);
}

#define NOT_FOUND_MESSAGE "no module at /nonexistent/kernels.so: No such file or directory"
#define NO_ERRNO_MESSAGE "event 42 is not known to this connection"
#define THREAD_MESSAGE "the status is not available while the daemon shuts down"

static cJSON *refuse_some(fake *f, const cJSON *req)
{
    const char *type = field_string(req, "type");
    uint64_t id = request_id(req);
    if (!strcmp(type, "kernel_load"))
        return error_for(id, GT_ERR_LOAD, ENOENT, NOT_FOUND_MESSAGE);
    if (!strcmp(type, "event_release"))
        return error_for(id, GT_ERR_NOT_FOUND, 0, NO_ERRNO_MESSAGE);
    if (!strcmp(type, "status"))
        return error_for(id, GT_ERR_CANCELLED, ECANCELED, THREAD_MESSAGE);
    return default_answer(f, req);
}

typedef struct thread_call {
    gt_client *c;
    int rc;
    char before[256]; /* gt_last_error in the thread before its call */
    char after[256];
} thread_call;

static void *status_in_thread(void *arg)
{
    thread_call *t = arg;
    snprintf(t->before, sizeof t->before, "%s", gt_last_error(t->c));
    char *json = NULL;
    t->rc = gt_status(t->c, &json);
    free(json);
    snprintf(t->after, sizeof t->after, "%s", gt_last_error(t->c));
    return NULL;
}

static void test_error_replies_and_sentences_per_thread(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, refuse_some);
    gt_kernel *k = (gt_kernel *)c;
    assert_int_equal(gt_kernel_load(c, "/nonexistent/kernels.so", "saxpy", &k), -ENOENT);
    assert_null(k);
    assert_string_equal(gt_last_error(c), NOT_FOUND_MESSAGE);

    thread_call t = {.c = c};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, status_in_thread, &t), 0);
    pthread_join(th, NULL);
    assert_string_equal(t.before, "");
    assert_int_equal(t.rc, -ECANCELED);
    assert_string_equal(t.after, THREAD_MESSAGE);
    assert_string_equal(gt_last_error(c), NOT_FOUND_MESSAGE);

    /* an error without errno is -EIO, and a later success leaves the last failure's sentence */
    assert_int_equal(gt_event_release(c, EVENT_ID), -EIO);
    assert_string_equal(gt_last_error(c), NO_ERRNO_MESSAGE);
    assert_int_equal(gt_wait(c, EVENT_ID), 0);
    assert_string_equal(gt_last_error(c), NO_ERRNO_MESSAGE);
    gt_disconnect(c);
}

/* ---- concurrency and a lost connection ------------------------------------------------ */

#define CANCELLED_MESSAGE "launch 42 was cancelled: an awaited launch failed"

/* Holds the wait back until a status request has been answered. */
static cJSON *answer_wait_after_status(fake *f, const cJSON *req)
{
    const char *type = field_string(req, "type");
    if (!strcmp(type, "wait")) {
        f->held_id = request_id(req);
        return NULL;
    }
    if (!strcmp(type, "status") && f->held_id) {
        fake_send(f, default_answer(f, req));
        return error_for(f->held_id, GT_ERR_CANCELLED, ECANCELED, CANCELLED_MESSAGE);
    }
    return default_answer(f, req);
}

static void *wait_in_thread(void *arg)
{
    thread_call *t = arg;
    t->rc = gt_wait(t->c, EVENT_ID);
    snprintf(t->after, sizeof t->after, "%s", gt_last_error(t->c));
    return NULL;
}

static void test_replies_out_of_order(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, answer_wait_after_status);
    thread_call t = {.c = c};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, wait_in_thread, &t), 0);
    fake_wait_for(f, "wait");
    char *status = NULL;
    assert_int_equal(gt_status(c, &status), 0); /* answered while the wait is still pending */
    assert_string_equal(status, "{\"workers\":2,\"clients\":1}");
    free(status);
    pthread_join(th, NULL);
    assert_int_equal(t.rc, -ECANCELED);
    assert_string_equal(t.after, CANCELLED_MESSAGE);
    assert_string_equal(gt_last_error(c), "");
    /* the wait was sent first and answered last */
    unsigned wait_id = (unsigned)field_number(fake_request(f, "wait", 0, NULL), "id");
    unsigned status_id = (unsigned)field_number(fake_request(f, "status", 0, NULL), "id");
    assert_true(wait_id < status_id);
    gt_disconnect(c);
}

/* Holds reports back, and hangs up on a wait. */
static cJSON *hang_up_on_wait(fake *f, const cJSON *req)
{
    const char *type = field_string(req, "type");
    if (!strcmp(type, "report"))
        return NULL;
    if (!strcmp(type, "wait")) {
        f->hang_up = true;
        return NULL;
    }
    return default_answer(f, req);
}

static void *report_in_thread(void *arg)
{
    thread_call *t = arg;
    char *json = NULL;
    t->rc = gt_report(t->c, EVENT_ID, &json);
    free(json);
    snprintf(t->after, sizeof t->after, "%s", gt_last_error(t->c));
    return NULL;
}

static void assert_lost(int rc, const char *why)
{
    assert_true(rc == -EPIPE || rc == -ECONNRESET);
    if (!strstr(why, "the connection to gridtuned was lost"))
        fail_msg("unexpected sentence: %s", why);
}

static void test_lost_connection_fails_pending_calls(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, hang_up_on_wait);
    thread_call t = {.c = c};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, report_in_thread, &t), 0);
    fake_wait_for(f, "report");
    int rc = gt_wait(c, EVENT_ID);
    assert_lost(rc, gt_last_error(c));
    pthread_join(th, NULL);
    assert_lost(t.rc, t.after);
    char *status = NULL;
    assert_int_equal(gt_status(c, &status), rc); /* and every later call the same way */
    assert_null(status);
    assert_lost(rc, gt_last_error(c));
    gt_disconnect(c);
}

/* gt_disconnect frees what the application left, with no release messages. */
static void test_disconnect_frees_what_is_left(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b1 = NULL, *b2 = NULL;
    assert_int_equal(gt_buffer_create(c, 4096, &b1), 0);
    assert_int_equal(gt_buffer_create(c, 100, &b2), 0);
    gt_kernel *k = load_ok(c);
    assert_non_null(k);
    gt_disconnect(c);
    fake_stop(f);
    assert_int_equal(fake_count(f, "buffer_release"), 0);
    assert_int_equal(fake_count(f, "kernel_release"), 0);
}

/* ---- handles used after release or disconnect ----------------------------------------- */

/* Each of these once crashed the application, or blamed the wrong thing. Now a dead handle is
 * refused with -EBADF and a sentence naming the function and the handle, kept on the live
 * client the call was given, else for the calling thread (gt_last_error(NULL)). The stale
 * pointers are only compared and passed, never read, and no handle is made between a release
 * and the stale use, so no new handle can have taken the address (gridtune.h). */

/* The sentence the library gives for a dead handle of kind `what` passed to fn. */
static void assert_dead(const char *got, const char *fn, const char *what, const void *h)
{
    char want[256];
    if (!strcmp(what, "client"))
        snprintf(want, sizeof want, "%s: the client %p was already disconnected", fn, h);
    else
        snprintf(want, sizeof want, "%s: the %s %p was already released, or its client disconnected", fn, what, h);
    assert_string_equal(got, want);
}

static gt_buffer *buffer_ok(gt_client *c, size_t bytes)
{
    gt_buffer *b = NULL;
    int rc = gt_buffer_create(c, bytes, &b);
    if (rc)
        fail_msg("gt_buffer_create failed (%d): %s", rc, gt_last_error(c));
    return b;
}

/* A round trip to the fake, so that any request a call before it sent has been recorded. */
static void sync_with(gt_client *c)
{
    char *status = NULL;
    assert_int_equal(gt_status(c, &status), 0);
    free(status);
}

static void test_buffer_released_twice(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b = buffer_ok(c, 64);
    assert_int_equal(gt_buffer_release(b), 0);
    assert_int_equal(gt_buffer_release(b), -EBADF);
    assert_dead(gt_last_error(NULL), "gt_buffer_release", "buffer", b);
    assert_string_equal(gt_last_error(c), ""); /* the client's own sentences are untouched */
    sync_with(c);
    assert_int_equal(fake_count(f, "buffer_release"), 1);
    assert_int_equal(gt_buffer_release(NULL), 0); /* as free(NULL) */
    assert_int_equal(gt_disconnect(c), 0);
}

static void test_buffer_data_after_release(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b = buffer_ok(c, 64);
    assert_non_null(gt_buffer_data(b));
    assert_int_equal(gt_buffer_release(b), 0);
    assert_null(gt_buffer_data(b));
    assert_dead(gt_last_error(NULL), "gt_buffer_data", "buffer", b);
    assert_int_equal(gt_buffer_size(b), 0);
    assert_dead(gt_last_error(NULL), "gt_buffer_size", "buffer", b);
    assert_null(gt_buffer_data(NULL));
    assert_string_equal(gt_last_error(NULL), "gt_buffer_data was given no buffer (NULL)");
    assert_int_equal(gt_disconnect(c), 0);
}

static void test_kernel_released_twice(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    assert_int_equal(gt_kernel_release(k), 0);
    assert_int_equal(gt_kernel_release(k), -EBADF);
    assert_dead(gt_last_error(NULL), "gt_kernel_release", "kernel", k);
    sync_with(c);
    assert_int_equal(fake_count(f, "kernel_release"), 1);
    assert_int_equal(gt_disconnect(c), 0);
}

static void test_kernel_used_after_release(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    assert_int_equal(gt_kernel_nargs(k), 3);
    assert_int_equal(gt_kernel_release(k), 0);
    assert_int_equal(gt_kernel_nargs(k), 0);
    assert_dead(gt_last_error(NULL), "gt_kernel_nargs", "kernel", k);
    gt_range range = {.dims = 1, .global = {64}, .local = {8}};
    gt_event ev = 99;
    assert_int_equal(gt_launch(c, k, &range, NULL, 0, NULL, &ev), -EBADF);
    assert_int_equal(ev, 0);
    assert_dead(gt_last_error(c), "gt_launch", "kernel", k); /* on the live client it was given */
    sync_with(c);
    assert_int_equal(fake_count(f, "launch"), 0);
    assert_int_equal(gt_disconnect(c), 0);
}

static void test_buffer_release_after_disconnect(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b = buffer_ok(c, 64);
    assert_int_equal(gt_disconnect(c), 0);
    assert_int_equal(gt_buffer_release(b), -EBADF);
    assert_dead(gt_last_error(NULL), "gt_buffer_release", "buffer", b);
    fake_stop(f);
    assert_int_equal(fake_count(f, "buffer_release"), 0);
}

static void test_buffer_data_after_disconnect(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_buffer *b = buffer_ok(c, 64);
    gt_kernel *k = load_ok(c);
    assert_int_equal(gt_disconnect(c), 0);
    assert_null(gt_buffer_data(b));
    assert_dead(gt_last_error(NULL), "gt_buffer_data", "buffer", b);
    assert_int_equal(gt_kernel_release(k), -EBADF);
    assert_dead(gt_last_error(NULL), "gt_kernel_release", "kernel", k);
}

/* The dead-handle sentence is the failing thread's own. */
static void *last_error_in_thread(void *arg)
{
    thread_call *t = arg;
    snprintf(t->before, sizeof t->before, "%s", gt_last_error(NULL));
    t->rc = gt_disconnect(t->c);
    snprintf(t->after, sizeof t->after, "%s", gt_last_error(t->c));
    return NULL;
}

static void test_disconnect_twice(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    assert_int_equal(gt_disconnect(c), 0);
    assert_int_equal(gt_disconnect(c), -EBADF);
    assert_dead(gt_last_error(NULL), "gt_disconnect", "client", c);
    assert_dead(gt_last_error(c), "gt_disconnect", "client", c); /* a dead client reads the same */

    thread_call t = {.c = c};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, last_error_in_thread, &t), 0);
    pthread_join(th, NULL);
    assert_string_equal(t.before, "");
    assert_int_equal(t.rc, -EBADF);
    assert_dead(t.after, "gt_disconnect", "client", c);
    assert_int_equal(gt_disconnect(NULL), 0);
}

static void test_launch_with_released_buffer(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_buffer *out = buffer_ok(c, 64), *in = buffer_ok(c, 64);
    assert_int_equal(gt_buffer_release(in), 0);
    gt_range range = {.dims = 1, .global = {8}, .local = {8}};
    gt_arg args[] = {gt_arg_buffer(out), gt_arg_buffer(in), gt_arg_u32(8)};
    gt_event ev = 99;
    assert_int_equal(gt_launch(c, k, &range, args, 3, NULL, &ev), -EBADF);
    assert_int_equal(ev, 0);
    char want[256];
    snprintf(want, sizeof want,
             "gt_launch: argument 1, the buffer %p, was already released, or its client disconnected", (void *)in);
    assert_string_equal(gt_last_error(c), want);
    assert_null(strstr(gt_last_error(c), "another"));
    sync_with(c);
    assert_int_equal(fake_count(f, "launch"), 0);
    assert_int_equal(gt_buffer_release(out), 0);
    assert_int_equal(gt_kernel_release(k), 0);
    assert_int_equal(gt_disconnect(c), 0);
}

static void test_buffer_of_another_client(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_buffer *ours = buffer_ok(c, 64);
    fake *other = fake_new();
    gt_client *c2 = connect_ok(other, NULL);
    gt_buffer *theirs = buffer_ok(c2, 64);
    gt_kernel *their_kernel = load_ok(c2);
    gt_range range = {.dims = 1, .global = {8}, .local = {8}};
    gt_arg args[] = {gt_arg_buffer(theirs), gt_arg_buffer(ours), gt_arg_u32(8)};
    gt_event ev = 99;
    assert_int_equal(gt_launch(c, k, &range, args, 3, NULL, &ev), -EINVAL);
    assert_string_equal(gt_last_error(c), "argument 0 is a buffer of another gridtune handle; a launch takes only "
                                          "its own handle's buffers");
    assert_int_equal(gt_launch(c, their_kernel, &range, args, 3, NULL, &ev), -EINVAL);
    assert_string_equal(gt_last_error(c), "the kernel belongs to another gridtune handle; a launch takes only its own "
                                          "handle's kernels");
    assert_string_equal(gt_last_error(c2), "");

    /* once the other client is gone its buffer is dead, not another handle's */
    assert_int_equal(gt_disconnect(c2), 0);
    fake_free(other);
    assert_int_equal(gt_launch(c, k, &range, args, 3, NULL, &ev), -EBADF);
    char want[256];
    snprintf(want, sizeof want,
             "gt_launch: argument 0, the buffer %p, was already released, or its client disconnected", (void *)theirs);
    assert_string_equal(gt_last_error(c), want);
    sync_with(c);
    assert_int_equal(fake_count(f, "launch"), 0);
    assert_int_equal(gt_disconnect(c), 0);
}

/* Asserts a call on the disconnected client c failed with -EBADF, naming fn. */
static void assert_gone(gt_client *c, int rc, const char *fn)
{
    assert_int_equal(rc, -EBADF);
    assert_dead(gt_last_error(c), fn, "client", c);
}

static void test_client_used_after_disconnect(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k = load_ok(c);
    gt_buffer *b = buffer_ok(c, 64);
    assert_int_equal(gt_disconnect(c), 0);

    gt_buffer *nb = (gt_buffer *)c; /* outputs must be cleared */
    assert_gone(c, gt_buffer_create(c, 64, &nb), "gt_buffer_create");
    assert_null(nb);
    gt_kernel *nk = (gt_kernel *)c;
    assert_gone(c, gt_kernel_load(c, "/nonexistent/kernels.so", "saxpy", &nk), "gt_kernel_load");
    assert_null(nk);
    nk = (gt_kernel *)c;
    assert_gone(c, gt_kernel_build(c, "int x;", "saxpy", NULL, &nk), "gt_kernel_build");
    assert_null(nk);
    gt_range range = {.dims = 1, .global = {8}, .local = {8}};
    gt_arg args[] = {gt_arg_buffer(b)};
    gt_event ev = 99;
    assert_gone(c, gt_launch(c, k, &range, args, 1, NULL, &ev), "gt_launch");
    assert_int_equal(ev, 0);
    assert_gone(c, gt_wait(c, EVENT_ID), "gt_wait");
    char *json = (char *)c;
    assert_gone(c, gt_report(c, EVENT_ID, &json), "gt_report");
    assert_null(json);
    assert_gone(c, gt_report(c, EVENT_ID, NULL), "gt_report");
    assert_gone(c, gt_event_release(c, EVENT_ID), "gt_event_release");
    json = (char *)c;
    assert_gone(c, gt_status(c, &json), "gt_status");
    assert_null(json);
    json = (char *)c;
    assert_gone(c, gt_reports(c, 5, &json), "gt_reports");
    assert_null(json);
    assert_gone(c, gt_daemon_wisdom_import(c, "{}", NULL), "gt_daemon_wisdom_import");
    assert_gone(c, gt_daemon_wisdom_clear(c, NULL), "gt_daemon_wisdom_clear");
    assert_gone(c, gt_disconnect(c), "gt_disconnect");
    fake_stop(f);
    assert_int_equal(fake_count(f, "launch"), 0);
    assert_int_equal(fake_count(f, "status"), 0);
}

/* Many live handles at once, released in a scrambled order: every one stays found until it is
 * released and is refused after, however the registry's table grew and closed its gaps. */
#define MANY_KERNELS 200

static void test_many_handles_released_in_any_order(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    gt_kernel *k[MANY_KERNELS];
    unsigned order[MANY_KERNELS];
    for (unsigned i = 0; i < MANY_KERNELS; i++) {
        k[i] = load_ok(c);
        order[i] = i;
    }
    uint32_t seed = 12345; /* a fixed shuffle (Fisher-Yates with an LCG): the same every run */
    for (unsigned i = MANY_KERNELS - 1; i > 0; i--) {
        seed = seed * 1664525u + 1013904223u;
        unsigned j = (seed >> 8) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    bool released[MANY_KERNELS] = {false};
    for (unsigned n = 0; n < MANY_KERNELS; n++) {
        unsigned i = order[n];
        assert_int_equal(gt_kernel_release(k[i]), 0);
        released[i] = true;
        if (n % 10 == 0 || n == MANY_KERNELS - 1) /* every tenth, to keep the check cheap */
            for (unsigned j = 0; j < MANY_KERNELS; j++)
                assert_int_equal(gt_kernel_nargs(k[j]), released[j] ? 0 : 3);
    }
    assert_int_equal(gt_kernel_release(k[order[0]]), -EBADF);
    assert_int_equal(gt_disconnect(c), 0);
}

/* ---- fork ---------------------------------------------------------------------------------- */

#define FORK_HAMMERS 2
#define FORKS 300
#define CHILD_GUARD_SECONDS 5 /* a guard against a hang, not a timing assertion */

typedef struct hammer {
    gt_buffer *b;
    atomic_bool stop;
} hammer;

/* Looks the buffer up, taking the handle registry's lock, as fast as it can. */
static void *hammer_main(void *arg)
{
    hammer *h = arg;
    while (!atomic_load(&h->stop))
        (void)gt_buffer_size(h->b);
    return NULL;
}

/* Threads look handles up without pause while the test forks: a child that inherited the
 * registry's lock held by one of them would wait for ever in its first call. Each child makes
 * one call under an alarm; before the fork handlers, some children hung. */
static void test_fork_while_handles_are_looked_up(void **state)
{
    fake *f = *state;
    gt_client *c = connect_ok(f, NULL);
    hammer h = {.b = buffer_ok(c, 64)};
    pthread_t threads[FORK_HAMMERS];
    for (int i = 0; i < FORK_HAMMERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, hammer_main, &h), 0);
    unsigned hung = 0;
    for (int i = 0; i < FORKS; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(CHILD_GUARD_SECONDS);
            _exit(gt_buffer_size(h.b) == 64 ? 0 : 1);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            hung++;
        else
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    atomic_store(&h.stop, true);
    for (int i = 0; i < FORK_HAMMERS; i++)
        pthread_join(threads[i], NULL);
    if (hung)
        fail_msg("%u of %d children hung on the handle registry's lock", hung, FORKS);
    assert_int_equal(gt_buffer_release(h.b), 0);
    assert_int_equal(gt_disconnect(c), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_connect_says_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_refused_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_uses_socket_variable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_missing_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_failure_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_leaves_the_applications_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_unpins_the_daemon, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_off_runs_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_named_socket_never_autostarts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_listening, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autostart_already_served, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_is_a_sealed_shared_memfd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_of_no_bytes_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_load_sends_an_absolute_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_build, setup, teardown),
        cmocka_unit_test_setup_teardown(test_launch_encodes_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_launch_defaults_send_only_what_differs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_asks_for_the_answer_on_completion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_launch_refuses_bad_calls_locally, setup, teardown),
        cmocka_unit_test_setup_teardown(test_report_status_and_reports_are_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_daemon_wisdom_import_and_clear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_replies_and_sentences_per_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replies_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_connection_fails_pending_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_frees_what_is_left, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_released_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_data_after_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_released_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_used_after_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_release_after_disconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_data_after_disconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_launch_with_released_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_buffer_of_another_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_used_after_disconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_handles_released_in_any_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_while_handles_are_looked_up, setup, teardown),
    };
    const char *log_path = getenv(ENV_REQUESTS_FILE);
    if (log_path && *log_path && !(request_log = fopen(log_path, "w"))) {
        fprintf(stderr, "test_client: cannot write %s=%s: %s\n", ENV_REQUESTS_FILE, log_path, strerror(errno));
        return 1;
    }
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (request_log && fclose(request_log) != 0)
        failed++;
    return failed;
}
