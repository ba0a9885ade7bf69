/* test_daemon_life.c: a real gridtuned through a client's life and its own: concurrent
 * clients, a client killed with SIGKILL in the middle of a launch, a shutdown with launches
 * queued and one with a launch that outlives the grace period, and the limits that keep
 * careless or hostile clients from hurting the others: connections, partial frames, buffers
 * of all users, descriptors. Each test has a daemon of its own, whose trace goes to
 * GT_DAEMON_LIFE_TRACES/<test>.jsonl for daemon_life_protocol to validate.
 *
 * "During a launch" is made certain, not likely: the hold kernel runs until a process the
 * test controls is gone, so a launch stays running exactly as long as the test needs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"
#include "tests/fixtures/temp_dir.h"

#include "daemon/session.h" /* GT_REFUSED_LINGER_MAX, GT_SESSION_LOG_BURST */
#include "engine/guarded_map.h" /* GT_GUARDED_MAP_MAPPINGS */
#include "protocol/protocol.h"
#include "protocol/wire.h"
#include "tuner/clock.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_TEST_DAEMON_MODULE
#error "GT_TEST_DAEMON_MODULE must name the test kernel module"
#endif
#ifndef GT_DAEMON_LIFE_TRACES
#error "GT_DAEMON_LIFE_TRACES must name the directory for the daemons' traces"
#endif

#define CLIENTS 4
#define LAUNCHES_PER_CLIENT 12
#define ITEMS 4096
#define KILLED_BUFFERS 3
#define KILLED_BUFFER_BYTES (8u << 20)
#define SHUTDOWN_CLIENTS 3
#define SHUTDOWN_LAUNCHES 3
/* hold's cap on its 1 ms polls: far beyond any guard, so a launch that ends did so because
 * the process it watches was gone. */
#define HOLD_MAX_POLLS 120000
#define HOLD_ITEMS 2
/* What hold stores in its work-item's element as it starts. */
#define HOLD_RUNNING (-1)

typedef struct life {
    daemon_fixture fx;
    pid_t helper; /* a child process of the test, killed and reaped by the teardown */
    pid_t gate;   /* another, the same */
} life;

/* Small limits for test_limits; the other tests run with the defaults. */
static const char *const small_limits[] = {"--max-buffers", "2", "--max-buffer-bytes", "64K", "--max-kernels", "1",
                                           "--max-inflight", "1", NULL};

/* System mode, open to this process's group, loading modules only from the test module's
 * directory. */
static const char *const *system_mode(void)
{
    static char group[256], dir[PATH_MAX];
    static const char *flags[] = {"--system", "--group", group, "--module-dir", dir, NULL};
    struct group *g = getgrgid(getgid());
    if (!g)
        fail_msg("this process's group %u has no name", (unsigned)getgid());
    snprintf(group, sizeof group, "%s", g->gr_name);
    snprintf(dir, sizeof dir, "%s", GT_TEST_DAEMON_MODULE);
    *strrchr(dir, '/') = '\0';
    return flags;
}

/* The flags of the daemons that test one limit each. */
static const struct {
    const char *test;
    const char *flags[8];
} limit_flags[] = {
    {"runaway_stop", {"--stop-grace", "1"}},
    {"frame_deadline", {"--frame-timeout", "1"}},
    {"hello_deadline", {"--frame-timeout", "1"}},
    {"waiting", {"--max-waiting", "2"}},
    {"unread_output", {"--max-output", "64K"}},
    {"total_output", {"--max-total-output", "64K"}},
    {"partial_bytes", {"--max-partial-bytes", "64K"}},
    {"partial_share", {"--max-partial-bytes", "64K"}},
    {"paused_reading", {"--max-partial-bytes", "64K"}},
    {"user_clients", {"--max-user-clients", "2"}},
    {"total_clients", {"--max-clients", "2", "--max-user-clients", "5"}},
    {"user_buffers", {"--max-user-buffers", "2"}},
    {"total_buffers", {"--max-total-buffers", "2", "--max-total-buffer-bytes", "1M"}},
    {"refining_launch", {"--refine-limit", "1"}},
    {"wisdom_limit", {"--max-wisdom-entries", "2"}},
};

static void start_daemon(life *l, const char *name)
{
    char trace[PATH_MAX];
    if (mkdir(GT_DAEMON_LIFE_TRACES, 0755) != 0 && errno != EEXIST)
        fail_msg("cannot create %s: %s", GT_DAEMON_LIFE_TRACES, strerror(errno));
    snprintf(trace, sizeof trace, "%s/%s.jsonl", GT_DAEMON_LIFE_TRACES, name);
    const char *const *extra = strcmp(name, "limits") == 0        ? small_limits
                               : strcmp(name, "system_mode") == 0 ? system_mode()
                                                                  : NULL;
    for (size_t i = 0; i < sizeof limit_flags / sizeof limit_flags[0]; i++)
        if (strcmp(name, limit_flags[i].test) == 0)
            extra = limit_flags[i].flags;
    daemon_fixture_start(&l->fx, trace, extra);
}

static int teardown(void **state)
{
    life *l = *state;
    pid_t children[] = {l->helper, l->gate};
    for (size_t i = 0; i < sizeof children / sizeof children[0]; i++)
        if (children[i] > 0) {
            kill(children[i], SIGKILL);
            waitpid(children[i], NULL, 0);
        }
    if (l->fx.pid > 0) {
        int status = daemon_fixture_stop(&l->fx);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    daemon_fixture_clean_up(&l->fx);
    free(l);
    return 0;
}

#define SETUP(name)                                                                                 \
    static int setup_##name(void **state)                                                           \
    {                                                                                               \
        life *l = calloc(1, sizeof *l);                                                             \
        assert_non_null(l);                                                                         \
        *state = l;                                                                                 \
        start_daemon(l, #name);                                                                     \
        return 0;                                                                                   \
    }

/* Waits, through c, until the status number at `path` reaches `want`. */
static void wait_status_number(gt_client *c, const char *path, double want)
{
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    for (;;) {
        cJSON *st = daemon_fixture_status(c);
        double have = daemon_fixture_status_number(st, path);
        cJSON_Delete(st);
        if (have == want)
            return;
        if (gt_clock_ms() > deadline)
            fail_msg("the status's %s stayed at %g, not %g, for %d s", path, have, want, DAEMON_FIXTURE_GUARD_SECONDS);
        gt_clock_sleep_ms(10);
    }
}

/* A child that only waits to be killed: a process whose end releases hold launches. */
static pid_t start_gate(void)
{
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

static void kill_and_reap(pid_t *pid)
{
    assert_int_equal(kill(*pid, SIGKILL), 0);
    assert_int_equal(waitpid(*pid, NULL, 0), *pid);
    *pid = 0;
}

/* ---- concurrent clients ------------------------------------------------------------------ */

typedef struct client_run {
    const daemon_fixture *fx;
    unsigned index;
    char report_ids[LAUNCHES_PER_CLIENT][24];
    unsigned launches;
    char problem[1024]; /* empty when all went well; threads cannot use cmocka's asserts */
} client_run;

static const gt_range client_ranges[] = {
    {.dims = 1, .global = {ITEMS}, .local = {64}},
    {.dims = 2, .global = {64, 64}, .local = {8, 8}},
    {.dims = 3, .global = {16, 16, 16}, .local = {4, 4, 4}},
};

/* One launch of fill, checked element by element, and its report's id; false on a problem. */
static bool client_launch(client_run *run, gt_client *c, gt_kernel *k, gt_buffer *b, unsigned i)
{
    int32_t *data = gt_buffer_data(b);
    int32_t v = (int32_t)(run->index * 100000 + i * 1000);
    memset(data, 0xff, ITEMS * sizeof *data);
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(v)};
    gt_event ev;
    char *json = NULL;
    int rc = gt_launch(c, k, &client_ranges[i % 3], args, 2, NULL, &ev);
    if (!rc)
        rc = gt_wait(c, ev);
    if (!rc)
        rc = gt_report(c, ev, &json);
    if (!rc)
        rc = gt_event_release(c, ev);
    if (rc) {
        snprintf(run->problem, sizeof run->problem, "client %u, launch %u: %s", run->index, i, gt_last_error(c));
        free(json);
        return false;
    }
    cJSON *report = cJSON_Parse(json);
    free(json);
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "id"));
    snprintf(run->report_ids[i], sizeof run->report_ids[i], "%s", id ? id : "");
    cJSON_Delete(report);
    for (int32_t j = 0; j < ITEMS; j++) {
        if (data[j] != v + j) {
            snprintf(run->problem, sizeof run->problem, "client %u, launch %u: element %d is %d; expected %d",
                     run->index, i, j, data[j], v + j);
            return false;
        }
    }
    run->launches++;
    return true;
}

static void *client_main(void *arg)
{
    client_run *run = arg;
    gt_client *c = NULL;
    gt_kernel *k = NULL;
    gt_buffer *b = NULL;
    if (gt_connect(run->fx->socket, &c) || gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k) ||
        gt_buffer_create(c, ITEMS * sizeof(int32_t), &b)) {
        snprintf(run->problem, sizeof run->problem, "client %u could not start: %s", run->index, gt_last_error(c));
    } else {
        for (unsigned i = 0; i < LAUNCHES_PER_CLIENT && client_launch(run, c, k, b, i); i++)
            ;
    }
    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
    return NULL;
}

SETUP(concurrent_clients)

/* ---- launches answered on completion --------------------------------------------------------- */

/* A client of l's daemon with fill loaded and a buffer of ITEMS int32s for it. */
static gt_client *connect_with_fill(life *l, gt_kernel **k, gt_buffer **b)
{
    gt_client *c = daemon_fixture_connect(&l->fx);
    assert_int_equal(gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", k), 0);
    assert_int_equal(gt_buffer_create(c, ITEMS * sizeof(int32_t), b), 0);
    return c;
}

SETUP(one_trip)

/* gt_run returns once the launch has run (its output is there), whether it ran on the workers
 * or, being one workgroup, on the launcher thread; and whatever the client asks next sees it
 * done: counted by status, its report kept. Without a place for the event nothing is kept for
 * the client to release; with one, the event serves gt_report and gt_event_release. */
static void test_one_trip(void **state)
{
    life *l = *state;
    gt_kernel *k;
    gt_buffer *b;
    gt_client *c = connect_with_fill(l, &k, &b);
    int32_t *data = gt_buffer_data(b);
    const gt_range ranges[] = {{.dims = 1, .global = {ITEMS}, .local = {64}}, {.dims = 1, .global = {64}, .local = {64}}};
    for (int32_t i = 0; i < 8; i++) {
        const gt_range *r = &ranges[i % 2];
        memset(data, 0xff, ITEMS * sizeof *data);
        gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(i * 10000)};
        if (gt_run(c, k, r, args, 2, NULL, NULL) != 0)
            fail_msg("gt_run %d: %s", i, gt_last_error(c));
        for (uint32_t j = 0; j < r->global[0]; j++)
            if (data[j] != i * 10000 + (int32_t)j)
                fail_msg("gt_run %d returned with element %u at %d; expected %d", i, j, data[j], i * 10000 + (int32_t)j);
        cJSON *st = daemon_fixture_status(c);
        assert_int_equal(daemon_fixture_status_number(st, "launches.succeeded"), i + 1);
        cJSON_Delete(st);
        char *reports = NULL;
        assert_int_equal(gt_reports(c, 1, &reports), 0);
        cJSON *list = cJSON_Parse(reports);
        free(reports);
        const cJSON *newest = cJSON_GetArrayItem(list, 0);
        assert_int_equal(cJSON_GetArraySize(list), 1);
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(newest, "groups_total")),
                         r->global[0] / 64);
        cJSON_Delete(list);
    }
    gt_event ev = 0;
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(7)};
    assert_int_equal(gt_run(c, k, &ranges[0], args, 2, NULL, &ev), 0);
    assert_true(ev > 0);
    char *json = NULL;
    assert_int_equal(gt_report(c, ev, &json), 0);
    assert_non_null(strstr(json, "\"source\":\"default\""));
    free(json);
    assert_int_equal(gt_event_release(c, ev), 0);
    /* a one-trip launch refused before it ran leaves no event */
    gt_launch_options bad = gt_launch_options_default();
    bad.schedule = "group=sideways";
    ev = 99;
    assert_api_error(&l->fx, c, gt_run(c, k, &ranges[0], args, 2, &bad, &ev), GT_ERR_SCHEDULE, EINVAL, "sideways");
    assert_int_equal(ev, 0);
    cJSON *st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "launches.succeeded"), 9);
    assert_int_equal(daemon_fixture_status_number(st, "launches.queued") + daemon_fixture_status_number(st, "launches.running"), 0);
    cJSON_Delete(st);
    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* A raw connection with fill and a buffer for it, for one-trip launches that keep no event. */
#define ONE_TRIP_MAX_GROUPS 4096

typedef struct one_trip_client {
    raw_client rc;
    double kernel, buffer;
} one_trip_client;

static void one_trip_open(one_trip_client *o, const daemon_fixture *fx)
{
    raw_client_open_hello(&o->rc, fx);
    o->kernel = raw_client_load(&o->rc, 2, GT_TEST_DAEMON_MODULE, "fill");
    o->buffer = raw_client_buffer(&o->rc, 3, ONE_TRIP_MAX_GROUPS * 64 * sizeof(int32_t));
}

/* Sends a one-trip launch of `groups` workgroups as request id and reads its answer, which
 * must be its result. A range new to the daemon is analysed, and the decision saved to the
 * wisdom file after the answer went out: the session then waits for the loop the longest. */
static void one_trip_launch(one_trip_client *o, unsigned id, unsigned groups)
{
    char req[512];
    assert_true(groups <= ONE_TRIP_MAX_GROUPS);
    snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":%u,\"kernel\":%.0f,\"range\":{\"dims\":1,\"global\":[%u],"
             "\"local\":[64]},\"args\":[{\"buffer\":%.0f},{\"i32\":1}],\"answer\":\"completed\",\"keep_event\":false}",
             id, o->kernel, groups * 64, o->buffer);
    cJSON *answer = raw_client_call(&o->rc, req, NULL, 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), id);
    cJSON_Delete(answer);
}

static void expect_result(raw_client *rc, unsigned id)
{
    cJSON *answer = raw_client_read(rc);
    if (!answer)
        fail_msg("gridtuned closed the connection instead of answering request %u", id);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type"));
    if (strcmp(type, "result") != 0 || cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")) != id) {
        char *text = cJSON_PrintUnformatted(answer);
        fail_msg("expected the result of request %u, got %s", id, text);
    }
    cJSON_Delete(answer);
}

#define PAUSED_ROUNDS 30
#define PAUSED_FRAMES 4
#define PAUSED_FRAME 20000

SETUP(paused_reading)

/* Right after each one-trip answer, while the session may still wait for the loop to take
 * that launch back, the client sends 80,000 bytes of whole status frames (white space after
 * the JSON): more than --max-partial-bytes 64K together, each well under it. The daemon does
 * not read a paused session, so the frames wait in the socket and never count as partly
 * received: every one is answered. (It read on, held them all, and dropped the client.) */
static void test_paused_reading(void **state)
{
    life *l = *state;
    one_trip_client o;
    one_trip_open(&o, &l->fx);
    static char frames[PAUSED_FRAMES][GT_WIRE_HEADER + PAUSED_FRAME];
    for (unsigned round = 0; round < PAUSED_ROUNDS; round++) {
        unsigned first = 10 + round * (PAUSED_FRAMES + 1);
        for (unsigned i = 0; i < PAUSED_FRAMES; i++) {
            memset(frames[i], ' ', sizeof frames[i]);
            gt_wire_header(PAUSED_FRAME, 0, (unsigned char *)frames[i]);
            int n = snprintf(frames[i] + GT_WIRE_HEADER, PAUSED_FRAME, "{\"type\":\"status\",\"id\":%u}", first + 1 + i);
            frames[i][GT_WIRE_HEADER + n] = ' ';
        }
        one_trip_launch(&o, first, 2048 + round);
        raw_client_send_bytes(&o.rc, frames, sizeof frames);
        for (unsigned i = 0; i < PAUSED_FRAMES; i++)
            expect_result(&o.rc, first + 1 + i);
    }
    raw_client_close(&o.rc);
}

SETUP(paused_end)

/* A client gets a one-trip answer, sends a status request and shuts its side. The request it
 * sent whole is answered before the daemon closes, whether or not the session was still
 * waiting for that launch to be taken back when the end of the stream came. (It was answered
 * with a frame error: "the connection ended in the middle of a frame".) */
static void test_paused_end(void **state)
{
    life *l = *state;
    for (unsigned round = 0; round < 20; round++) {
        one_trip_client o;
        one_trip_open(&o, &l->fx);
        one_trip_launch(&o, 10, 2048 + round);
        raw_client_send(&o.rc, "{\"type\":\"status\",\"id\":11}", NULL, 0);
        assert_int_equal(shutdown(o.rc.fd, SHUT_WR), 0);
        expect_result(&o.rc, 11);
        raw_client_expect_closed(&o.rc);
        raw_client_close(&o.rc);
    }
}

SETUP(inline_report)

/* A launch of one workgroup runs on the launcher thread alone, so its report says one worker
 * and no counters, and a metric that needs counters falls back to time; a larger launch runs
 * on the daemon's two workers and says so. (The inline launch was reported with two.) */
static void test_inline_report(void **state)
{
    life *l = *state;
    gt_kernel *k;
    gt_buffer *b;
    gt_client *c = connect_with_fill(l, &k, &b);
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(1)};
    const gt_range small = {.dims = 1, .global = {64}, .local = {64}}, large = {.dims = 1, .global = {ITEMS}, .local = {64}};
    gt_launch_options opts = gt_launch_options_default();
    opts.metric = "l1";
    const struct {
        const gt_range *range;
        double workers;
    } cases[] = {{&small, 1}, {&large, 2}};
    for (int i = 0; i < 2; i++) {
        gt_event ev = 0;
        if (gt_run(c, k, cases[i].range, args, 2, &opts, &ev) != 0)
            fail_msg("gt_run %d: %s", i, gt_last_error(c));
        char *json = NULL;
        assert_int_equal(gt_report(c, ev, &json), 0);
        cJSON *report = cJSON_Parse(json);
        free(json);
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(report, "workers")), cases[i].workers);
        if (i == 0) {
            const cJSON *metric = cJSON_GetObjectItemCaseSensitive(report, "metric");
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(metric, "used")), "time");
            assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(metric, "note")),
                                   "which is not counted here"));
        }
        cJSON_Delete(report);
        assert_int_equal(gt_event_release(c, ev), 0);
    }
    gt_buffer_release(b);
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* ---- launches that keep learning ------------------------------------------------------------- */

SETUP(refining_launch)

static const cJSON *field(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v)
        fail_msg("the report has no \"%s\"", name);
    return v;
}

/* The report of launch ev, parsed; the caller deletes it. */
static cJSON *report_of(gt_client *c, gt_event ev)
{
    char *json = NULL;
    assert_int_equal(gt_report(c, ev, &json), 0);
    cJSON *report = cJSON_Parse(json);
    free(json);
    assert_non_null(report);
    return report;
}

/* A fill kernel's launches over ITEMS items in workgroups of 64, with an entry that is
 * refining imported for their key (kernel hash and machine from a first launch's report,
 * forced so that it leaves no entry of its own): winner group=linear,item=linear,assign=block,
 * with `launches` refining launches so far and the contender zigzag, dynamic:4 whose paired
 * costs so far are the JSON arrays costs and incumbent_costs. */
typedef struct refining {
    gt_client *c;
    gt_kernel *k;
    gt_buffer *b;
    gt_arg args[2];
    gt_range range;
} refining;

static void refining_open(life *l, refining *f, int launches, const char *costs, const char *incumbent_costs)
{
    f->c = connect_with_fill(l, &f->k, &f->b);
    f->args[0] = gt_arg_buffer(f->b);
    f->args[1] = gt_arg_i32(5);
    f->range = (gt_range){.dims = 1, .global = {ITEMS}, .local = {64}};
    gt_client *c = f->c;
    gt_launch_options off = gt_launch_options_default();
    off.tuning = GT_TUNING_OFF;
    gt_event ev = 0;
    if (gt_run(c, f->k, &f->range, f->args, 2, &off, &ev) != 0)
        fail_msg("first launch: %s", gt_last_error(c));
    cJSON *first = report_of(c, ev);
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"format\":\"gridtune-wisdom\",\"version\":1,\"entries\":[{\"kernel\":\"fill\",\"kernel_hash\":\"%s\","
             "\"machine\":\"%s\",\"range\":{\"dims\":1,\"global\":[%d,1,1],\"local\":[64,1,1]},\"workers\":%d,"
             "\"schedule\":\"group=linear,item=linear,assign=block\",\"metric\":\"time\",\"cost\":1,\"gain\":0,"
             "\"decided\":1,\"refine\":{\"state\":\"refining\",\"launches\":%d,\"settled_cost\":null,\"drifted\":0,"
             "\"contenders\":[{\"schedule\":\"group=zigzag,item=linear,assign=dynamic:4\",\"costs\":%s,"
             "\"incumbent_costs\":%s}]}}]}",
             cJSON_GetStringValue(field(first, "kernel_hash")), cJSON_GetStringValue(field(first, "machine")), ITEMS,
             (int)cJSON_GetNumberValue(field(first, "workers")), launches, costs, incumbent_costs);
    cJSON_Delete(first);
    size_t merged = 0;
    if (gt_daemon_wisdom_import(c, doc, &merged) != 0)
        fail_msg("the refining entry was refused: %s", gt_last_error(c));
    assert_int_equal(merged, 1);
}

static void refining_close(refining *f)
{
    gt_buffer_release(f->b);
    gt_kernel_release(f->k);
    gt_disconnect(f->c);
}

/* An entry that is refining, imported for the launch's own key: the next launch runs its
 * contender on a quarter of the workgroups and the winner on the rest, every item still
 * written once; with --refine-limit 1 that launch settles the entry, and the daemon saves the
 * wisdom with it. No timing decides any of it. */
static void test_refining_launch(void **state)
{
    life *l = *state;
    refining f;
    refining_open(l, &f, 0, "[]", "[]");
    gt_client *c = f.c;

    memset(gt_buffer_data(f.b), 0, ITEMS * sizeof(int32_t));
    gt_event ev = 0;
    if (gt_run(c, f.k, &f.range, f.args, 2, NULL, &ev) != 0)
        fail_msg("refining launch: %s", gt_last_error(c));
    const int32_t *data = gt_buffer_data(f.b);
    for (int32_t i = 0; i < ITEMS; i++)
        if (data[i] != 5 + i)
            fail_msg("the refining launch left element %d at %d", i, data[i]);
    cJSON *report = report_of(c, ev);
    const cJSON *decision = field(report, "decision"), *phases = field(report, "phases");
    assert_string_equal(cJSON_GetStringValue(field(decision, "source")), "wisdom");
    assert_string_equal(cJSON_GetStringValue(field(decision, "winner")), "group=linear,item=linear,assign=block");
    const cJSON *refine = field(decision, "refine");
    const cJSON *shares = field(refine, "shares");
    assert_int_equal(cJSON_GetArraySize(shares), 1);
    assert_string_equal(cJSON_GetStringValue(field(cJSON_GetArrayItem(shares, 0), "contender")),
                        "group=zigzag,item=linear,assign=dynamic:4");
    assert_true(cJSON_IsTrue(field(refine, "settled_now")));
    assert_string_equal(cJSON_GetStringValue(field(refine, "state")), "settled");
    assert_int_equal(cJSON_GetNumberValue(field(phases, "groups_analysis")), ITEMS / 64 / 4);
    assert_int_equal(cJSON_GetNumberValue(field(phases, "groups_remainder")), ITEMS / 64 * 3 / 4);
    assert_non_null(strstr(cJSON_GetStringValue(field(decision, "reason")), "refining 1/1"));
    cJSON_Delete(report);
    if (gt_run(c, f.k, &f.range, f.args, 2, NULL, &ev) != 0)
        fail_msg("settled launch: %s", gt_last_error(c));
    report = report_of(c, ev);
    assert_int_equal(cJSON_GetNumberValue(field(field(report, "phases"), "groups_analysis")), 0);
    cJSON_Delete(report);
    daemon_fixture_wait_wisdom_saved(c); /* saved off the launch path */
    assert_true(daemon_fixture_file_has(l->fx.wisdom, "\"settled\""));
    assert_false(daemon_fixture_file_has(l->fx.wisdom, "\"refining\""));
    refining_close(&f);
}

SETUP(refining_pairs)

/* Refining launches that decide nothing still move the entry on: each one's pair and count
 * are kept, in the executor's launches as in gridtuned's own, so the next launch is the next
 * refining launch, not the same one again. The contender has five pairs already, four at half
 * the winner's cost and one at twice it, so whatever the two measured pairs say (checked for
 * every two ratios from 0.001 to 1000 against refine.c's rules): the first-share rule does not
 * apply, the median ratio stays at 0.5, in sight of the minimum gain, and the signed-rank test
 * decides neither way at six or seven pairs. No timing decides any of it; with three pairs
 * (two ahead, one behind) the gain-in-sight rule, which looks at every pair from the third
 * on, dropped the contender when the measured pairs were slower (about 1 run in 10 under ctest -j2). */
static void test_refining_launches_keep_their_pairs(void **state)
{
    life *l = *state;
    refining f;
    refining_open(l, &f, 5, "[0.5,0.5,0.5,0.5,2.0]", "[1.0,1.0,1.0,1.0,1.0]");
    for (int launch = 6; launch <= 7; launch++) {
        gt_event ev = 0;
        if (gt_run(f.c, f.k, &f.range, f.args, 2, NULL, &ev) != 0)
            fail_msg("refining launch %d: %s", launch, gt_last_error(f.c));
        cJSON *report = report_of(f.c, ev);
        const cJSON *refine = field(field(report, "decision"), "refine");
        assert_string_equal(cJSON_GetStringValue(field(refine, "event")), "compared");
        assert_string_equal(cJSON_GetStringValue(field(refine, "state")), "refining");
        assert_int_equal(cJSON_GetNumberValue(field(refine, "launch")), launch);
        cJSON_Delete(report);
    }
    refining_close(&f);
}

/* ---- the wisdom's limit ------------------------------------------------------------------ */

SETUP(wisdom_limit)

/* Imports one settled entry for fill over `items` items in workgroups of 64, with the kernel
 * hash, machine and workers of the launch whose report is `first`. */
static void import_fill_entry(gt_client *c, const cJSON *first, int items)
{
    char doc[1024];
    snprintf(doc, sizeof doc,
             "{\"format\":\"gridtune-wisdom\",\"version\":1,\"entries\":[{\"kernel\":\"fill\",\"kernel_hash\":\"%s\","
             "\"machine\":\"%s\",\"range\":{\"dims\":1,\"global\":[%d,1,1],\"local\":[64,1,1]},\"workers\":%d,"
             "\"schedule\":\"group=zigzag,item=linear,assign=block\",\"metric\":\"time\",\"cost\":1,\"gain\":0,"
             "\"decided\":1}]}",
             cJSON_GetStringValue(field(first, "kernel_hash")), cJSON_GetStringValue(field(first, "machine")), items,
             (int)cJSON_GetNumberValue(field(first, "workers")));
    size_t merged = 0;
    if (gt_daemon_wisdom_import(c, doc, &merged) != 0)
        fail_msg("the entry for %d items was refused: %s", items, gt_last_error(c));
}

/* The decision source of a launch of fill over f's range. */
static void expect_source(refining *f, const char *source)
{
    gt_event ev = 0;
    if (gt_run(f->c, f->k, &f->range, f->args, 2, NULL, &ev) != 0)
        fail_msg("launch: %s", gt_last_error(f->c));
    cJSON *report = report_of(f->c, ev);
    assert_string_equal(cJSON_GetStringValue(field(field(report, "decision"), "source")), source);
    cJSON_Delete(report);
}

/* With --max-wisdom-entries 2, a third decision evicts the one used longest ago, and a launch
 * that found its entry counts as a use: the launch's entry, imported first, outlives the one
 * imported after it. Status and file say so, and the file names the user whose launch stored
 * an entry. */
static void test_wisdom_limit(void **state)
{
    life *l = *state;
    refining f = {0};
    f.c = connect_with_fill(l, &f.k, &f.b);
    f.args[0] = gt_arg_buffer(f.b);
    f.args[1] = gt_arg_i32(5);
    f.range = (gt_range){.dims = 1, .global = {ITEMS}, .local = {64}};
    gt_launch_options off = gt_launch_options_default();
    off.tuning = GT_TUNING_OFF;
    gt_event ev = 0;
    if (gt_run(f.c, f.k, &f.range, f.args, 2, &off, &ev) != 0)
        fail_msg("first launch: %s", gt_last_error(f.c));
    cJSON *first = report_of(f.c, ev);
    import_fill_entry(f.c, first, ITEMS);
    import_fill_entry(f.c, first, ITEMS / 2);
    expect_source(&f, "wisdom"); /* ITEMS's entry is now the more recently used */
    import_fill_entry(f.c, first, ITEMS / 4);
    cJSON_Delete(first);
    expect_source(&f, "wisdom");
    cJSON *st = daemon_fixture_status(f.c);
    assert_int_equal(daemon_fixture_status_number(st, "wisdom.entries"), 2);
    assert_int_equal(daemon_fixture_status_number(st, "wisdom.max_entries"), 2);
    assert_int_equal(daemon_fixture_status_number(st, "wisdom.evicted"), 1);
    cJSON_Delete(st);
    daemon_fixture_wait_wisdom_saved(f.c);
    char global[64];
    const int kept[] = {ITEMS, ITEMS / 4}, gone = ITEMS / 2;
    for (int i = 0; i < 2; i++) {
        snprintf(global, sizeof global, "%d,", kept[i]);
        assert_true(daemon_fixture_file_has(l->fx.wisdom, global));
    }
    snprintf(global, sizeof global, "%d,", gone);
    assert_false(daemon_fixture_file_has(l->fx.wisdom, global));
    /* the launches' entry was stored again (its first whole-launch cost), for this user */
    snprintf(global, sizeof global, "\"uid\":\t%u", (unsigned)getuid());
    assert_true(daemon_fixture_file_has(l->fx.wisdom, global));
    refining_close(&f);
}

/* ---- limits, and a launch waiting on one that failed ---------------------------------------- */

SETUP(system_mode)

/* The socket is open to the group only; modules load from --module-dir alone, whatever the
 * path says on the way; kernels are not built from source without --allow-build. */
static void test_system_mode(void **state)
{
    life *l = *state;
    struct stat st;
    assert_int_equal(stat(l->fx.socket, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0660);
    assert_int_equal(st.st_gid, getgid());
    gt_client *c = daemon_fixture_connect(&l->fx);
    gt_kernel *k = NULL;
    char sneaky[PATH_MAX];
    const char *base = strrchr(GT_TEST_DAEMON_MODULE, '/');
    int n = snprintf(sneaky, sizeof sneaky, "%.*s/.%s", (int)(base - GT_TEST_DAEMON_MODULE), GT_TEST_DAEMON_MODULE,
                     base);
    assert_true(n > 0 && (size_t)n < sizeof sneaky);
    assert_int_equal(gt_kernel_load(c, sneaky, "fill", &k), 0); /* dir/./module.so is inside */
    gt_kernel_release(k);
    k = NULL;
    assert_api_error(&l->fx, c, gt_kernel_load(c, GT_GRIDTUNED_PATH, "fill", &k), GT_ERR_LOAD, EACCES,
                     "outside the directories");
    assert_api_error(&l->fx, c, gt_kernel_build(c, "int x;", "x", NULL, &k), GT_ERR_BUILD, EPERM, "--allow-build");
    gt_disconnect(c);
}

SETUP(limits)

/* Each limit is answered with a limit error naming its flag, and the client goes on. */
static void test_limits(void **state)
{
    life *l = *state;
    gt_client *c = daemon_fixture_connect(&l->fx);
    gt_buffer *b[3] = {0};
    gt_kernel *k = NULL, *k2 = NULL;
    assert_int_equal(gt_buffer_create(c, 60 * 1024, &b[0]), 0);
    assert_api_error(&l->fx, c, gt_buffer_create(c, 8 * 1024, &b[1]), GT_ERR_LIMIT, ENOSPC, "--max-buffer-bytes");
    assert_int_equal(gt_buffer_create(c, 1024, &b[1]), 0);
    assert_api_error(&l->fx, c, gt_buffer_create(c, 1024, &b[2]), GT_ERR_LIMIT, ENOSPC, "--max-buffers");
    assert_int_equal(gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "hold", &k), 0);
    assert_api_error(&l->fx, c, gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k2), GT_ERR_LIMIT, ENOSPC,
                     "--max-kernels");
    /* A hold on a process that is alive (this one) until max_polls: one launch in flight. */
    gt_range range = {.dims = 1, .global = {1}, .local = {1}};
    gt_arg args[] = {gt_arg_buffer(b[1]), gt_arg_i32((int32_t)getpid()), gt_arg_i32(200)};
    gt_event first, second;
    assert_int_equal(gt_launch(c, k, &range, args, 3, NULL, &first), 0);
    assert_api_error(&l->fx, c, gt_launch(c, k, &range, args, 3, NULL, &second), GT_ERR_LIMIT, ENOSPC,
                     "--max-inflight");
    assert_int_equal(gt_wait(c, first), 0);
    assert_int_equal(((int32_t *)gt_buffer_data(b[1]))[0], 200); /* it polled to the end */
    /* Releasing makes room again. */
    gt_buffer_release(b[0]);
    b[0] = NULL;
    assert_int_equal(gt_buffer_create(c, 1024, &b[2]), 0);
    for (int i = 0; i < 3; i++)
        gt_buffer_release(b[i]);
    gt_kernel_release(k);
    gt_disconnect(c);
}


/* A hold launch of one work-item as request id, held until gate ends; its event. */
static double held_launch(raw_client *rc, int id, double kernel, double buffer, pid_t gate)
{
    char req[512];
    snprintf(req, sizeof req, "{\"type\":\"launch\",\"id\":%d,\"kernel\":%.0f,\"range\":{\"dims\":1,\"global\":[1],"
             "\"local\":[1]},\"args\":[{\"buffer\":%.0f},{\"i32\":%d},{\"i32\":1000000000}]}", id, kernel, buffer,
             (int)gate);
    cJSON *answer = raw_client_call(rc, req, NULL, 0);
    double event = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "event"));
    assert_true(event > 0);
    cJSON_Delete(answer);
    return event;
}

SETUP(waiting)

/* wait and report requests on a launch that has not completed are held until it does: beyond
 * --max-waiting of them a request is refused at once, saying so, and the ones held are answered
 * when the launch completes. */
static void test_waiting_limit(void **state)
{
    life *l = *state;
    raw_client rc;
    raw_client_open_hello(&rc, &l->fx);
    double kernel = raw_client_load(&rc, 2, GT_TEST_DAEMON_MODULE, "hold");
    double buffer = raw_client_buffer(&rc, 3, 64);
    l->gate = start_gate();
    double event = held_launch(&rc, 4, kernel, buffer, l->gate);
    char req[512];
    cJSON *answer;
    const char *types[] = {"wait", "report", "wait"};
    for (int i = 0; i < 3; i++) {
        snprintf(req, sizeof req, "{\"type\":\"%s\",\"id\":%d,\"event\":%.0f}", types[i], 5 + i, event);
        raw_client_send(&rc, req, NULL, 0);
    }
    answer = raw_client_read(&rc); /* the third, at once */
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 7);
    assert_error_answer(answer, GT_ERR_LIMIT, ENOSPC, "--max-waiting 2");
    cJSON_Delete(answer);
    kill_and_reap(&l->gate);
    for (int i = 0; i < 2; i++) {
        answer = raw_client_read(&rc);
        assert_non_null(answer);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 5 + i);
        cJSON_Delete(answer);
    }
    /* Answered, they no longer count: two requests on the next held launch are held again (a
       refusal would come before the status's answer, which the loop writes after them). */
    l->gate = start_gate();
    event = held_launch(&rc, 8, kernel, buffer, l->gate);
    for (int i = 0; i < 2; i++) {
        snprintf(req, sizeof req, "{\"type\":\"wait\",\"id\":%d,\"event\":%.0f}", 9 + i, event);
        raw_client_send(&rc, req, NULL, 0);
    }
    answer = raw_client_call(&rc, "{\"type\":\"status\",\"id\":11}", NULL, 0);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 11);
    cJSON_Delete(answer);
    kill_and_reap(&l->gate);
    for (int i = 0; i < 2; i++) {
        answer = raw_client_read(&rc);
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(answer, "id")), 9 + i);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
        cJSON_Delete(answer);
    }
    raw_client_close(&rc);
}

#define UNREAD_REQUESTS_MAX 200000

/* Sends status requests and reads none of the answers, until gridtuned closes the connection;
 * asserts it does. */
static void flood_unread(raw_client *rc)
{
    static const char status[] = "{\"type\":\"status\",\"id\":2}";
    unsigned char frame[GT_WIRE_HEADER + sizeof status - 1];
    gt_wire_header((uint32_t)(sizeof status - 1), 0, frame);
    memcpy(frame + GT_WIRE_HEADER, status, sizeof status - 1);
    for (int i = 0; i < UNREAD_REQUESTS_MAX; i++)
        for (size_t sent = 0; sent < sizeof frame;) {
            ssize_t n = send(rc->fd, frame + sent, sizeof frame - sent, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
                return;
            if (n < 0)
                fail_msg("cannot send a status request: %s", strerror(errno));
            sent += (size_t)n;
        }
    fail_msg("gridtuned took %d requests whose answers were not read, and kept the connection",
             UNREAD_REQUESTS_MAX);
}

/* A client that reads, beside one that sends status requests and never reads their answers:
 * the one that does not read is dropped, the log says why (needle), and the reader is served. */
static void assert_unread_client_dropped(life *l, const char *needle)
{
    gt_client *reader = daemon_fixture_connect(&l->fx);
    raw_client rc;
    raw_client_open_hello(&rc, &l->fx);
    flood_unread(&rc);
    raw_client_close(&rc);
    char *json = NULL;
    assert_int_equal(gt_status(reader, &json), 0);
    assert_non_null(json);
    free(json);
    if (!daemon_fixture_file_has(l->fx.log, needle))
        fail_msg("the log does not say \"%s\"", needle);
    gt_disconnect(reader);
}

SETUP(unread_output)

/* More than --max-output (64K here) of answers waiting for a client that does not read. */
static void test_unread_output(void **state)
{
    assert_unread_client_dropped(*state, "more answers piled up than --max-output allows");
}

SETUP(total_output)

/* --max-output is 64M, --max-total-output 64K: once the answers queued to all clients pass the
 * total, the client that does not read, which holds more than its share, is dropped; the
 * client that reads is not. */
static void test_total_output(void **state)
{
    assert_unread_client_dropped(*state, "passed --max-total-output, and this client, which is not reading, holds "
                                         "more than its share");
}

static void test_concurrent_clients(void **state)
{
    life *l = *state;
    static client_run runs[CLIENTS];
    pthread_t threads[CLIENTS];
    for (unsigned i = 0; i < CLIENTS; i++) {
        runs[i] = (client_run){.fx = &l->fx, .index = i};
        assert_int_equal(pthread_create(&threads[i], NULL, client_main, &runs[i]), 0);
    }
    for (unsigned i = 0; i < CLIENTS; i++)
        pthread_join(threads[i], NULL);
    for (unsigned i = 0; i < CLIENTS; i++) {
        if (runs[i].problem[0])
            fail_msg("%s", runs[i].problem);
        assert_int_equal(runs[i].launches, LAUNCHES_PER_CLIENT);
    }
    /* Every launch has a report id of its own. */
    for (unsigned a = 0; a < CLIENTS * LAUNCHES_PER_CLIENT; a++) {
        const char *ida = runs[a / LAUNCHES_PER_CLIENT].report_ids[a % LAUNCHES_PER_CLIENT];
        assert_true(ida[0] != '\0');
        for (unsigned b = a + 1; b < CLIENTS * LAUNCHES_PER_CLIENT; b++)
            if (!strcmp(ida, runs[b / LAUNCHES_PER_CLIENT].report_ids[b % LAUNCHES_PER_CLIENT]))
                fail_msg("launches %u and %u share the report id %s", a, b, ida);
    }
    gt_client *c = daemon_fixture_connect(&l->fx);
    cJSON *st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "launches.succeeded"), CLIENTS * LAUNCHES_PER_CLIENT);
    assert_int_equal(daemon_fixture_status_number(st, "launches.failed"), 0);
    cJSON_Delete(st);
    gt_disconnect(c);
}

/* ---- a client killed during a launch ------------------------------------------------------- */

/* The killed client, in a child process: waits for "go", connects, makes its buffers (every
 * page touched), queues a hold on the gate's pid, says "L" once the hold runs (it marks its
 * elements as it starts: the launch may wait behind the jobs that map the new buffers in),
 * and waits to be killed. The gate outlives it, so the hold ends only when gridtuned cancels
 * it for its client's leaving (a hold on the client's own pid raced that: under
 * ThreadSanitizer gridtuned saw the socket close first in about one run in ten). Exit codes
 * say where it failed. */
static void killed_client(int go, int told, const char *socket, pid_t gate)
{
    char byte;
    if (read(go, &byte, 1) != 1)
        _exit(2);
    gt_client *c;
    gt_kernel *k;
    gt_buffer *bufs[KILLED_BUFFERS];
    if (gt_connect(socket, &c) || gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "hold", &k))
        _exit(3);
    for (unsigned i = 0; i < KILLED_BUFFERS; i++) {
        if (gt_buffer_create(c, KILLED_BUFFER_BYTES, &bufs[i]))
            _exit(4);
        memset(gt_buffer_data(bufs[i]), 0x5a, KILLED_BUFFER_BYTES);
    }
    gt_range range = {.dims = 1, .global = {HOLD_ITEMS}, .local = {1}};
    gt_arg args[] = {gt_arg_buffer(bufs[0]), gt_arg_i32((int32_t)gate), gt_arg_i32(HOLD_MAX_POLLS)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    gt_event ev;
    if (gt_launch(c, k, &range, args, 3, &opts, &ev))
        _exit(5);
    const volatile int32_t *marks = gt_buffer_data(bufs[0]);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         marks[0] != HOLD_RUNNING && marks[1] != HOLD_RUNNING; gt_clock_sleep_ms(1))
        if (gt_clock_ms() > deadline)
            _exit(7);
    if (write(told, "L", 1) != 1)
        _exit(6);
    for (;;)
        pause();
}

SETUP(client_killed_during_launch)

/* A launch of fill over a buffer of its own, waited for and released with it. */
static void run_fill_once(gt_client *c)
{
    gt_kernel *k;
    gt_buffer *b;
    assert_int_equal(gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k), 0);
    assert_int_equal(gt_buffer_create(c, ITEMS * sizeof(int32_t), &b), 0);
    gt_range range = {.dims = 1, .global = {ITEMS}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(1)};
    gt_event ev;
    assert_int_equal(gt_launch(c, k, &range, args, 2, NULL, &ev), 0);
    assert_int_equal(gt_wait(c, ev), 0);
    gt_buffer_release(b);
    gt_kernel_release(k);
    assert_int_equal(gt_event_release(c, ev), 0);
}

static void test_client_killed_during_launch(void **state)
{
    life *l = *state;
    int go[2], told[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(told), 0);
    /* Forked before this process has threads, so the child may use libgridtune. */
    l->gate = start_gate();
    l->helper = fork();
    assert_true(l->helper >= 0);
    if (l->helper == 0) {
        close(go[1]);
        close(told[0]);
        killed_client(go[0], told[1], l->fx.socket, l->gate);
    }
    close(go[0]);
    close(told[1]);

    /* The levels before: measured with this test's own connection open and idle, after a
       launch of the same module, so nothing the daemon makes once counts as a leak. */
    gt_client *c = daemon_fixture_connect(&l->fx);
    run_fill_once(c);
    daemon_fixture_wait_quiet(c, 1);
    unsigned fds = daemon_fixture_fd_count(&l->fx), memfds = daemon_fixture_buffer_map_count(&l->fx);
    unsigned long rss = daemon_fixture_rss_kib(&l->fx);
    assert_int_equal(memfds, 0);

    assert_int_equal(write(go[1], "G", 1), 1);
    char byte;
    if (read(told[0], &byte, 1) != 1) {
        int status;
        waitpid(l->helper, &status, 0);
        l->helper = 0;
        fail_msg("the child client failed before its launch returned (wait status 0x%x)", (unsigned)status);
    }
    /* The child's launch runs, held for as long as the gate lives, and its buffers are mapped. */
    cJSON *running = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(running, "launches.running"), 1);
    cJSON_Delete(running);
    assert_int_equal(daemon_fixture_buffer_map_count(&l->fx), KILLED_BUFFERS);
    assert_true(daemon_fixture_fd_count(&l->fx) > fds);

    /* Its client gone, the running launch is cancelled by ending the executor it runs in; the
       next launch starts a new one, after which gridtuned holds what it held before. */
    kill_and_reap(&l->helper);
    daemon_fixture_wait_quiet(c, 1);
    cJSON *st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "launches.failed"), 1);
    cJSON_Delete(st);
    assert_true(daemon_fixture_log_has_line(&l->fx, "session closed: the client disconnected"));
    assert_true(daemon_fixture_log_has_line(&l->fx, "of hold failed: it was cancelled while running"));
    run_fill_once(c);
    daemon_fixture_wait_quiet(c, 1);
    unsigned long rss_after = daemon_fixture_rss_kib(&l->fx);
    print_message("gridtuned's RSS: %lu KiB before the client, %lu KiB after it was killed\n", rss, rss_after);
    assert_int_equal(daemon_fixture_fd_count(&l->fx), fds);
    assert_int_equal(daemon_fixture_buffer_map_count(&l->fx), 0);
    assert_true(rss_after <= rss + KILLED_BUFFERS * (KILLED_BUFFER_BYTES / 1024));
    st = daemon_fixture_status(c);
    assert_int_equal(daemon_fixture_status_number(st, "launches.succeeded"), 2);
    cJSON_Delete(st);
    kill_and_reap(&l->gate);
    gt_disconnect(c);
    close(go[1]);
    close(told[0]);
}

/* ---- a clean shutdown under load ---------------------------------------------------------- */

typedef struct waiter {
    gt_client *c;
    gt_event ev;
    pthread_t thread;
    int rc;
    char error[512];
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    w->rc = gt_wait(w->c, w->ev);
    snprintf(w->error, sizeof w->error, "%s", w->rc ? gt_last_error(w->c) : "");
    return NULL;
}

SETUP(shutdown_under_load)

/* Three clients queue three hold launches each, all held by one gate process, and wait for
 * every one of them. SIGTERM: the running launch finishes once the gate is gone, the queued
 * ones are cancelled, every waiter is answered, and the daemon exits 0. */
static void test_shutdown_under_load(void **state)
{
    life *l = *state;
    l->helper = start_gate();
    gt_client *clients[SHUTDOWN_CLIENTS];
    gt_kernel *kernels[SHUTDOWN_CLIENTS];
    gt_buffer *bufs[SHUTDOWN_CLIENTS][SHUTDOWN_LAUNCHES];
    static waiter waiters[SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES];
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    gt_range range = {.dims = 1, .global = {HOLD_ITEMS}, .local = {1}};
    for (unsigned i = 0; i < SHUTDOWN_CLIENTS; i++) {
        clients[i] = daemon_fixture_connect(&l->fx);
        assert_int_equal(gt_kernel_load(clients[i], GT_TEST_DAEMON_MODULE, "hold", &kernels[i]), 0);
    }
    /* Launched one after the other, so the first is the one that runs and the rest queue. */
    for (unsigned i = 0; i < SHUTDOWN_CLIENTS; i++) {
        for (unsigned j = 0; j < SHUTDOWN_LAUNCHES; j++) {
            waiter *w = &waiters[i * SHUTDOWN_LAUNCHES + j];
            assert_int_equal(gt_buffer_create(clients[i], HOLD_ITEMS * sizeof(int32_t), &bufs[i][j]), 0);
            gt_arg args[] = {gt_arg_buffer(bufs[i][j]), gt_arg_i32((int32_t)l->helper), gt_arg_i32(HOLD_MAX_POLLS)};
            *w = (waiter){.c = clients[i]};
            assert_int_equal(gt_launch(clients[i], kernels[i], &range, args, 3, &opts, &w->ev), 0);
        }
    }
    for (unsigned i = 0; i < SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES; i++)
        assert_int_equal(pthread_create(&waiters[i].thread, NULL, waiter_main, &waiters[i]), 0);
    /* Every wait has reached the daemon, and one launch runs while the others queue. */
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         daemon_fixture_trace_count(&l->fx, "in", "wait") < SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES; gt_clock_sleep_ms(10))
        if (gt_clock_ms() > deadline)
            fail_msg("the waits did not reach gridtuned within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    cJSON *st = daemon_fixture_status(clients[0]);
    assert_int_equal(daemon_fixture_status_number(st, "launches.running"), 1);
    assert_int_equal(daemon_fixture_status_number(st, "launches.queued"), SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES - 1);
    cJSON_Delete(st);

    assert_int_equal(kill(l->fx.pid, SIGTERM), 0);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         !daemon_fixture_log_has_line(&l->fx, "the running one may finish within 10 s (--stop-grace)"); gt_clock_sleep_ms(10))
        if (gt_clock_ms() > deadline)
            fail_msg("gridtuned did not log that it is stopping within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    kill_and_reap(&l->helper);
    for (unsigned i = 0; i < SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES; i++)
        pthread_join(waiters[i].thread, NULL);
    int status = daemon_fixture_wait_exit(&l->fx);

    /* The launch that ran finished; every queued one was cancelled, and said why. */
    if (waiters[0].rc != 0)
        fail_msg("the running launch failed: %d: %s", waiters[0].rc, waiters[0].error);
    const int32_t *held = gt_buffer_data(bufs[0][0]);
    assert_true(held[0] < HOLD_MAX_POLLS && held[1] < HOLD_MAX_POLLS);
    for (unsigned i = 1; i < SHUTDOWN_CLIENTS * SHUTDOWN_LAUNCHES; i++) {
        if (waiters[i].rc != -ECANCELED || !strstr(waiters[i].error, "cancelled: gridtuned is shutting down"))
            fail_msg("wait %u: expected -ECANCELED because gridtuned is shutting down, got %d: %s", i, waiters[i].rc,
                     waiters[i].error);
    }
    /* Then the daemon exited cleanly (daemon_fixture_wait_exit saw no socket left behind and
       "stopped" logged), leaving a wisdom file that is valid JSON, or none. */
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    FILE *wisdom = fopen(l->fx.wisdom, "re");
    if (wisdom) {
        char text[65536];
        size_t len = fread(text, 1, sizeof text - 1, wisdom);
        fclose(wisdom);
        text[len] = '\0';
        cJSON *doc = cJSON_Parse(text);
        if (!doc)
            fail_msg("the wisdom file %s is not valid JSON", l->fx.wisdom);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "format")), "gridtune-wisdom");
        cJSON_Delete(doc);
    } else {
        assert_int_equal(errno, ENOENT);
    }
    /* The connections were closed once the answers were out. */
    char *json;
    assert_int_equal(gt_status(clients[0], &json), -EPIPE);
    assert_non_null(strstr(gt_last_error(clients[0]), "connection to gridtuned was lost"));
    for (unsigned i = 0; i < SHUTDOWN_CLIENTS; i++)
        gt_disconnect(clients[i]);
}

/* ---- hardening: a shutdown that does not wait forever, and limits --------------------------- */

SETUP(runaway_stop)

/* A launch that never returns (hold on a gate that stays alive) and one queued behind it.
 * SIGTERM: after --stop-grace both waiters are answered, and the daemon exits 0 without the
 * launch, instead of waiting for it forever. */
static void test_runaway_stop(void **state)
{
    life *l = *state;
    l->helper = start_gate();
    gt_client *c = daemon_fixture_connect(&l->fx);
    gt_kernel *k;
    gt_buffer *b[2];
    assert_int_equal(gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "hold", &k), 0);
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    gt_range range = {.dims = 1, .global = {1}, .local = {1}};
    static waiter waiters[2];
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(gt_buffer_create(c, sizeof(int32_t), &b[i]), 0);
        gt_arg args[] = {gt_arg_buffer(b[i]), gt_arg_i32((int32_t)l->helper), gt_arg_i32(INT32_MAX)};
        waiters[i] = (waiter){.c = c};
        assert_int_equal(gt_launch(c, k, &range, args, 3, &opts, &waiters[i].ev), 0);
        assert_int_equal(pthread_create(&waiters[i].thread, NULL, waiter_main, &waiters[i]), 0);
    }
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         daemon_fixture_trace_count(&l->fx, "in", "wait") < 2; gt_clock_sleep_ms(10))
        if (gt_clock_ms() > deadline)
            fail_msg("the waits did not reach gridtuned within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    wait_status_number(c, "launches.running", 1);

    assert_int_equal(kill(l->fx.pid, SIGTERM), 0);
    int status = daemon_fixture_wait_exit(&l->fx); /* before the fix: never, and the guard fails */
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(daemon_fixture_log_has_line(&l->fx, "the running job did not finish within --stop-grace (1 s): "
                                                    "stopping without it"));
    for (unsigned i = 0; i < 2; i++) {
        pthread_join(waiters[i].thread, NULL);
        if (waiters[i].rc != -ECANCELED || !strstr(waiters[i].error, "it waited --stop-grace (1 s) for the running launch"))
            fail_msg("wait %u: expected -ECANCELED naming --stop-grace, got %d: %s", i, waiters[i].rc,
                     waiters[i].error);
    }
    kill_and_reap(&l->helper);
    gt_disconnect(c);
}

/* A frame header announcing n bytes of JSON. */
static void send_header(raw_client *rc, uint32_t n)
{
    unsigned char header[GT_WIRE_HEADER];
    gt_wire_header(n, 0, header);
    raw_client_send_bytes(rc, header, sizeof header);
}

#define MID_FRAME_BURST 200

SETUP(close_mid_frame)

/* A client that closes its socket in the middle of a frame, before or after hello, alone or
 * with many others at once: the daemon's answer cannot be written, and the session it frees
 * must not be used after that (it was, and the daemon died of SIGSEGV). */
static void test_close_mid_frame(void **state)
{
    life *l = *state;
    gt_client *c = daemon_fixture_connect(&l->fx);
    daemon_fixture_wait_quiet(c, 1);
    unsigned fds = daemon_fixture_fd_count(&l->fx);
    char partial[10];
    memset(partial, ' ', sizeof partial);
    for (int i = 0; i < 3; i++) {
        raw_client rc;
        if (i == 2)
            raw_client_open_hello(&rc, &l->fx);
        else
            raw_client_open(&rc, &l->fx);
        send_header(&rc, 1000);
        raw_client_send_bytes(&rc, partial, sizeof partial);
        raw_client_close(&rc);
        daemon_fixture_wait_quiet(c, 1); /* the daemon saw it go, and still answers */
    }
    static raw_client burst[MID_FRAME_BURST];
    for (int i = 0; i < MID_FRAME_BURST; i++) {
        raw_client_open(&burst[i], &l->fx);
        send_header(&burst[i], 1000);
        raw_client_send_bytes(&burst[i], partial, sizeof partial);
    }
    daemon_fixture_wait_quiet(c, 1 + MID_FRAME_BURST);
    for (int i = 0; i < MID_FRAME_BURST; i++)
        raw_client_close(&burst[i]);
    daemon_fixture_wait_quiet(c, 1);
    assert_int_equal(daemon_fixture_fd_count(&l->fx), fds);
    assert_int_equal(kill(l->fx.pid, 0), 0);
    gt_disconnect(c);
}

SETUP(frame_deadline)

/* A frame whose header came and whose rest does not: dropped after --frame-timeout, with an
 * answer that names the flag, instead of holding its bytes for ever. */
static void test_frame_deadline(void **state)
{
    life *l = *state;
    raw_client rc;
    raw_client_open_hello(&rc, &l->fx);
    send_header(&rc, 100);
    raw_client_send_bytes(&rc, "{\"type\":", 8);
    cJSON *answer = raw_client_read(&rc);
    assert_non_null(answer);
    assert_error_answer(answer, GT_ERR_FRAME, ETIMEDOUT, "the frame was not complete 1 s after its first byte");
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
    /* A frame that comes whole is answered as before, also after the client was silent for
       longer than the deadline once it had said hello. */
    raw_client_open_hello(&rc, &l->fx);
    sleep(2);
    cJSON_Delete(raw_client_call(&rc, "{\"type\":\"status\",\"id\":2}", NULL, 0));
    raw_client_close(&rc);
}

SETUP(hello_deadline)

/* A connection that never says hello holds a place in the connection limits: it is dropped
 * after --frame-timeout, with an answer that says so. */
static void test_hello_deadline(void **state)
{
    life *l = *state;
    raw_client rc;
    raw_client_open(&rc, &l->fx);
    cJSON *answer = raw_client_read(&rc);
    assert_non_null(answer);
    assert_error_answer(answer, GT_ERR_FRAME, ETIMEDOUT, "no hello came within 1 s of connecting");
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc);
    raw_client_close(&rc);
}

#define PARTIAL_FRAME 60000
#define PARTIAL_SENT 40000

/* A status request padded with white space (allowed after the JSON object) to PARTIAL_FRAME
 * bytes; its first bytes make shorter frames too. */
static const char *padded_status_frame(void)
{
    static char frame[PARTIAL_FRAME];
    const char *status = "{\"type\":\"status\",\"id\":2}";
    memset(frame, ' ', sizeof frame);
    memcpy(frame, status, strlen(status));
    return frame;
}

/* Sends the rest of a status frame and expects its answer. */
static void finish_status_frame(raw_client *rc, const char *rest, size_t len)
{
    raw_client_send_bytes(rc, rest, len);
    cJSON *answer = raw_client_read(rc);
    assert_non_null(answer);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
    cJSON_Delete(answer);
}

SETUP(partial_bytes)

/* Two clients each hold 40,000 bytes of a 60,000-byte frame: together more than
 * --max-partial-bytes 64K. The one whose bytes pass the limit is dropped with an answer that
 * says so; the other completes its frame and is served. */
static void test_partial_bytes(void **state)
{
    life *l = *state;
    const char *frame = padded_status_frame();
    raw_client rc[2];
    for (int i = 0; i < 2; i++) {
        raw_client_open_hello(&rc[i], &l->fx);
        send_header(&rc[i], PARTIAL_FRAME);
        raw_client_send_bytes(&rc[i], frame, PARTIAL_SENT);
    }
    /* Only the dropped one has anything to read. */
    struct pollfd p[2] = {{.fd = rc[0].fd, .events = POLLIN}, {.fd = rc[1].fd, .events = POLLIN}};
    int n = poll(p, 2, DAEMON_FIXTURE_GUARD_SECONDS * 1000);
    assert_int_equal(n, 1);
    int dropped = (p[0].revents & POLLIN) ? 0 : 1, kept = 1 - dropped;
    cJSON *answer = raw_client_read(&rc[dropped]);
    assert_non_null(answer);
    assert_error_answer(answer, GT_ERR_LIMIT, ENOBUFS, "gridtuned holds");
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "message")),
                           "--max-partial-bytes"));
    cJSON_Delete(answer);
    raw_client_expect_closed(&rc[dropped]);
    finish_status_frame(&rc[kept], frame + PARTIAL_SENT, PARTIAL_FRAME - PARTIAL_SENT);
    raw_client_close(&rc[0]);
    raw_client_close(&rc[1]);
}

#define SHARE_HELD 50000  /* the client that fills the budget: its frame's bytes sent */
#define SHARE_FRAME 20000 /* the other client's frame, of which it sends */
#define SHARE_SENT 16000

SETUP(partial_share)

/* Three clients (one only asks for the status), so each one's share of --max-partial-bytes 64K
 * is 21845 bytes. One holds 50,000 bytes of a frame; another's 16,000 bytes take the total past
 * the limit, but are less than its share: it is not dropped, and its frame is answered. The
 * first, holding more than its share, is dropped when its next byte comes. */
static void test_partial_share(void **state)
{
    life *l = *state;
    const char *frame = padded_status_frame();
    gt_client *c = daemon_fixture_connect(&l->fx);
    raw_client big, small;
    raw_client_open_hello(&big, &l->fx);
    raw_client_open_hello(&small, &l->fx);
    send_header(&big, PARTIAL_FRAME);
    raw_client_send_bytes(&big, frame, SHARE_HELD);
    wait_status_number(c, "held_for_clients.partial_frame_bytes", GT_WIRE_HEADER + SHARE_HELD);
    send_header(&small, SHARE_FRAME);
    raw_client_send_bytes(&small, frame, SHARE_SENT);
    /* both held: the small one was not dropped for passing the limit */
    wait_status_number(c, "held_for_clients.partial_frame_bytes", 2 * GT_WIRE_HEADER + SHARE_HELD + SHARE_SENT);
    raw_client_send_bytes(&big, frame + SHARE_HELD, 1);
    cJSON *answer = raw_client_read(&big);
    assert_non_null(answer);
    assert_error_answer(answer, GT_ERR_LIMIT, ENOBUFS, "more than its share, is dropped");
    cJSON_Delete(answer);
    raw_client_expect_closed(&big);
    finish_status_frame(&small, frame + SHARE_SENT, SHARE_FRAME - SHARE_SENT);
    raw_client_close(&big);
    raw_client_close(&small);
    gt_disconnect(c);
}

/* Connects through libgridtune and expects the daemon to refuse, naming the flag. */
static void expect_refused(const daemon_fixture *fx, const char *flag)
{
    gt_client *c = NULL;
    int rc = gt_connect(fx->socket, &c);
    if (rc != -EUSERS || !strstr(gt_last_error(c), flag))
        fail_msg("connecting beyond %s: expected -EUSERS naming it, got %d: %s", flag, rc, gt_last_error(c));
    gt_disconnect(c);
}

SETUP(user_clients)

/* Two connections of this uid are served; a third is refused with an answer naming
 * --max-user-clients, and once one goes, another may come. */
static void test_user_clients(void **state)
{
    life *l = *state;
    gt_client *a = daemon_fixture_connect(&l->fx), *b = daemon_fixture_connect(&l->fx);
    expect_refused(&l->fx, "--max-user-clients 2");
    assert_true(daemon_fixture_log_has_line(&l->fx, "has 2 clients connected, the most gridtuned serves for one "
                                                    "user (--max-user-clients 2)"));
    cJSON *st = daemon_fixture_status(a);
    assert_int_equal(daemon_fixture_status_number(st, "clients_refused"), 1);
    cJSON_Delete(st);
    /* Refused connections that send nothing wait for their hello, but only GT_REFUSED_LINGER_MAX
       of them: the rest are answered and closed at once, so a client connecting in a loop does
       not hold the daemon's descriptors. */
    static raw_client silent[GT_REFUSED_LINGER_MAX + 8];
    size_t nsilent = sizeof silent / sizeof silent[0];
    for (size_t i = 0; i < nsilent; i++)
        raw_client_open(&silent[i], &l->fx);
    cJSON *answer = raw_client_read(&silent[nsilent - 1]); /* past the cap: answered at once */
    assert_non_null(answer);
    assert_error_answer(answer, GT_ERR_LIMIT, EUSERS, "--max-user-clients 2");
    cJSON_Delete(answer);
    st = daemon_fixture_status(a);
    assert_int_equal(daemon_fixture_status_number(st, "clients_refused"), 1 + nsilent);
    assert_int_equal(daemon_fixture_status_number(st, "clients"), 2 + GT_REFUSED_LINGER_MAX);
    cJSON_Delete(st);
    for (size_t i = 0; i < nsilent; i++)
        raw_client_close(&silent[i]);
    gt_disconnect(b);
    daemon_fixture_wait_quiet(a, 1);
    b = daemon_fixture_connect(&l->fx);
    gt_disconnect(b);
    gt_disconnect(a);
}

SETUP(total_clients)

static void test_total_clients(void **state)
{
    life *l = *state;
    gt_client *a = daemon_fixture_connect(&l->fx), *b = daemon_fixture_connect(&l->fx);
    expect_refused(&l->fx, "(--max-clients)");
    gt_disconnect(b);
    gt_disconnect(a);
}

SETUP(user_buffers)

/* --max-user-buffers counts the buffers of all of a user's clients: two clients of one uid
 * share two buffers, and a released one makes room again. */
static void test_user_buffers(void **state)
{
    life *l = *state;
    gt_client *a = daemon_fixture_connect(&l->fx), *b = daemon_fixture_connect(&l->fx);
    gt_buffer *ba, *bb, *more;
    assert_int_equal(gt_buffer_create(a, 4096, &ba), 0);
    assert_int_equal(gt_buffer_create(b, 4096, &bb), 0);
    assert_api_error(&l->fx, b, gt_buffer_create(b, 4096, &more), GT_ERR_LIMIT, ENOSPC, "uid ");
    assert_non_null(strstr(gt_last_error(b), "(--max-user-buffers 2)"));
    gt_buffer_release(ba);
    daemon_fixture_wait_quiet(b, 2);
    assert_int_equal(gt_buffer_create(b, 4096, &more), 0);
    gt_buffer_release(more);
    gt_buffer_release(bb);
    gt_disconnect(b);
    gt_disconnect(a);
}

SETUP(total_buffers)

/* The daemon-wide caps: bytes of all clients' buffers, and their number (mappings). */
static void test_total_buffers(void **state)
{
    life *l = *state;
    gt_client *a = daemon_fixture_connect(&l->fx), *b = daemon_fixture_connect(&l->fx);
    gt_buffer *ba, *bb, *more;
    assert_int_equal(gt_buffer_create(a, 600 * 1024, &ba), 0);
    assert_api_error(&l->fx, b, gt_buffer_create(b, 600 * 1024, &more), GT_ERR_LIMIT, ENOSPC,
                     "a buffer of 614400 bytes would bring the buffers of all clients to more than 1048576 bytes "
                     "(--max-total-buffer-bytes)");
    assert_int_equal(gt_buffer_create(b, 4096, &bb), 0);
    assert_api_error(&l->fx, a, gt_buffer_create(a, 4096, &more), GT_ERR_LIMIT, ENOSPC,
                     "gridtuned holds 2 buffers for all its clients");
    assert_non_null(strstr(gt_last_error(a), "(--max-total-buffers 2)"));
    cJSON *st = daemon_fixture_status(a);
    assert_int_equal(daemon_fixture_status_number(st, "buffers.count"), 2);
    assert_int_equal(daemon_fixture_status_number(st, "buffers.bytes"), 600 * 1024 + 4096);
    cJSON_Delete(st);
    /* A client that goes gives its share back. */
    gt_disconnect(b);
    daemon_fixture_wait_quiet(a, 1);
    assert_int_equal(gt_buffer_create(a, 4096, &more), 0);
    gt_buffer_release(more);
    gt_buffer_release(ba);
    gt_disconnect(a);
}

/* How many lines of the daemon's log contain text. */
static unsigned log_lines_with(const daemon_fixture *fx, const char *text)
{
    FILE *f = fopen(fx->log, "re");
    if (!f)
        fail_msg("cannot read %s: %s", fx->log, strerror(errno));
    char line[4096];
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, text) != NULL;
    fclose(f);
    return n;
}

#define LOG_FLOOD 300

SETUP(connection_lines)

/* A client that connects and disconnects in a loop: at most GT_SESSION_LOG_BURST connections a
 * second get their "connected" and "session closed" lines, so the log grows with the seconds,
 * not with the connections (it had two lines for each). The limit's seconds begin at a line
 * that passes, so a run of s whole seconds holds at most s + 1 of them; the bound below leaves
 * one more. */
static void test_connection_lines_are_bounded(void **state)
{
    life *l = *state;
    int64_t start = gt_clock_ms();
    for (int i = 0; i < LOG_FLOOD; i++)
        gt_disconnect(daemon_fixture_connect(&l->fx));
    gt_client *c = daemon_fixture_connect(&l->fx);
    daemon_fixture_wait_quiet(c, 1); /* every other session closed */
    int64_t seconds = (gt_clock_ms() - start) / 1000;
    unsigned bound = GT_SESSION_LOG_BURST * (unsigned)(seconds + 2);
    unsigned connected = log_lines_with(&l->fx, ") connected"),
             closed = log_lines_with(&l->fx, "session closed: the client disconnected");
    if (connected > bound || closed > bound)
        fail_msg("%d connections in %lld s logged %u connected and %u closed lines; at most %u may pass", LOG_FLOOD + 1,
                 (long long)seconds, connected, closed, bound);
    assert_true(connected >= 1);
    gt_disconnect(c);
}

#define FD_CLIENTS 20
#define OUT_OF_FDS "new clients wait until descriptors are free"

SETUP(out_of_descriptors)

/* The daemon runs out of descriptors with clients waiting to be accepted: it says so once
 * (it used to log every failed accept, spinning a core), keeps serving its clients, and
 * accepts the waiting ones once descriptors are free again. */
static void test_out_of_descriptors(void **state)
{
    life *l = *state;
    gt_client *c = daemon_fixture_connect(&l->fx);
    daemon_fixture_wait_quiet(c, 1);
    struct rlimit old, low;
    assert_int_equal(prlimit(l->fx.pid, RLIMIT_NOFILE, NULL, &old), 0);
    low = (struct rlimit){.rlim_cur = daemon_fixture_fd_count(&l->fx) + 2, .rlim_max = old.rlim_max};
    assert_int_equal(prlimit(l->fx.pid, RLIMIT_NOFILE, &low, NULL), 0);
    static raw_client rc[FD_CLIENTS];
    for (int i = 0; i < FD_CLIENTS; i++) {
        raw_client_open(&rc[i], &l->fx); /* the kernel queues the connection; accept() may fail */
        raw_client_send(&rc[i], "{\"type\":\"hello\",\"id\":1,\"protocol\":1}", NULL, 0);
    }
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         log_lines_with(&l->fx, OUT_OF_FDS) == 0; gt_clock_sleep_ms(10))
        if (gt_clock_ms() > deadline)
            fail_msg("gridtuned did not say it is out of descriptors within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    gt_clock_sleep_ms(1000); /* room for the failures to repeat: they must not be logged again */
    cJSON_Delete(daemon_fixture_status(c)); /* the client already served still is */
    assert_int_equal(log_lines_with(&l->fx, OUT_OF_FDS), 1);
    assert_true(log_lines_with(&l->fx, "accepting one of the clients failed") == 1);
    assert_int_equal(prlimit(l->fx.pid, RLIMIT_NOFILE, &old, NULL), 0);
    for (int i = 0; i < FD_CLIENTS; i++) {
        cJSON *answer = raw_client_read(&rc[i]);
        if (!answer)
            fail_msg("client %d waiting to be accepted was closed without an answer", i);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "type")), "result");
        cJSON_Delete(answer);
        raw_client_close(&rc[i]);
    }
    assert_int_equal(log_lines_with(&l->fx, "accepting clients again"), 1);
    gt_disconnect(c);
}

/* systemd's default soft limit is 1024: the daemon takes the hard limit at start, and lowers
 * --max-clients and then --max-total-buffers to what the limit leaves room for, saying so. The daemon inherits the limit
 * from this process, which cannot raise its hard limit again without CAP_SYS_RESOURCE: this
 * test runs last. */
static int setup_descriptor_limit(void **state)
{
    struct rlimit tight = {.rlim_cur = 200, .rlim_max = 300};
    if (setrlimit(RLIMIT_NOFILE, &tight) != 0) { /* valgrind keeps descriptors of its own and refuses */
        print_message("test_descriptor_limit skipped: cannot lower this process's descriptor limit: %s\n",
                      strerror(errno));
        *state = NULL;
        return 0;
    }
    life *l = calloc(1, sizeof *l);
    assert_non_null(l);
    *state = l;
    start_daemon(l, "descriptor_limit");
    return 0;
}

static int teardown_descriptor_limit(void **state)
{
    return *state ? teardown(state) : 0;
}

static void test_descriptor_limit(void **state)
{
    life *l = *state;
    if (!l)
        skip();
    struct rlimit daemon_limit;
    assert_int_equal(prlimit(l->fx.pid, RLIMIT_NOFILE, NULL, &daemon_limit), 0);
    assert_int_equal(daemon_limit.rlim_cur, 300);
    assert_true(daemon_fixture_log_has_line(&l->fx, "the descriptor limit is 300: serving at most 118 clients, not "
                                                    "1024 (--max-clients)"));
    /* each buffer's memfd stays open in gridtuned for its executor: half of what is left, not
       the default of half the kernel's map count over the mappings a buffer takes there */
    unsigned long maps = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
    if (f && (fscanf(f, "%lu", &maps) != 1 || maps < 1024))
        maps = 65530;
    if (f)
        fclose(f);
    char line[128];
    snprintf(line, sizeof line, "the descriptor limit is 300: holding at most 59 buffers, not %lu "
             "(--max-total-buffers)", maps / 2 / GT_GUARDED_MAP_MAPPINGS);
    if (!daemon_fixture_log_has_line(&l->fx, line))
        fail_msg("the log has no line \"%s\"", line);
}

/* System mode with --socket in a directory others share (mode 0755 here, like /run or /tmp):
 * gridtuned serves there but leaves the directory's owner and mode alone. It used to chmod
 * and chown whatever directory held the socket, so `--socket /tmp/x.sock` closed /tmp to
 * everyone outside the group. */
static void test_shared_socket_directory_is_left_alone(void **state)
{
    (void)state;
    char dir[] = "/tmp/gt-shared-XXXXXX", sock[64], log[64], wisdom[64];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(wisdom, sizeof wisdom, "%s/wisdom.json", dir);
    struct group *g = getgrgid(getgid());
    assert_non_null(g);
    struct stat before, after;
    assert_int_equal(stat(dir, &before), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(GT_GRIDTUNED_PATH, GT_GRIDTUNED_PATH, "--system", "--group", g->gr_name, "--socket", sock, "--foreground",
              "--log", log, "--wisdom", wisdom, "--no-probes", "--workers", "1", (char *)NULL);
        _exit(127);
    }
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    while (access(sock, F_OK) != 0 && gt_clock_ms() < deadline && waitpid(pid, NULL, WNOHANG) == 0)
        gt_clock_sleep_ms(10);
    bool listened = access(sock, F_OK) == 0;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    assert_int_equal(stat(dir, &after), 0);
    if (temp_dir_remove(dir) != 0)
        print_message("could not remove %s: %s\n", dir, strerror(errno));
    if (!listened)
        fail_msg("gridtuned did not listen on %s", sock);
    assert_int_equal(after.st_mode & 07777, before.st_mode & 07777);
    assert_int_equal(after.st_gid, before.st_gid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_concurrent_clients, setup_concurrent_clients, teardown),
        cmocka_unit_test_setup_teardown(test_one_trip, setup_one_trip, teardown),
        cmocka_unit_test_setup_teardown(test_paused_reading, setup_paused_reading, teardown),
        cmocka_unit_test_setup_teardown(test_paused_end, setup_paused_end, teardown),
        cmocka_unit_test_setup_teardown(test_inline_report, setup_inline_report, teardown),
        cmocka_unit_test_setup_teardown(test_refining_launch, setup_refining_launch, teardown),
        cmocka_unit_test_setup_teardown(test_refining_launches_keep_their_pairs, setup_refining_pairs, teardown),
        cmocka_unit_test_setup_teardown(test_wisdom_limit, setup_wisdom_limit, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup_limits, teardown),
        cmocka_unit_test_setup_teardown(test_system_mode, setup_system_mode, teardown),
        cmocka_unit_test_setup_teardown(test_client_killed_during_launch, setup_client_killed_during_launch,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_under_load, setup_shutdown_under_load, teardown),
        cmocka_unit_test_setup_teardown(test_runaway_stop, setup_runaway_stop, teardown),
        cmocka_unit_test_setup_teardown(test_close_mid_frame, setup_close_mid_frame, teardown),
        cmocka_unit_test_setup_teardown(test_frame_deadline, setup_frame_deadline, teardown),
        cmocka_unit_test_setup_teardown(test_hello_deadline, setup_hello_deadline, teardown),
        cmocka_unit_test_setup_teardown(test_waiting_limit, setup_waiting, teardown),
        cmocka_unit_test_setup_teardown(test_unread_output, setup_unread_output, teardown),
        cmocka_unit_test_setup_teardown(test_total_output, setup_total_output, teardown),
        cmocka_unit_test_setup_teardown(test_partial_bytes, setup_partial_bytes, teardown),
        cmocka_unit_test_setup_teardown(test_partial_share, setup_partial_share, teardown),
        cmocka_unit_test_setup_teardown(test_user_clients, setup_user_clients, teardown),
        cmocka_unit_test_setup_teardown(test_total_clients, setup_total_clients, teardown),
        cmocka_unit_test_setup_teardown(test_user_buffers, setup_user_buffers, teardown),
        cmocka_unit_test_setup_teardown(test_total_buffers, setup_total_buffers, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_descriptors, setup_out_of_descriptors, teardown),
        cmocka_unit_test_setup_teardown(test_connection_lines_are_bounded, setup_connection_lines, teardown),
        cmocka_unit_test(test_shared_socket_directory_is_left_alone),
        /* last: it lowers this process's descriptor limit */
        cmocka_unit_test_setup_teardown(test_descriptor_limit, setup_descriptor_limit, teardown_descriptor_limit),
    };
    return cmocka_run_group_tests_name("gridtuned through its clients' lives and its own", tests, NULL, NULL);
}
