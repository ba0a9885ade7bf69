/* test_daemon.c: a real gridtuned against bad input, and its HTTP side. One daemon serves the
 * whole group, writing its trace where daemon_protocol validates it afterwards. Each test
 * sends one kind of bad input, raw (frame by frame) or through libgridtune, asserts the
 * error's code, errno and that its sentence names the bad thing, then that the daemon still
 * serves a fresh client. A steady client runs for the whole group in its own thread, launching
 * and checking every element of the result; the group's last tests assert it was served
 * throughout and that the daemon gave back every descriptor and buffer and stops cleanly.
 * Between them, the daemon answers every request type at least once with a result, since
 * daemon_protocol requires one of each in the trace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"

#include "protocol/protocol.h"
#include "tuner/clock.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_TEST_DAEMON_MODULE
#error "GT_TEST_DAEMON_MODULE must name the test kernel module"
#endif
#ifndef GT_PROTOCOL_SCHEMAS
#error "GT_PROTOCOL_SCHEMAS must name the schemas/protocol directory"
#endif
#ifndef GT_DAEMON_TRACE
#error "GT_DAEMON_TRACE must name the trace file daemon_protocol checks"
#endif

#define STEADY_ITEMS 4096
#define STEADY_LOCAL 64
#define CHECK_SIDE 16
#define CHECK_LOCAL 4
#define CHECK_V 12345
/* Launches the steady client must complete after a check begins, so that at least one of them
 * was both sent and answered after the bad input. */
#define STEADY_PROGRESS 2
#define HTTP_MAX_ANSWER (1u << 20)

static daemon_fixture fx;
static gt_client *status_client; /* the group's own connection, for status and /proc counts */
static unsigned baseline_fds;

/* ---- the steady client ------------------------------------------------------------------ */

static struct {
    pthread_t thread;
    bool running;
    gt_client *c;
    gt_kernel *fill;
    gt_buffer *buf;
    atomic_bool stop;
    atomic_uint launches, wrong, errors;
    pthread_mutex_t lock;
    char problem[1024]; /* the first thing that went wrong, for the failure message */
} steady = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void steady_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void steady_problem(const char *fmt, ...)
{
    pthread_mutex_lock(&steady.lock);
    if (!steady.problem[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(steady.problem, sizeof steady.problem, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&steady.lock);
}

/* Launches fill with a new v each time and checks every element; stops at the first error,
 * since a handle whose connection was lost would only fail again. */
static void *steady_main(void *arg)
{
    (void)arg;
    int32_t *data = gt_buffer_data(steady.buf);
    gt_range range = {.dims = 1, .global = {STEADY_ITEMS}, .local = {STEADY_LOCAL}};
    for (uint32_t round = 0; !atomic_load(&steady.stop); round++) {
        int32_t v = (int32_t)(round * 7919u % 100000u);
        memset(data, 0xff, STEADY_ITEMS * sizeof *data);
        gt_arg args[] = {gt_arg_buffer(steady.buf), gt_arg_i32(v)};
        gt_event ev = 0;
        int rc = gt_launch(steady.c, steady.fill, &range, args, 2, NULL, &ev);
        if (!rc)
            rc = gt_wait(steady.c, ev);
        if (rc) {
            steady_problem("launch %u failed (%d): %s", round, rc, gt_last_error(steady.c));
            atomic_fetch_add(&steady.errors, 1);
            return NULL;
        }
        for (int32_t i = 0; i < STEADY_ITEMS; i++) {
            if (data[i] != v + i) {
                steady_problem("launch %u: element %d is %d; expected %d", round, i, data[i], v + i);
                atomic_fetch_add(&steady.wrong, 1);
                break;
            }
        }
        if (gt_event_release(steady.c, ev) != 0) {
            steady_problem("releasing launch %u's event failed: %s", round, gt_last_error(steady.c));
            atomic_fetch_add(&steady.errors, 1);
            return NULL;
        }
        atomic_fetch_add(&steady.launches, 1);
    }
    return NULL;
}

static void steady_start(void)
{
    steady.c = daemon_fixture_connect(&fx);
    assert_int_equal(gt_kernel_load(steady.c, GT_TEST_DAEMON_MODULE, "fill", &steady.fill), 0);
    assert_int_equal(gt_buffer_create(steady.c, STEADY_ITEMS * sizeof(int32_t), &steady.buf), 0);
    assert_int_equal(pthread_create(&steady.thread, NULL, steady_main, NULL), 0);
    steady.running = true;
}

static void steady_stop(void)
{
    if (!steady.running)
        return;
    atomic_store(&steady.stop, true);
    pthread_join(steady.thread, NULL);
    steady.running = false;
    gt_buffer_release(steady.buf);
    gt_kernel_release(steady.fill);
    gt_disconnect(steady.c);
}

/* The problem is copied under the lock the steady thread writes it under; the counters move
 * after it is written, so a count above zero always has its sentence. */
static void assert_steady_healthy(void)
{
    if (!atomic_load(&steady.wrong) && !atomic_load(&steady.errors))
        return;
    char problem[sizeof steady.problem];
    pthread_mutex_lock(&steady.lock);
    memcpy(problem, steady.problem, sizeof problem);
    pthread_mutex_unlock(&steady.lock);
    fail_msg("the steady client saw %u wrong results and %u errors; the first: %s", atomic_load(&steady.wrong),
             atomic_load(&steady.errors), problem);
}

/* Waits until the steady client has completed launches sent after this call began. */
static void assert_steady_progress(void)
{
    unsigned start = atomic_load(&steady.launches);
    for (int i = 0; atomic_load(&steady.launches) < start + STEADY_PROGRESS; i++) {
        assert_steady_healthy();
        if (i > DAEMON_FIXTURE_GUARD_SECONDS * 100)
            fail_msg("the steady client completed no launch within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
        gt_clock_sleep_ms(10);
    }
    assert_steady_healthy();
}

/* ---- checks shared by the tests ------------------------------------------------------------ */

/* A fresh client: a 2-D fill over 16x16 in 4x4 workgroups, every element checked. Returns
 * the launch's report id. */
static unsigned long fresh_client_launch(void)
{
    gt_client *c = daemon_fixture_connect(&fx);
    gt_kernel *k;
    gt_buffer *b;
    assert_int_equal(gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k), 0);
    assert_int_equal(gt_buffer_create(c, CHECK_SIDE * CHECK_SIDE * sizeof(int32_t), &b), 0);
    gt_range range = {.dims = 2, .global = {CHECK_SIDE, CHECK_SIDE}, .local = {CHECK_LOCAL, CHECK_LOCAL}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(CHECK_V)};
    gt_event ev;
    int rc = gt_launch(c, k, &range, args, 2, NULL, &ev);
    if (!rc)
        rc = gt_wait(c, ev);
    if (rc)
        fail_msg("a fresh client's launch failed (%d): %s", rc, gt_last_error(c));
    const int32_t *data = gt_buffer_data(b);
    for (int32_t i = 0; i < CHECK_SIDE * CHECK_SIDE; i++)
        if (data[i] != CHECK_V + i)
            fail_msg("a fresh client's launch left element %d at %d; expected %d", i, data[i], CHECK_V + i);
    char *json;
    assert_int_equal(gt_report(c, ev, &json), 0);
    cJSON *report = cJSON_Parse(json);
    free(json);
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "id"));
    assert_non_null(id);
    unsigned long report_id = strtoul(id, NULL, 10);
    cJSON_Delete(report);
    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
    return report_id;
}

/* After each bad input: the same daemon serves a fresh client, and the steady one goes on. */
static void assert_still_serving(void)
{
    fresh_client_launch();
    assert_steady_progress();
}

static void assert_id_null(const cJSON *msg)
{
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(msg, "id")));
}

/* A request the raw client sends after an error must still be answered on the same connection. */
static void assert_connection_goes_on(raw_client *rc)
{
    cJSON *answer = raw_client_call(rc, "{\"type\":\"status\",\"id\":99}", NULL, 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
    cJSON_Delete(answer);
}

/* A handle with the fill kernel and a buffer for it, for the API tests. */
typedef struct api_client {
    gt_client *c;
    gt_kernel *fill;
    gt_buffer *buf;
} api_client;

static void api_open(api_client *a)
{
    a->c = daemon_fixture_connect(&fx);
    assert_int_equal(gt_kernel_load(a->c, GT_TEST_DAEMON_MODULE, "fill", &a->fill), 0);
    assert_int_equal(gt_buffer_create(a->c, 1024 * sizeof(int32_t), &a->buf), 0);
}

static void api_close(api_client *a)
{
    gt_buffer_release(a->buf);
    gt_kernel_release(a->fill);
    gt_disconnect(a->c);
}

/* Loads fill on a raw connection (request id 2); its kernel id. */
static double raw_load_fill(raw_client *rc)
{
    return raw_client_load(rc, 2, GT_TEST_DAEMON_MODULE, "fill");
}

/* ---- broken frames: the daemon answers once and closes ------------------------------------ */

/* Someone points an HTTP client at the socket: "GET " read as a length is 1195725856. */
static void test_garbage_bytes(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open(&rc, &fx);
    static const char garbage[] = "GET /status HTTP/1.1\r\nHost: gridtuned\r\n\r\n";
    raw_client_send_bytes(&rc, garbage, sizeof garbage - 1);
    cJSON *answer = raw_client_read(&rc);
    assert_error_answer(answer, GT_ERR_FRAME, EMSGSIZE, "frame of 1195725856 bytes");
    assert_id_null(answer);
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* A header of small length but a descriptor count no frame may carry. */
static void test_garbage_descriptor_count(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    static const unsigned char garbage[] = {0, 0, 0, 2, 0x7f, 0xff, 0xff, 0xff, '{', '}'};
    raw_client_send_bytes(&rc, garbage, sizeof garbage);
    cJSON *answer = raw_client_read(&rc);
    assert_error_answer(answer, GT_ERR_FRAME, EPROTO, "announces 2147483647 file descriptors");
    assert_id_null(answer);
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* A header announcing one byte more than --max-frame allows; the daemon must not wait for it. */
static void test_oversized_frame(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    unsigned char header[GT_WIRE_HEADER];
    gt_wire_header(GT_DEFAULT_MAX_FRAME + 1, 0, header);
    raw_client_send_bytes(&rc, header, sizeof header);
    cJSON *answer = raw_client_read(&rc);
    assert_error_answer(answer, GT_ERR_FRAME, EMSGSIZE, "frame of 1048577 bytes is over the limit of 1048576");
    assert_id_null(answer);
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* ---- whole frames that are not valid requests: answered, and the connection goes on ------- */

static void test_invalid_json(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"status\",\"id\":2,", NULL, 0);
    assert_error_answer(answer, GT_ERR_JSON, EBADMSG, "not a JSON object");
    assert_id_null(answer);
    cJSON_Delete(answer);
    answer = raw_client_call(&rc, "[\"status\", 3]", NULL, 0);
    assert_error_answer(answer, GT_ERR_JSON, EBADMSG, "not a JSON object");
    cJSON_Delete(answer);
    answer = raw_client_call(&rc, "{\"type\":\"status\",\"id\":4} trailing junk", NULL, 0);
    assert_error_answer(answer, GT_ERR_JSON, EBADMSG, "the frame has bytes after its JSON object");
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

static void test_unknown_message_type(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"frobnicate\",\"id\":2}", NULL, 0);
    assert_error_answer(answer, GT_ERR_TYPE, EOPNOTSUPP, "\"frobnicate\"");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(answer, "id")->valuedouble, 2);
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* Whether `type` is one of the n request types in types. */
static bool listed(char *const *types, size_t n, const char *type)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(types[i], type))
            return true;
    return false;
}

/* The unknown-type error lists the daemon's request types (it walks daemon/requests/dispatch.c's
 * handlers[]), and they must be exactly the types schemas/protocol describes, each with
 * TYPE.schema.json and TYPE.result.schema.json: the tests take their lists of request types
 * from the schemas, so a handler without schemas or schemas without a handler fail here. */
static void test_request_types_match_schemas(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"frobnicate\",\"id\":2}", NULL, 0);
    raw_client_close(&rc);
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(answer, "message");
    assert_true(cJSON_IsString(message));
    const char *has = strstr(message->valuestring, " has ");
    assert_non_null(has);
    char said[1024], list[sizeof said];
    assert_true((size_t)snprintf(said, sizeof said, "%s", has + 5) < sizeof said);
    memcpy(list, said, sizeof list);
    cJSON_Delete(answer);
    char *and = strstr(list, " and "); /* "a, b and c" into "a, b, c" */
    assert_non_null(and);
    memcpy(and, ", ", 2);
    memmove(and + 2, and + 5, strlen(and + 5) + 1);

    char *types[64], *save = NULL;
    size_t n = 0;
    for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        assert_true(n < sizeof types / sizeof types[0]);
        types[n++] = t;
        for (int result = 0; result < 2; result++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s%s.schema.json", GT_PROTOCOL_SCHEMAS, t, result ? ".result" : "");
            if (access(path, R_OK) != 0)
                fail_msg("gridtuned handles request type %s, but there is no %s", t, path);
        }
    }
    assert_true(n > 0);

    DIR *dir = opendir(GT_PROTOCOL_SCHEMAS);
    assert_non_null(dir);
    size_t schemas = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        char type[256];
        size_t len = strlen(e->d_name);
        const char *suffix = ".schema.json";
        if (len <= strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix) != 0)
            continue;
        snprintf(type, sizeof type, "%.*s", (int)(len - strlen(suffix)), e->d_name);
        char *result = strstr(type, ".result");
        if (result && result[7] == '\0')
            *result = '\0';
        if (!strcmp(type, "common") || !strcmp(type, "error"))
            continue;
        if (!listed(types, n, type))
            fail_msg("%s/%s describes request type %s, which gridtuned does not handle (it has %s)",
                     GT_PROTOCOL_SCHEMAS, e->d_name, type, said);
        schemas++;
    }
    closedir(dir);
    assert_int_equal(schemas, 2 * n);
}

static void test_request_before_hello(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"status\",\"id\":1}", NULL, 0);
    assert_error_answer(answer, GT_ERR_REQUEST, EPROTO, "must be hello");
    cJSON_Delete(answer);
    raw_client_close(&rc);
    assert_still_serving();
}

/* A version error is answered, then the connection is closed. */
static void test_wrong_protocol_version(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"hello\",\"id\":1,\"protocol\":99,\"client\":\"from the future\"}",
                                    NULL, 0);
    assert_error_answer(answer, GT_ERR_VERSION, EPROTONOSUPPORT, "asked for protocol 99");
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* ---- launches that do not fit the kernel ---------------------------------------------------- */

static void test_wrong_argument_count(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(a.buf)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 1, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_ARGS, EINVAL, "kernel fill takes 2 arguments; got 1");
    api_close(&a);
    assert_still_serving();
}

static void test_scalar_for_buffer_argument(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_i32(7), gt_arg_i32(7)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 2, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_ARGS, EINVAL, "argument 0 (dst)");
    api_close(&a);
    assert_still_serving();
}

/* fill declares one int32_t of dst per work-item (GT_BUFFER_EXTENT); the buffer holds 1024. */
static void test_buffer_too_small_for_range(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 2, .global = {64, 32}, .local = {16, 16}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i32(7)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 2, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_ARGS, EINVAL,
                     "argument 0 (dst) of fill: the buffer has 4096 bytes, but 2048 work-items of 4 bytes each need 8192");
    api_close(&a);
    assert_still_serving();
}

static void test_scalar_of_wrong_width(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i64(7)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 2, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_ARGS, EINVAL, "argument 1 (v)");
    api_close(&a);
    assert_still_serving();
}

/* Half a frame, then the client stops sending: answered with id null, then closed. (This
 * was a use after free in the daemon, seen with ASan.) */
static void test_truncated_frame(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    unsigned char header[GT_WIRE_HEADER];
    gt_wire_header(100, 0, header);
    raw_client_send_bytes(&rc, header, sizeof header);
    raw_client_send_bytes(&rc, "{\"type\":\"s", 10);
    assert_int_equal(shutdown(rc.fd, SHUT_WR), 0);
    cJSON *answer = raw_client_read(&rc);
    assert_error_answer(answer, GT_ERR_FRAME, EPROTO, "in the middle of a frame");
    assert_id_null(answer);
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    assert_still_serving();
    daemon_fixture_assert_no_sanitizer_report(&fx);
}

/* A float for an integer parameter has the right size, but would mean other bytes. */
static void test_float_for_integer_argument(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_f32(1.5f)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 2, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_ARGS, EINVAL, "argument 1 (v) of fill: expected an integer scalar");
    api_close(&a);
    assert_still_serving();
}

/* ---- ids this connection does not have ------------------------------------------------------- */

static void test_unknown_buffer_id(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    double kernel = raw_load_fill(&rc);
    char req[512];
    snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":3,\"kernel\":%.0f,\"range\":{\"dims\":1,\"global\":[64],"
             "\"local\":[64]},\"args\":[{\"buffer\":987654},{\"i32\":1}]}", kernel);
    cJSON *answer = raw_client_call(&rc, req, NULL, 0);
    assert_error_answer(answer, GT_ERR_NOT_FOUND, ENOENT, "argument 0 names buffer 987654");
    cJSON_Delete(answer);
    answer = raw_client_call(&rc, "{\"type\":\"buffer_release\",\"id\":4,\"buffer\":987654}", NULL, 0);
    assert_error_answer(answer, GT_ERR_NOT_FOUND, ENOENT, "no buffer 987654");
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

static void test_unknown_kernel_id(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"launch\",\"id\":2,\"kernel\":424242,\"range\":{\"dims\":1,"
                                    "\"global\":[64],\"local\":[64]},\"args\":[]}", NULL, 0);
    assert_error_answer(answer, GT_ERR_NOT_FOUND, ENOENT, "no kernel 424242");
    cJSON_Delete(answer);
    answer = raw_client_call(&rc, "{\"type\":\"kernel_release\",\"id\":3,\"kernel\":424242}", NULL, 0);
    assert_error_answer(answer, GT_ERR_NOT_FOUND, ENOENT, "no kernel 424242");
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

static void test_unknown_event_id(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    assert_api_error(&fx, a.c, gt_wait(a.c, 999999), GT_ERR_NOT_FOUND, ENOENT, "wait: this connection has no event 999999");
    char *json = NULL;
    assert_api_error(&fx, a.c, gt_report(a.c, 999998, &json), GT_ERR_NOT_FOUND, ENOENT, "no event 999998");
    assert_null(json);
    assert_api_error(&fx, a.c, gt_event_release(a.c, 999997), GT_ERR_NOT_FOUND, ENOENT, "no event 999997");
    assert_api_error(&fx, a.c, gt_cancel(a.c, 999995), GT_ERR_NOT_FOUND, ENOENT, "cancel: this connection has no event 999995");
    gt_launch_options opts = gt_launch_options_default();
    gt_event wait_for = 999996, ev;
    opts.wait = &wait_for;
    opts.nwait = 1;
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i32(1)};
    assert_api_error(&fx, a.c, gt_launch(a.c, a.fill, &range, args, 2, &opts, &ev), GT_ERR_NOT_FOUND, ENOENT,
                     "wait[0] is not an event");
    /* A launch that is done cannot be cancelled: -EALREADY, from a valid answer. */
    opts = gt_launch_options_default();
    assert_int_equal(gt_launch(a.c, a.fill, &range, args, 2, &opts, &ev), 0);
    assert_int_equal(gt_wait(a.c, ev), 0);
    assert_int_equal(gt_cancel(a.c, ev), -EALREADY);
    assert_int_equal(gt_event_release(a.c, ev), 0);
    opts.deadline_ms = 86400001;
    assert_int_equal(gt_launch(a.c, a.fill, &range, args, 2, &opts, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(a.c), "at most 86400000"));
    api_close(&a);
    assert_still_serving();
}

/* ---- ranges ---------------------------------------------------------------------------------- */

static void launch_range(const gt_range *range, const char *needle)
{
    api_client a;
    api_open(&a);
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i32(1)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, range, args, 2, NULL, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_RANGE, EINVAL, needle);
    api_close(&a);
    assert_still_serving();
}

static void test_zero_size_range(void **state)
{
    (void)state;
    gt_range range = {.dims = 2, .global = {16, 0}, .local = {4, 1}};
    launch_range(&range, "dimension 1 has global size 0");
}

static void test_global_not_multiple_of_local(void **state)
{
    (void)state;
    gt_range range = {.dims = 1, .global = {100}, .local = {8}};
    launch_range(&range, "global size 100 is not a multiple of the local size 8");
}

/* libgridtune refuses 4 dimensions itself, so the daemon's check is reached raw. */
static void test_four_dimensions(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_range range = {.dims = 4, .global = {4, 4, 4}, .local = {1, 1, 1}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i32(1)};
    gt_event ev;
    assert_int_equal(gt_launch(a.c, a.fill, &range, args, 2, NULL, &ev), -EINVAL);
    assert_non_null(strstr(gt_last_error(a.c), "4 dimensions"));
    api_close(&a);

    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    double kernel = raw_load_fill(&rc);
    char req[512];
    snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":3,\"kernel\":%.0f,\"range\":{\"dims\":4,\"global\":"
             "[4,4,4,4],\"local\":[1,1,1,1]},\"args\":[]}", kernel);
    cJSON *answer = raw_client_call(&rc, req, NULL, 0);
    assert_error_answer(answer, GT_ERR_RANGE, EINVAL, "dims 4: expected 1, 2 or 3");
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

/* A launch's answer and keep_event: each bad form is refused with a sentence naming it, and a
 * good one-trip launch on the same connection is then answered once, when it has run. */
static void test_bad_answer_fields(void **state)
{
    (void)state;
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    double kernel = raw_load_fill(&rc);
    static const struct {
        const char *fields, *needle;
    } bad[] = {
        {"\"answer\":\"later\"", "answer \"later\": expected queued or completed"},
        {"\"answer\":1", "field \"answer\" is a number; expected a non-empty string"},
        {"\"answer\":\"\"", "field \"answer\" is a string; expected a non-empty string"},
        {"\"answer\":\"completed\",\"keep_event\":\"no\"", "\"keep_event\" must be true or false"},
        {"\"answer\":\"completed\",\"keep_event\":0", "\"keep_event\" must be true or false"},
        {"\"keep_event\":false", "\"keep_event\": false needs \"answer\": \"completed\""},
        {"\"answer\":\"queued\",\"keep_event\":false", "\"keep_event\": false needs"},
    };
    char req[1024];
    double buffer = raw_client_buffer(&rc, 30, 256);
    cJSON *answer;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":%zu,\"kernel\":%.0f,\"range\":{\"dims\":1,"
                 "\"global\":[64],\"local\":[64]},\"args\":[{\"buffer\":%.0f},{\"i32\":1}],%s}", 10 + i, kernel, buffer,
                 bad[i].fields);
        cJSON *refusal = raw_client_call(&rc, req, NULL, 0);
        assert_error_answer(refusal, GT_ERR_REQUEST, EINVAL, bad[i].needle);
        cJSON_Delete(refusal);
    }
    /* the same connection goes on: a one-trip launch is answered once, when it has run, with
       no event when none is kept */
    for (int keep = 0; keep < 2; keep++) {
        snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":%d,\"kernel\":%.0f,\"range\":{\"dims\":1,"
                 "\"global\":[64],\"local\":[64]},\"args\":[{\"buffer\":%.0f},{\"i32\":1}],\"answer\":\"completed\"%s}",
                 31 + keep, kernel, buffer, keep ? "" : ",\"keep_event\":false");
        answer = raw_client_call(&rc, req, NULL, 0);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 31 + keep);
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(answer, "event") != NULL, keep);
        cJSON_Delete(answer);
    }
    answer = raw_client_call(&rc, "{\"type\":\"status\",\"id\":99}", NULL, 0); /* the next answer is its own */
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 99);
    cJSON_Delete(answer);
    raw_client_close(&rc);
    assert_still_serving();
}

static void test_bad_schedule(void **state)
{
    (void)state;
    api_client a;
    api_open(&a);
    gt_launch_options opts = gt_launch_options_default();
    opts.schedule = "group=spiral:3";
    gt_range range = {.dims = 1, .global = {1024}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(a.buf), gt_arg_i32(1)};
    gt_event ev;
    int rc = gt_launch(a.c, a.fill, &range, args, 2, &opts, &ev);
    assert_api_error(&fx, a.c, rc, GT_ERR_SCHEDULE, EINVAL, "schedule \"group=spiral:3\"");
    api_close(&a);
    assert_still_serving();
}

/* ---- buffers --------------------------------------------------------------------------------- */

static void buffer_create_with(const int *fds, unsigned nfds, const char *code, int errnum, const char *needle)
{
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    cJSON *answer = raw_client_call(&rc, "{\"type\":\"buffer_create\",\"id\":2,\"size\":4096}", fds, nfds);
    assert_error_answer(answer, code, errnum, needle);
    cJSON_Delete(answer);
    assert_connection_goes_on(&rc);
    raw_client_close(&rc);
    assert_still_serving();
}

static void test_memfd_without_seals(void **state)
{
    (void)state;
    int fd = memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    buffer_create_with(&fd, 1, GT_ERR_BUFFER, EPERM, "not sealed with F_SEAL_SHRINK");
    close(fd);
}

/* A memfd sealed and sized as asked, with the extra seals given. */
static int sealed_memfd(int extra_seals)
{
    int fd = memfd_create("sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | extra_seals), 0);
    return fd;
}

/* Descriptors an executor could not map for reading and writing are refused when the buffer is
 * made, not at its first launch. */
static void test_memfd_sealed_against_writes(void **state)
{
    (void)state;
    int seals[] = {F_SEAL_WRITE, F_SEAL_FUTURE_WRITE};
    for (size_t i = 0; i < sizeof seals / sizeof seals[0]; i++) {
        int fd = sealed_memfd(seals[i]);
        buffer_create_with(&fd, 1, GT_ERR_BUFFER, EPERM, "sealed against writes");
        close(fd);
    }
}

static void test_memfd_not_open_for_writing(void **state)
{
    (void)state;
    int fd = sealed_memfd(0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int modes[] = {O_RDONLY, O_PATH};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int other = open(path, modes[i] | O_CLOEXEC);
        assert_true(other >= 0);
        buffer_create_with(&other, 1, GT_ERR_BUFFER, EINVAL, "not open for reading and writing");
        close(other);
    }
    close(fd);
}

static void test_buffer_not_a_memfd(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    buffer_create_with(&p[0], 1, GT_ERR_BUFFER, EINVAL, "not a memfd");
    close(p[0]);
    close(p[1]);
}

static void test_buffer_without_fd(void **state)
{
    (void)state;
    buffer_create_with(NULL, 0, GT_ERR_REQUEST, EINVAL, "buffer_create carries 1 file descriptor, but 0 came");
}

/* ---- kernels --------------------------------------------------------------------------------- */

static void test_compile_error(void **state)
{
    (void)state;
    gt_client *c = daemon_fixture_connect(&fx);
    static const char source[] = "#include <gridtune/kernel.h>\n"
                                 "GT_KERNEL(broken, int32_t *, dst)\n"
                                 "{ dst[0] = no_such_variable; }\n";
    gt_kernel *k = NULL;
    int rc = gt_kernel_build(c, source, "broken", NULL, &k);
    assert_null(k);
    assert_api_error(&fx, c, rc, GT_ERR_BUILD, ENOEXEC, "no_such_variable");
    gt_disconnect(c);
    assert_still_serving();
}

/* The compile error left the builder working: a good source builds and runs. */
static void test_build_after_compile_error(void **state)
{
    (void)state;
    gt_client *c = daemon_fixture_connect(&fx);
    static const char source[] = "#include <gridtune/kernel.h>\n"
                                 "GT_KERNEL(twice, int32_t *, dst, int32_t, v)\n"
                                 "{ dst[gt_global_id(0)] = v + 2 * (int32_t)gt_global_id(0); }\n";
    gt_kernel *k;
    gt_buffer *b;
    if (gt_kernel_build(c, source, "twice", NULL, &k) != 0)
        fail_msg("a good kernel did not build: %s", gt_last_error(c));
    assert_int_equal(gt_buffer_create(c, 256 * sizeof(int32_t), &b), 0);
    gt_range range = {.dims = 1, .global = {256}, .local = {16}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(-5)};
    gt_event ev;
    assert_int_equal(gt_launch(c, k, &range, args, 2, NULL, &ev), 0);
    assert_int_equal(gt_wait(c, ev), 0);
    const int32_t *data = gt_buffer_data(b);
    for (int32_t i = 0; i < 256; i++)
        assert_int_equal(data[i], -5 + 2 * i);
    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
    assert_still_serving();
}

static void test_module_path_missing(void **state)
{
    (void)state;
    gt_client *c = daemon_fixture_connect(&fx);
    gt_kernel *k = NULL;
    int rc = gt_kernel_load(c, "/nonexistent-gridtune-test/kernels.so", "fill", &k);
    assert_null(k);
    assert_api_error(&fx, c, rc, GT_ERR_LOAD, ENOENT, "/nonexistent-gridtune-test/kernels.so");
    gt_disconnect(c);
    assert_still_serving();
}

static void test_kernel_name_missing(void **state)
{
    (void)state;
    gt_client *c = daemon_fixture_connect(&fx);
    gt_kernel *k = NULL;
    int rc = gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "no_such_kernel", &k);
    assert_null(k);
    assert_api_error(&fx, c, rc, GT_ERR_LOAD, ENOENT, "has no kernel \"no_such_kernel\"");
    gt_disconnect(c);
    assert_still_serving();
}

/* ---- wisdom ------------------------------------------------------------------------------------ */

/* A good import is merged and saved before the answer; a clear empties the file of it (the
 * steady client's launches may decide entries of their own meanwhile, never this one). */
static void test_wisdom_import_and_clear(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"format\":\"gridtune-wisdom\",\"version\":1,\"entries\":[{\"kernel\":\"imported_by_test\","
        "\"kernel_hash\":\"0123456789abcdef\",\"machine\":\"fedcba9876543210\",\"range\":{\"dims\":1,"
        "\"global\":[1024,1,1],\"local\":[64,1,1]},\"workers\":2,\"schedule\":\"item=tiled:4x4,assign=block\","
        "\"metric\":\"time\",\"cost\":1.25,\"gain\":0.3,\"decided\":1795000000}]}";
    gt_client *c = daemon_fixture_connect(&fx);
    size_t merged = 0, cleared = 0;
    if (gt_daemon_wisdom_import(c, doc, &merged) != 0)
        fail_msg("a good wisdom document was refused: %s", gt_last_error(c));
    assert_int_equal(merged, 1);
    assert_true(daemon_fixture_file_has(fx.wisdom, "\"imported_by_test\""));
    if (gt_daemon_wisdom_clear(c, &cleared) != 0)
        fail_msg("clearing the wisdom failed: %s", gt_last_error(c));
    assert_true(cleared >= 1);
    assert_false(daemon_fixture_file_has(fx.wisdom, "\"imported_by_test\""));
    gt_disconnect(c);
    assert_still_serving();
}

/* ---- HTTP -------------------------------------------------------------------------------------- */

typedef struct http_answer {
    int code;
    char content_type[128];
    char allow[64];
    char *body; /* NUL-terminated; free() it */
} http_answer;

/* One HTTP/1.0 request to the daemon's HTTP address, read until the daemon closes. */
static http_answer http_request(const char *method, const char *path)
{
    char host[sizeof fx.http];
    snprintf(host, sizeof host, "%s", fx.http);
    char *colon = strrchr(host, ':');
    if (!colon)
        fail_msg("the status names no HTTP address (\"%s\")", fx.http);
    *colon = '\0';
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    assert_int_equal(inet_pton(AF_INET, host, &addr.sin_addr), 1);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0)
        fail_msg("cannot connect to %s: %s", fx.http, strerror(errno));
    char req[512];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: %s\r\nContent-Length: 0\r\n\r\n", method, path, fx.http);
    assert_int_equal(send(s, req, (size_t)n, MSG_NOSIGNAL), n);
    char *text = malloc(HTTP_MAX_ANSWER + 1);
    size_t len = 0;
    for (;;) {
        struct pollfd p = {.fd = s, .events = POLLIN};
        if (poll(&p, 1, DAEMON_FIXTURE_GUARD_SECONDS * 1000) != 1)
            fail_msg("no HTTP answer to %s %s within %d s", method, path, DAEMON_FIXTURE_GUARD_SECONDS);
        ssize_t got = recv(s, text + len, HTTP_MAX_ANSWER - len, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            fail_msg("reading the HTTP answer failed: %s", strerror(errno));
        if (got == 0)
            break;
        len += (size_t)got;
        if (len == HTTP_MAX_ANSWER)
            fail_msg("the HTTP answer to %s %s is over %u bytes", method, path, HTTP_MAX_ANSWER);
    }
    close(s);
    text[len] = '\0';
    http_answer a = {.code = 0};
    if (sscanf(text, "HTTP/1.%*d %d", &a.code) != 1)
        fail_msg("not an HTTP answer: %.200s", text);
    char *end = strstr(text, "\r\n\r\n");
    if (!end)
        fail_msg("the HTTP answer has no end of headers: %.200s", text);
    *end = '\0';
    const char *ct = strcasestr(text, "\r\nContent-Type: ");
    if (ct)
        sscanf(ct + 16, "%127[^\r\n]", a.content_type);
    const char *allow = strcasestr(text, "\r\nAllow: ");
    if (allow)
        sscanf(allow + 9, "%63[^\r\n]", a.allow);
    a.body = strdup(end + 4);
    free(text);
    return a;
}

static void test_http_status(void **state)
{
    (void)state;
    http_answer a = http_request("GET", "/status");
    assert_int_equal(a.code, 200);
    assert_string_equal(a.content_type, "application/json");
    cJSON *st = cJSON_Parse(a.body);
    assert_true(cJSON_IsObject(st));
    assert_int_equal(daemon_fixture_status_number(st, "pid"), fx.pid);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "http")), fx.http);
    assert_true(daemon_fixture_status_number(st, "clients") >= 1);
    cJSON_Delete(st);
    free(a.body);
    char said[256];
    snprintf(said, sizeof said, "HTTP on %s is public (--http-public): anyone who can reach it reads every user's "
             "launch reports", fx.http);
    assert_true(daemon_fixture_log_has_line(&fx, said));
}

static void test_http_reports_limit(void **state)
{
    (void)state;
    assert_steady_progress(); /* so that there are at least two reports */
    http_answer a = http_request("GET", "/reports?limit=2");
    assert_int_equal(a.code, 200);
    assert_string_equal(a.content_type, "application/json");
    cJSON *list = cJSON_Parse(a.body);
    assert_true(cJSON_IsArray(list));
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *report;
    cJSON_ArrayForEach(report, list)
    {
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "format")),
                            "gridtune-report");
        assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "id")));
    }
    cJSON_Delete(list);
    free(a.body);

    /* The protocol's reports request answers in the same form. */
    gt_client *c = daemon_fixture_connect(&fx);
    char *json;
    assert_int_equal(gt_reports(c, 2, &json), 0);
    list = cJSON_Parse(json);
    free(json);
    assert_true(cJSON_IsArray(list) && cJSON_GetArraySize(list) <= 2);
    cJSON_Delete(list);
    gt_disconnect(c);

    a = http_request("GET", "/reports?limit=0");
    assert_int_equal(a.code, 400);
    assert_non_null(strstr(a.body, "limit"));
    free(a.body);
}

static void test_http_report_by_id(void **state)
{
    (void)state;
    unsigned long id = fresh_client_launch();
    char path[64];
    snprintf(path, sizeof path, "/reports/%lu", id);
    http_answer a = http_request("GET", path);
    assert_int_equal(a.code, 200);
    assert_string_equal(a.content_type, "application/json");
    cJSON *report = cJSON_Parse(a.body);
    char want[32];
    snprintf(want, sizeof want, "%lu", id);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "id")), want);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "kernel")), "fill");
    cJSON_Delete(report);
    free(a.body);

    a = http_request("GET", "/reports/987654321");
    assert_int_equal(a.code, 404);
    free(a.body);
}

/* The value of the sample `name` (labels included) in Prometheus text, or -1 if absent. */
static double metric_value(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, name, n) == 0 && line[n] == ' ')
            return strtod(line + n + 1, NULL);
    return -1;
}

/* Every line a comment or `name{labels} value`, as Prometheus' text format has them. */
static void assert_prometheus_text(const char *text)
{
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0)
            continue;
        size_t name = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
        char *rest = line + name;
        if (*rest == '{')
            rest = strchr(rest, '}') ? strchr(rest, '}') + 1 : rest;
        char *end;
        if (name == 0 || *rest != ' ' || (strtod(rest + 1, &end), *end != '\0'))
            fail_msg("not a Prometheus sample line: \"%s\"", line);
    }
    free(copy);
}

static void test_http_metrics(void **state)
{
    (void)state;
    assert_steady_progress();
    http_answer a = http_request("GET", "/metrics");
    assert_int_equal(a.code, 200);
    assert_string_equal(a.content_type, "text/plain; version=0.0.4");
    assert_prometheus_text(a.body);
    assert_true(metric_value(a.body, "gridtune_launches_total{outcome=\"succeeded\"}") >= STEADY_PROGRESS);
    assert_true(metric_value(a.body, "gridtune_errors_total") >= 1); /* the bad inputs before */
    assert_true(metric_value(a.body, "gridtune_clients") >= 2);      /* the steady one and ours */
    assert_true(metric_value(a.body, "gridtune_partial_frame_bytes") >= 0); /* present: -1 when not */
    assert_true(metric_value(a.body, "gridtune_answer_bytes") >= 0);
    free(a.body);
}

static void test_http_unknown_path(void **state)
{
    (void)state;
    http_answer a = http_request("GET", "/nothing-here");
    assert_int_equal(a.code, 404);
    assert_non_null(strstr(a.body, "/status"));
    free(a.body);
}

/* Every method but GET is answered 405 by gridtuned, saying which one is allowed. */
static void test_http_post_is_405(void **state)
{
    (void)state;
    http_answer a = http_request("POST", "/status");
    free(a.body);
    assert_int_equal(a.code, 405);
    assert_string_equal(a.allow, "GET");
    a = http_request("DELETE", "/reports/1");
    free(a.body);
    assert_int_equal(a.code, 405);
}

/* ---- the group ------------------------------------------------------------------------------- */

/* A TCP port serves every user's reports to anyone, so it takes --http-public (test_http_access
   shows it is refused without, and the Unix socket's peer checks). */
static const char *const http_flags[] = {"--http", "127.0.0.1:0", "--http-public", NULL};

static int group_setup(void **state)
{
    (void)state;
    daemon_fixture_start(&fx, GT_DAEMON_TRACE, http_flags);
    status_client = daemon_fixture_connect(&fx);
    baseline_fds = daemon_fixture_fd_count(&fx);
    steady_start();
    return 0;
}

/* The group's last tests, not its teardown: cmocka 1.1.5 reports a failed group teardown but
 * still exits 0, which would let ctest pass. */

/* The steady client was served throughout the bad input; once it and every other client are
 * gone, the daemon holds the descriptors it held before they came, and no buffer. */
static void test_steady_client_served_throughout(void **state)
{
    (void)state;
    steady_stop();
    print_message("the steady client completed %u launches\n", atomic_load(&steady.launches));
    assert_steady_healthy();
    assert_true(atomic_load(&steady.launches) > 0);
    daemon_fixture_wait_quiet(status_client, 1);
    assert_int_equal(daemon_fixture_fd_count(&fx), baseline_fds);
    assert_int_equal(daemon_fixture_buffer_map_count(&fx), 0);
}

/* SIGTERM: exit status 0, no sanitizer report, no socket left, "stopped" logged. */
static void test_daemon_stops_cleanly(void **state)
{
    (void)state;
    if (status_client)
        gt_disconnect(status_client);
    status_client = NULL;
    int status = daemon_fixture_stop(&fx);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("gridtuned ended with wait status 0x%x after SIGTERM; expected exit status 0", (unsigned)status);
    daemon_fixture_clean_up(&fx);
}

/* What is left when a test failed before the last ones ran. */
static int group_teardown(void **state)
{
    (void)state;
    steady_stop();
    if (status_client)
        gt_disconnect(status_client);
    if (fx.pid > 0)
        daemon_fixture_stop(&fx);
    daemon_fixture_clean_up(&fx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_garbage_bytes),
        cmocka_unit_test(test_garbage_descriptor_count),
        cmocka_unit_test(test_truncated_frame),
        cmocka_unit_test(test_oversized_frame),
        cmocka_unit_test(test_invalid_json),
        cmocka_unit_test(test_unknown_message_type),
        cmocka_unit_test(test_request_types_match_schemas),
        cmocka_unit_test(test_request_before_hello),
        cmocka_unit_test(test_wrong_protocol_version),
        cmocka_unit_test(test_wrong_argument_count),
        cmocka_unit_test(test_scalar_for_buffer_argument),
        cmocka_unit_test(test_scalar_of_wrong_width),
        cmocka_unit_test(test_buffer_too_small_for_range),
        cmocka_unit_test(test_float_for_integer_argument),
        cmocka_unit_test(test_unknown_buffer_id),
        cmocka_unit_test(test_unknown_kernel_id),
        cmocka_unit_test(test_unknown_event_id),
        cmocka_unit_test(test_zero_size_range),
        cmocka_unit_test(test_global_not_multiple_of_local),
        cmocka_unit_test(test_four_dimensions),
        cmocka_unit_test(test_bad_schedule),
        cmocka_unit_test(test_bad_answer_fields),
        cmocka_unit_test(test_memfd_without_seals),
        cmocka_unit_test(test_memfd_sealed_against_writes),
        cmocka_unit_test(test_memfd_not_open_for_writing),
        cmocka_unit_test(test_buffer_not_a_memfd),
        cmocka_unit_test(test_buffer_without_fd),
        cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_build_after_compile_error),
        cmocka_unit_test(test_module_path_missing),
        cmocka_unit_test(test_kernel_name_missing),
        cmocka_unit_test(test_wisdom_import_and_clear),
        cmocka_unit_test(test_http_status),
        cmocka_unit_test(test_http_reports_limit),
        cmocka_unit_test(test_http_report_by_id),
        cmocka_unit_test(test_http_metrics),
        cmocka_unit_test(test_http_unknown_path),
        cmocka_unit_test(test_http_post_is_405),
        cmocka_unit_test(test_steady_client_served_throughout),
        cmocka_unit_test(test_daemon_stops_cleanly),
    };
    return cmocka_run_group_tests_name("gridtuned against bad input", tests, group_setup, group_teardown);
}
