/* test_executor.c: kernels run in executor processes, so a bad kernel fails only its own
 * launch. Against a real gridtuned, each bad kernel of tests/fixtures/bad_kernels.c is launched
 * by one client while a good client with buffers of its own stands by:
 * - the bad launch fails with an error that names what happened (the signal, the address, the
 *   deadline, the cancel);
 * - the good client's next launch, and the bad client's own next one, run and are right in
 *   every element (the executor was started again and given their buffers again);
 * - once both are gone, gridtuned holds the descriptors it held before, and no buffer is
 *   mapped anywhere.
 * gridtuned itself never opens a module: a loader process does, so a module whose constructor
 * aborts fails its load only, and gridtuned's memory maps name no module.
 * In system mode, two users played by child processes: each user's executor holds that user's
 * buffer contents and never the other's, and gridtuned holds neither. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/become_user.h"
#include "tests/fixtures/daemon_fixture.h"

#include "protocol/wire.h"
#include "tuner/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined GT_BAD_KERNELS_MODULE || !defined GT_BAD_CONSTRUCTOR_MODULE || !defined GT_LINGERING_CONSTRUCTOR_MODULE
#error "GT_BAD_KERNELS_MODULE, GT_BAD_CONSTRUCTOR_MODULE and GT_LINGERING_CONSTRUCTOR_MODULE must name the bad modules"
#endif

#define GOOD_ITEMS 4096
#define BAD_BYTES 4096
#define TIMEOUT_S "1"

typedef struct executor_test {
    daemon_fixture fx;
    gt_client *good, *bad;
    gt_kernel *fill, *bad_fill;
    gt_buffer *good_buf, *bad_buf;
    unsigned baseline_fds;
    int32_t next_value;
} executor_test;

static void open_clients(executor_test *t)
{
    t->good = daemon_fixture_connect(&t->fx);
    t->bad = daemon_fixture_connect(&t->fx);
    assert_int_equal(gt_kernel_load(t->good, GT_TEST_DAEMON_MODULE, "fill", &t->fill), 0);
    assert_int_equal(gt_kernel_load(t->bad, GT_TEST_DAEMON_MODULE, "fill", &t->bad_fill), 0);
    assert_int_equal(gt_buffer_create(t->good, GOOD_ITEMS * sizeof(int32_t), &t->good_buf), 0);
    assert_int_equal(gt_buffer_create(t->bad, GOOD_ITEMS * sizeof(int32_t), &t->bad_buf), 0);
}

static int start(void **state, const char *const *extra)
{
    executor_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    daemon_fixture_start(&t->fx, NULL, extra);
    gt_client *c = daemon_fixture_connect(&t->fx);
    daemon_fixture_wait_quiet(c, 1);
    t->baseline_fds = daemon_fixture_fd_count(&t->fx);
    gt_disconnect(c);
    open_clients(t);
    *state = t;
    return 0;
}

static int setup_with_timeout(void **state)
{
    return start(state, (const char *const[]){"--launch-timeout", TIMEOUT_S, NULL});
}

static int setup(void **state)
{
    return start(state, NULL);
}

static int setup_inline(void **state)
{
    return start(state, (const char *const[]){"--inline-groups", "64", NULL});
}

/* Both clients gone: the descriptors are back to what gridtuned held before they came, and no
 * buffer is mapped in gridtuned or any executor. */
static int teardown(void **state)
{
    executor_test *t = *state;
    gt_buffer_release(t->good_buf);
    gt_buffer_release(t->bad_buf);
    gt_kernel_release(t->fill);
    gt_kernel_release(t->bad_fill);
    gt_disconnect(t->bad);
    daemon_fixture_wait_quiet(t->good, 1);
    gt_disconnect(t->good);
    gt_client *c = daemon_fixture_connect(&t->fx);
    daemon_fixture_wait_quiet(c, 1);
    daemon_fixture_wait_wisdom_saved(c); /* a save in progress holds the file open */
    unsigned fds = daemon_fixture_fd_count(&t->fx), memfds = daemon_fixture_buffer_map_count(&t->fx);
    gt_disconnect(c);
    daemon_fixture fx = t->fx;
    unsigned baseline = t->baseline_fds;
    free(t);
    daemon_fixture_finish(&fx);
    assert_int_equal(fds, baseline);
    assert_int_equal(memfds, 0);
    return 0;
}

/* A launch of fill over b through c, every element checked. */
static void run_fill(executor_test *t, gt_client *c, gt_kernel *k, gt_buffer *b, const char *who)
{
    int32_t v = ++t->next_value * 10000;
    gt_range range = {.dims = 1, .global = {GOOD_ITEMS}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(v)};
    if (gt_run(c, k, &range, args, 2, NULL, NULL) != 0)
        fail_msg("the %s client's launch failed: %s", who, gt_last_error(c));
    const int32_t *data = gt_buffer_data(b);
    for (int32_t i = 0; i < GOOD_ITEMS; i++)
        if (data[i] != v + i)
            fail_msg("the %s client's launch: element %d is %d, not %d", who, i, data[i], v + i);
}

/* Launches bad kernel `name` over `items` work-items (workgroups of one: a single one runs on
 * the executor's own thread, more on its workers), over a fresh buffer, with the given scalar
 * arguments, through the bad client; it must fail with every one of the texts in `expect`.
 * Then both clients' launches run right. */
static void expect_failure_over(executor_test *t, const char *name, unsigned items, const gt_arg *scalars,
                                unsigned nscalars, const char *const *expect)
{
    gt_kernel *k;
    gt_buffer *b;
    assert_int_equal(gt_kernel_load(t->bad, GT_BAD_KERNELS_MODULE, name, &k), 0);
    assert_int_equal(gt_buffer_create(t->bad, BAD_BYTES, &b), 0);
    gt_arg args[4] = {gt_arg_buffer(b)};
    memcpy(args + 1, scalars, nscalars * sizeof *scalars);
    gt_range range = {.dims = 1, .global = {items}, .local = {1}};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    int rc = gt_run(t->bad, k, &range, args, 1 + nscalars, &opts, NULL);
    const char *why = gt_last_error(t->bad);
    print_message("%s: %d: %s\n", name, rc, why);
    if (rc == 0)
        fail_msg("the launch of %s succeeded", name);
    for (const char *const *e = expect; *e; e++)
        if (!strstr(why, *e))
            fail_msg("the launch of %s failed with \"%s\", which does not say \"%s\"", name, why, *e);
    gt_buffer_release(b);
    gt_kernel_release(k);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

static void expect_failure(executor_test *t, const char *name, const gt_arg *scalars, unsigned nscalars,
                           const char *const *expect)
{
    expect_failure_over(t, name, 1, scalars, nscalars, expect);
}

static void test_null_dereference(void **state)
{
    expect_failure(*state, "write_null", (gt_arg[]){gt_arg_i32(1)}, 1,
                   (const char *const[]){"write_null failed", "SIGSEGV", "at address 0x0", NULL});
}

static void test_null_dereference_on_the_workers(void **state)
{
    expect_failure_over(*state, "write_null", 64, (gt_arg[]){gt_arg_i32(1)}, 1,
                        (const char *const[]){"write_null failed", "SIGSEGV", "at address 0x0", NULL});
}

/* The sandbox: what a kernel has no business doing ends its executor, and the error names the
 * system call. */
static void test_opening_a_file(void **state)
{
    expect_failure(*state, "opens_a_file", (gt_arg[]){gt_arg_i32(1)}, 1,
                   (const char *const[]){"opens_a_file failed", "SIGSYS", "it called openat, which the executor's "
                                         "sandbox forbids", NULL});
}

static void test_making_a_socket(void **state)
{
    expect_failure_over(*state, "makes_a_socket", 8, (gt_arg[]){gt_arg_i32(1)}, 1,
                        (const char *const[]){"makes_a_socket failed", "SIGSYS", "it called socket", NULL});
}

static void test_forking(void **state)
{
    expect_failure(*state, "forks", (gt_arg[]){gt_arg_i32(1)}, 1,
                   (const char *const[]){"forks failed", "SIGSYS", "it called clone", NULL});
}

/* A write a page past the end of its buffer lands in the guard after it. */
static void test_overrun_by_a_page(void **state)
{
    expect_failure(*state, "overrun", (gt_arg[]){gt_arg_i64(BAD_BYTES), gt_arg_i64(4096)}, 2,
                   (const char *const[]){"overrun failed", "SIGSEGV",
                                         "4096 bytes past the end of argument 0's buffer (4096 bytes)", NULL});
}

static void test_divide_by_zero(void **state)
{
    expect_failure(*state, "divide", (gt_arg[]){gt_arg_i32(0)}, 1,
                   (const char *const[]){"divide failed", "SIGFPE", NULL});
}

static void test_abort(void **state)
{
    expect_failure(*state, "aborts", (gt_arg[]){gt_arg_i32(1)}, 1,
                   (const char *const[]){"aborts failed", "SIGABRT", NULL});
}

static void test_forever_loop_past_the_timeout(void **state)
{
    expect_failure(*state, "forever", (gt_arg[]){gt_arg_i32(1)}, 1,
                   (const char *const[]){"forever failed", "ran past its deadline of " TIMEOUT_S "000 ms", NULL});
}

/* A client that runs a kernel that never returns, killed once it runs: its launch is
 * cancelled (its executor ended), and the next launches run. */
static void test_killed_client_cancels_its_running_launch(void **state)
{
    executor_test *t = *state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(ready[0]);
        gt_client *c = daemon_fixture_connect(&t->fx);
        gt_kernel *k;
        gt_buffer *b;
        if (gt_kernel_load(c, GT_BAD_KERNELS_MODULE, "forever", &k) || gt_buffer_create(c, BAD_BYTES, &b))
            _exit(1);
        gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(1)};
        gt_range range = {.dims = 1, .global = {1}, .local = {1}};
        gt_launch_options opts = gt_launch_options_default();
        opts.tuning = GT_TUNING_OFF;
        gt_event ev;
        if (gt_launch(c, k, &range, args, 2, &opts, &ev))
            _exit(1);
        (void)!write(ready[1], "L", 1);
        gt_wait(c, ev); /* never returns: the test kills this process */
        _exit(2);
    }
    close(ready[1]);
    char byte;
    assert_int_equal(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    /* Running, not queued: the launch's buffer was mapped and the kernel started. */
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        cJSON *st = daemon_fixture_status(t->good);
        double running = daemon_fixture_status_number(st, "launches.running");
        cJSON_Delete(st);
        if (running == 1 && daemon_fixture_buffer_map_count(&t->fx) == 3)
            break;
        if (gt_clock_ms() > deadline)
            fail_msg("the forever launch did not start within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    }
    kill(child, SIGKILL);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
         !daemon_fixture_log_has_line(&t->fx, "it was cancelled while running"); gt_clock_sleep_ms(10))
        if (gt_clock_ms() > deadline)
            fail_msg("gridtuned did not log the running launch's cancel");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* Launches `forever` through the bad client (with deadline_ms, 0 for none) and waits until it
 * runs: its buffer mapped in the executor beside the two clients' own. */
static gt_event launch_forever(executor_test *t, unsigned deadline_ms, gt_kernel **k, gt_buffer **b)
{
    assert_int_equal(gt_kernel_load(t->bad, GT_BAD_KERNELS_MODULE, "forever", k), 0);
    assert_int_equal(gt_buffer_create(t->bad, BAD_BYTES, b), 0);
    gt_arg args[] = {gt_arg_buffer(*b), gt_arg_i32(1)};
    gt_range range = {.dims = 1, .global = {1}, .local = {1}};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    opts.deadline_ms = deadline_ms;
    gt_event ev;
    assert_int_equal(gt_launch(t->bad, *k, &range, args, 2, &opts, &ev), 0);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        cJSON *st = daemon_fixture_status(t->good);
        double running = daemon_fixture_status_number(st, "launches.running");
        cJSON_Delete(st);
        if (running == 1 && daemon_fixture_buffer_map_count(&t->fx) == 3)
            return ev;
        if (gt_clock_ms() > deadline)
            fail_msg("the forever launch did not start within %d s", DAEMON_FIXTURE_GUARD_SECONDS);
    }
}

static void test_deadline_option(void **state)
{
    executor_test *t = *state;
    gt_kernel *k;
    gt_buffer *b;
    gt_event ev = launch_forever(t, 300, &k, &b);
    assert_int_equal(gt_wait(t->bad, ev), -ETIMEDOUT);
    assert_non_null(strstr(gt_last_error(t->bad), "ran past its deadline of 300 ms"));
    assert_int_equal(gt_event_release(t->bad, ev), 0);
    gt_buffer_release(b);
    gt_kernel_release(k);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* Through the bad client, whose requests wait until gridtuned has taken its previous launch
 * back (counted it, stored its decision). */
static double status_number(executor_test *t, const char *path)
{
    cJSON *st = daemon_fixture_status(t->bad);
    double v = daemon_fixture_status_number(st, path);
    cJSON_Delete(st);
    return v;
}

#define SMALL_GROUPS 64 /* --inline-groups of setup_inline */

/* One launch of `forever` over SMALL_GROUPS work-items with value v (0: it returns at once) through the
 * bad client, untuned (deadline_ms UINT_MAX: tuned, no deadline); 1 when it went straight from
 * gridtuned's loop to the executor (launches.direct). With ev, it is launched and *ev is its
 * event; else it is run and must succeed. */
static int launch_small(executor_test *t, gt_kernel *k, gt_buffer *b, int32_t v, unsigned deadline_ms, gt_event *ev)
{
    gt_range range = {.dims = 1, .global = {SMALL_GROUPS}, .local = {1}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(v)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = deadline_ms == UINT_MAX ? GT_TUNING_AUTO : GT_TUNING_OFF;
    deadline_ms = deadline_ms == UINT_MAX ? 0 : deadline_ms;
    opts.deadline_ms = deadline_ms;
    int32_t *data = gt_buffer_data(b);
    memset(data, 0xff, SMALL_GROUPS * sizeof *data);
    double before = status_number(t, "launches.direct");
    if (ev)
        assert_int_equal(gt_launch(t->bad, k, &range, args, 2, &opts, ev), 0);
    else {
        if (gt_run(t->bad, k, &range, args, 2, &opts, NULL) != 0)
            fail_msg("the small launch failed: %s", gt_last_error(t->bad));
        for (unsigned i = 0; i < SMALL_GROUPS; i++)
            assert_int_equal(data[i], 0);
    }
    return (int)(status_number(t, "launches.direct") - before);
}

/* A small launch (here of 64 workgroups, at most --inline-groups) goes from gridtuned's loop
 * straight to its executor once that has the kernel and the buffer and has sealed itself. One that does not answer while the loop polls is left
 * to the user's launcher thread, where its deadline and its cancel work as for any launch. */
static void test_small_launches_go_straight_to_the_executor(void **state)
{
    executor_test *t = *state;
    gt_kernel *k;
    gt_buffer *b;
    assert_int_equal(gt_kernel_load(t->bad, GT_BAD_KERNELS_MODULE, "forever", &k), 0);
    assert_int_equal(gt_buffer_create(t->bad, BAD_BYTES, &b), 0);
    /* a new kernel: a new executor, not sealed yet, so through the launcher thread */
    assert_int_equal(launch_small(t, k, b, 0, 0, NULL), 0);
    assert_int_equal(launch_small(t, k, b, 0, 0, NULL), 1);
    assert_int_equal(launch_small(t, k, b, 0, 0, NULL), 1);
    /* tuned: the first stores a decision (the launcher thread writes the wisdom), the next finds it */
    double entries = status_number(t, "wisdom.entries"), hits = status_number(t, "wisdom_hits");
    assert_int_equal(launch_small(t, k, b, 0, UINT_MAX, NULL), 1);
    assert_int_equal(status_number(t, "wisdom.entries"), entries + 1);
    assert_int_equal(launch_small(t, k, b, 0, UINT_MAX, NULL), 1);
    assert_int_equal(status_number(t, "wisdom_hits"), hits + 1);

    gt_event ev;
    assert_int_equal(launch_small(t, k, b, 1, 300, &ev), 1);
    assert_int_equal(gt_wait(t->bad, ev), -ETIMEDOUT);
    assert_non_null(strstr(gt_last_error(t->bad), "ran past its deadline of 300 ms"));
    assert_int_equal(gt_event_release(t->bad, ev), 0);

    /* the deadline ended the executor: the next launch starts and seals a new one */
    assert_int_equal(launch_small(t, k, b, 0, 0, NULL), 0);
    assert_int_equal(launch_small(t, k, b, 1, 0, &ev), 1);
    gt_event queued; /* behind it on the user's thread */
    gt_range range = {.dims = 1, .global = {GOOD_ITEMS}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(t->bad_buf), gt_arg_i32(5)};
    assert_int_equal(gt_launch(t->bad, t->bad_fill, &range, args, 2, NULL, &queued), 0);
    assert_int_equal(status_number(t, "launches.running"), 1);
    assert_int_equal(status_number(t, "launches.queued"), 1);
    assert_int_equal(gt_cancel(t->bad, ev), 0);
    assert_int_equal(gt_wait(t->bad, ev), -ECANCELED);
    assert_non_null(strstr(gt_last_error(t->bad), "cancelled while running"));
    assert_int_equal(gt_wait(t->bad, queued), 0);
    const int32_t *data = gt_buffer_data(t->bad_buf);
    assert_int_equal(data[GOOD_ITEMS - 1], 5 + GOOD_ITEMS - 1);
    assert_int_equal(gt_event_release(t->bad, ev), 0);
    assert_int_equal(gt_event_release(t->bad, queued), 0);
    gt_buffer_release(b);
    gt_kernel_release(k);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* gt_cancel of a queued launch: it never runs; of a running one: it is stopped; of a done one:
 * -EALREADY. */
static void test_cancel(void **state)
{
    executor_test *t = *state;
    gt_kernel *k;
    gt_buffer *b;
    gt_event running = launch_forever(t, 0, &k, &b);
    int32_t *data = gt_buffer_data(t->bad_buf);
    data[0] = -7;
    gt_range range = {.dims = 1, .global = {GOOD_ITEMS}, .local = {64}};
    gt_arg args[] = {gt_arg_buffer(t->bad_buf), gt_arg_i32(5)};
    gt_event queued;
    assert_int_equal(gt_launch(t->bad, t->bad_fill, &range, args, 2, NULL, &queued), 0);
    cJSON *st = daemon_fixture_status(t->good); /* one running, one waiting behind it */
    assert_int_equal(daemon_fixture_status_number(st, "launches.running"), 1);
    assert_int_equal(daemon_fixture_status_number(st, "launches.queued"), 1);
    cJSON_Delete(st);
    assert_int_equal(gt_cancel(t->bad, queued), 0);
    assert_int_equal(gt_cancel(t->bad, running), 0);
    assert_int_equal(gt_wait(t->bad, running), -ECANCELED);
    assert_non_null(strstr(gt_last_error(t->bad), "cancelled"));
    assert_int_equal(gt_wait(t->bad, queued), -ECANCELED);
    assert_non_null(strstr(gt_last_error(t->bad), "was cancelled by its client"));
    assert_int_equal(data[0], -7); /* the queued fill never ran */
    assert_int_equal(gt_cancel(t->bad, running), -EALREADY);
    assert_int_equal(gt_cancel(t->bad, 999999), -ENOENT);
    assert_int_equal(gt_event_release(t->bad, running), 0);
    assert_int_equal(gt_event_release(t->bad, queued), 0);
    gt_buffer_release(b);
    gt_kernel_release(k);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* ---- two users --------------------------------------------------------------------------- */

#define USER_A 65533
#define USER_B 65534
#define MARK_BYTES 48
#define USER_BUFFER_BYTES (64 * 1024)
#define SCAN_REGION_MAX (1ul << 30)

/* Whether process pid has a mapping of the file at path. */
static bool maps_file(pid_t pid, const char *path)
{
    char maps[64], line[PATH_MAX + 256];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(maps, "re");
    if (!f)
        fail_msg("cannot read %s: %s", maps, strerror(errno));
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line), m = strlen(path);
        found = n >= m && strcmp(line + n - m, path) == 0;
    }
    fclose(f);
    return found;
}

static pid_t executor_of(const daemon_fixture *fx, uid_t uid);

/* The clients loaded the fill kernel and ran it: its module is mapped in the executor that
 * ran it, never in gridtuned, which had a loader process describe it. */
static void test_gridtuned_never_maps_a_module(void **state)
{
    executor_test *t = *state;
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    pid_t executor = executor_of(&t->fx, getuid());
    assert_true(executor > 0);
    if (!maps_file(executor, GT_TEST_DAEMON_MODULE))
        fail_msg("the executor %d does not map %s, whose kernel it ran", (int)executor, GT_TEST_DAEMON_MODULE);
    if (maps_file(t->fx.pid, GT_TEST_DAEMON_MODULE))
        fail_msg("gridtuned maps the module %s", GT_TEST_DAEMON_MODULE);
}

/* Whether process pid has ended: a zombie with no thread left, which its parent can reap (its
 * first thread shows as a zombie while the others are still exiting), or gone. */
static bool has_ended(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return true;
    bool zombie = false, one_thread = false;
    while (fgets(line, sizeof line, f)) {
        zombie = zombie || strncmp(line, "State:\tZ", 8) == 0;
        one_thread = one_thread || strcmp(line, "Threads:\t1\n") == 0;
    }
    fclose(f);
    return zombie && one_thread;
}

/* An executor killed while idle (an operator, the OOM killer): no launch was running in it, so
 * none fails; the next launch starts a new one and runs right, and gridtuned says what it saw. */
static void test_executor_killed_while_idle(void **state)
{
    executor_test *t = *state;
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    pid_t executor = executor_of(&t->fx, getuid());
    assert_true(executor > 0);
    assert_int_equal(kill(executor, SIGKILL), 0);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000; !has_ended(executor);
         gt_clock_sleep_ms(5))
        if (gt_clock_ms() > deadline)
            fail_msg("the executor %d did not end after SIGKILL", (int)executor);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
    char line[128];
    snprintf(line, sizeof line, "(pid %d) killed by SIGKILL while idle; starting a new one", (int)executor);
    if (!daemon_fixture_file_has(t->fx.log, line))
        fail_msg("the log does not say \"%s\"", line);
}

/* Opening this module aborts its opener: the load fails, naming the signal, and gridtuned and
 * both clients go on. */
static void test_constructor_that_aborts(void **state)
{
    executor_test *t = *state;
    gt_kernel *k = NULL;
    int rc = gt_kernel_load(t->bad, GT_BAD_CONSTRUCTOR_MODULE, "never_runs", &k);
    const char *why = gt_last_error(t->bad);
    print_message("%d: %s\n", rc, why);
    assert_int_equal(rc, -EINVAL);
    assert_null(k);
    if (!strstr(why, "killed its loader with SIGABRT") || !strstr(why, GT_BAD_CONSTRUCTOR_MODULE))
        fail_msg("the load failed with \"%s\", which does not name the module and SIGABRT", why);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* This module's constructor ends the loader's answer and never returns: the load fails at the
 * load deadline (10 s), naming the module, instead of holding the thread every client's loads
 * go through until the loader exits; the loader is killed, and both clients go on. */
static void test_constructor_that_lingers(void **state)
{
    executor_test *t = *state;
    gt_kernel *k = NULL;
    int rc = gt_kernel_load(t->bad, GT_LINGERING_CONSTRUCTOR_MODULE, "never_described", &k);
    const char *why = gt_last_error(t->bad);
    print_message("%d: %s\n", rc, why);
    assert_true(rc < 0);
    assert_null(k);
    if (!strstr(why, "did not finish loading within") || !strstr(why, GT_LINGERING_CONSTRUCTOR_MODULE))
        fail_msg("the load failed with \"%s\", which does not name the module and the deadline", why);
    gt_kernel *again = NULL;
    assert_int_equal(gt_kernel_load(t->good, GT_TEST_DAEMON_MODULE, "fill", &again), 0);
    gt_kernel_release(again);
    run_fill(t, t->good, t->fill, t->good_buf, "good");
    run_fill(t, t->bad, t->bad_fill, t->bad_buf, "bad");
}

/* One client asks for two loads that each take the whole load deadline (10 s); another client of
 * the same user asks for one after them. Connections take turns on the kernel thread, so the
 * other client's load is answered when the first slow one ends, before the second one is: the
 * slow client has one answer then, and the next cannot come for another 10 s. */
static void test_loads_take_turns(void **state)
{
    executor_test *t = *state;
    raw_client slow;
    raw_client_open_hello(&slow, &t->fx);
    char req[PATH_MAX + 128];
    for (int id = 2; id <= 3; id++) {
        snprintf(req, sizeof req, "{\"type\":\"kernel_load\",\"id\":%d,\"path\":\"%s\",\"name\":\"never_described\"}",
                 id, GT_LINGERING_CONSTRUCTOR_MODULE);
        raw_client_send(&slow, req, NULL, 0);
    }
    /* the fixture's status call is answered on the loop: both loads are queued once it is */
    cJSON_Delete(raw_client_call(&slow, "{\"type\":\"status\",\"id\":4}", NULL, 0));
    gt_kernel *k = NULL;
    assert_int_equal(gt_kernel_load(t->good, GT_TEST_DAEMON_MODULE, "fill", &k), 0);
    gt_kernel_release(k);
    cJSON *first = raw_client_read(&slow);
    assert_non_null(first);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(first, "id")), 2);
    cJSON_Delete(first);
    struct pollfd pfd = {.fd = slow.fd, .events = POLLIN};
    if (gt_wire_pending(slow.reader) > 0 || poll(&pfd, 1, 0) != 0)
        fail_msg("the slow client's second load was answered before the other client's load");
    /* its answer, so that no load holds a loader's pipe open in gridtuned at the teardown */
    cJSON *second = raw_client_read(&slow);
    assert_non_null(second);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(second, "id")), 3);
    cJSON_Delete(second);
    raw_client_close(&slow);
}

/* The process of gridtuned's children (of any of its threads) whose command line (its
 * arguments, each ended by a NUL) holds the len bytes of want; 0 when none. */
static pid_t child_with(const daemon_fixture *fx, const char *want, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)fx->pid);
    DIR *dir = opendir(path);
    pid_t found = 0;
    for (struct dirent *e; dir && !found && (e = readdir(dir));) {
        char children[96];
        snprintf(children, sizeof children, "/proc/%d/task/%.32s/children", (int)fx->pid, e->d_name);
        FILE *f = fopen(children, "re");
        int child;
        while (f && !found && fscanf(f, "%d", &child) == 1) {
            char cmd[PATH_MAX + 512];
            snprintf(path, sizeof path, "/proc/%d/cmdline", child);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd) : -1;
            if (fd >= 0)
                close(fd);
            if (n > 0 && memmem(cmd, (size_t)n, want, len))
                found = child;
        }
        if (f)
            fclose(f);
    }
    if (dir)
        closedir(dir);
    return found;
}

/* A loader whose gridtuned is killed has no one to answer: it dies with it, rather than stay
 * (this module's constructor never returns). */
static void test_loader_dies_with_gridtuned(void **state)
{
    (void)state;
    daemon_fixture fx;
    daemon_fixture_start(&fx, NULL, NULL);
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    char req[PATH_MAX + 128];
    snprintf(req, sizeof req, "{\"type\":\"kernel_load\",\"id\":2,\"path\":\"%s\",\"name\":\"never_described\"}",
             GT_LINGERING_CONSTRUCTOR_MODULE);
    raw_client_send(&rc, req, NULL, 0);
    int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    pid_t loader;
    static const char describe[] = "--describe\0" GT_LINGERING_CONSTRUCTOR_MODULE;
    while (!(loader = child_with(&fx, describe, sizeof describe))) {
        if (gt_clock_ms() > deadline)
            fail_msg("no loader of the module appeared under gridtuned %d", (int)fx.pid);
        gt_clock_sleep_ms(10);
    }
    assert_int_equal(kill(fx.pid, SIGKILL), 0);
    deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;
    while (!has_ended(loader)) {
        if (gt_clock_ms() > deadline) {
            kill(loader, SIGKILL);
            fail_msg("the loader %d outlived its gridtuned by %d s", (int)loader, DAEMON_FIXTURE_GUARD_SECONDS);
        }
        gt_clock_sleep_ms(10);
    }
    raw_client_close(&rc);
    fx.pid = 0; /* killed on purpose: its files go */
    fx.exit_status = 0;
    daemon_fixture_clean_up(&fx);
}

/* A pattern that appears nowhere by chance: derived from the uid and the test's pid. */
static void user_mark(uid_t uid, pid_t test, unsigned char *mark)
{
    uint64_t x = ((uint64_t)uid << 32) ^ (uint64_t)test ^ 0x9e3779b97f4a7c15u;
    for (unsigned i = 0; i < MARK_BYTES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        mark[i] = (unsigned char)(x >> 24);
    }
}

/* In a child, as uid: a buffer full of the user's mark, a launch that leaves it so (fill
 * writes only the first work-item's four bytes), then it waits for the test to say go. */
static void user_child(const daemon_fixture *fx, uid_t uid, int ready, int go)
{
    pid_t test = getppid();
    become_user(uid, getgid(), true);
    unsigned char mark[MARK_BYTES];
    user_mark(uid, test, mark);
    gt_client *c = daemon_fixture_connect(fx);
    gt_kernel *k;
    gt_buffer *b;
    if (!c || gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k) || gt_buffer_create(c, USER_BUFFER_BYTES, &b))
        _exit(4);
    unsigned char *data = gt_buffer_data(b);
    for (size_t i = 0; i + MARK_BYTES <= USER_BUFFER_BYTES; i += MARK_BYTES)
        memcpy(data + i, mark, MARK_BYTES);
    gt_range range = {.dims = 1, .global = {1}, .local = {1}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(0)};
    if (gt_run(c, k, &range, args, 2, NULL, NULL))
        _exit(5);
    char byte = 'R';
    if (write(ready, &byte, 1) != 1 || read(go, &byte, 1) != 1)
        _exit(6);
    _exit(0);
}

/* The process of gridtuned's children whose command line says `--uid uid`; 0 when none. */
static pid_t executor_of(const daemon_fixture *fx, uid_t uid)
{
    char want[32];
    int wantlen = snprintf(want, sizeof want, "--uid%c%u", '\0', (unsigned)uid);
    return child_with(fx, want, (size_t)wantlen + 1);
}

/* Whether mark is anywhere in process pid's readable memory (/proc/PID/mem, as root). Regions
 * over SCAN_REGION_MAX are skipped: only a sanitizer's shadow reservations (terabytes, mostly
 * never touched) are that large here; gridtune maps nothing near it in these tests. */
static bool memory_holds(pid_t pid, const unsigned char *mark)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re");
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    int mem = open(path, O_RDONLY | O_CLOEXEC);
    if (!maps || mem < 0)
        fail_msg("cannot read the memory of process %d: %s", (int)pid, strerror(errno));
    bool found = false;
    unsigned long start, end;
    char perms[8];
    static unsigned char chunk[1 << 20];
    while (!found && fscanf(maps, "%lx-%lx %7s %*[^\n]", &start, &end, perms) == 3) {
        if (perms[0] != 'r' || end - start > SCAN_REGION_MAX)
            continue;
        for (unsigned long at = start; !found && at < end; at += sizeof chunk - MARK_BYTES) {
            size_t want = end - at < sizeof chunk ? end - at : sizeof chunk;
            ssize_t n = pread(mem, chunk, want, (off_t)at);
            if (n >= MARK_BYTES)
                found = memmem(chunk, (size_t)n, mark, MARK_BYTES) != NULL;
            if (end - at <= sizeof chunk)
                break;
        }
    }
    fclose(maps);
    close(mem);
    return found;
}

typedef struct users_test {
    daemon_fixture fx;
    pid_t children[2];
    int go[2];
} users_test;

static int setup_system(void **state);

/* Forks child i of t, which becomes uid and runs fn (which says on `ready` when it is set and
 * waits on `go`); returns once it is ready. A child that cannot become uid skips the test. */
typedef void user_child_fn(const daemon_fixture *fx, uid_t uid, int ready, int go);
static void start_user_child(users_test *t, int i, uid_t uid, user_child_fn *fn)
{
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    t->children[i] = fork();
    assert_true(t->children[i] >= 0);
    if (t->children[i] == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(ready[0]);
        close(t->go[1]);
        fn(&t->fx, uid, ready[1], t->go[0]);
    }
    close(ready[1]);
    char byte;
    ssize_t n = read(ready[0], &byte, 1);
    close(ready[0]);
    if (n != 1) {
        int status;
        waitpid(t->children[i], &status, 0);
        t->children[i] = 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == BECOME_USER_FAILED) {
            print_message("skipped: a child could not become uid %u\n", (unsigned)uid);
            skip();
        }
        fail_msg("the child of uid %u failed (wait status 0x%x)", (unsigned)uid, (unsigned)status);
    }
}

/* gridtuned in system mode, open to this process's group, and one child per user, each with its
 * buffer launched over and waiting. */
static int setup_users(void **state)
{
    setup_system(state);
    users_test *t = *state;
    const uid_t users[2] = {USER_A, USER_B};
    for (int i = 0; i < 2; i++)
        start_user_child(t, i, users[i], user_child);
    return 0;
}

static int teardown_users(void **state)
{
    users_test *t = *state;
    if (t->go[1] >= 0)
        close(t->go[1]); /* the children exit */
    for (int i = 0; i < 2; i++)
        if (t->children[i] > 0)
            waitpid(t->children[i], NULL, 0);
    if (t->go[0] >= 0)
        close(t->go[0]);
    daemon_fixture fx = t->fx;
    free(t);
    daemon_fixture_finish(&fx);
    return 0;
}

static void test_users_see_only_their_own_buffers(void **state)
{
    users_test *t = *state;
    const uid_t users[2] = {USER_A, USER_B};
    unsigned char marks[2][MARK_BYTES];
    pid_t executors[2];
    for (int i = 0; i < 2; i++) {
        user_mark(users[i], getpid(), marks[i]);
        executors[i] = executor_of(&t->fx, users[i]);
        if (!executors[i])
            fail_msg("gridtuned has no executor for uid %u", (unsigned)users[i]);
    }
    for (int i = 0; i < 2; i++) {
        if (!memory_holds(executors[i], marks[i]))
            fail_msg("the executor of uid %u does not hold its own user's buffer", (unsigned)users[i]);
        if (memory_holds(executors[i], marks[1 - i]))
            fail_msg("the executor of uid %u holds the buffer contents of uid %u", (unsigned)users[i],
                     (unsigned)users[1 - i]);
        if (memory_holds(t->fx.pid, marks[i]))
            fail_msg("gridtuned itself holds the buffer contents of uid %u", (unsigned)users[i]);
    }
    print_message("executors %d (uid %u) and %d (uid %u) each hold their own user's buffer only; gridtuned neither\n",
                  (int)executors[0], (unsigned)users[0], (int)executors[1], (unsigned)users[1]);
}

/* ---- a hang confined to its user -------------------------------------------------------- */

#define FILL_RUNS 3

/* A user's child: a launch of the forever kernel, no deadline; says when a launch runs, then
 * keeps its connection (and so its launch) until the test closes go. */
static void forever_child(const daemon_fixture *fx, uid_t uid, int ready, int go)
{
    become_user(uid, getgid(), true);
    gt_client *c = daemon_fixture_connect(fx);
    gt_kernel *k;
    gt_buffer *b;
    gt_event ev;
    gt_range range = {.dims = 1, .global = {1}, .local = {1}};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    if (!c || gt_kernel_load(c, GT_BAD_KERNELS_MODULE, "forever", &k) || gt_buffer_create(c, BAD_BYTES, &b))
        _exit(4);
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(1)};
    if (gt_launch(c, k, &range, args, 2, &opts, &ev))
        _exit(5);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        cJSON *st = daemon_fixture_status(c);
        double running = daemon_fixture_status_number(st, "launches.running");
        cJSON_Delete(st);
        if (running == 1)
            break;
        if (gt_clock_ms() > deadline)
            _exit(6);
    }
    char byte = 'R';
    if (write(ready, &byte, 1) != 1)
        _exit(7);
    (void)read(go, &byte, 1);
    _exit(0);
}

/* User B's child: FILL_RUNS launches of fill, every element checked; exits 0 when all are right. */
static void fill_child(const daemon_fixture *fx)
{
    become_user(USER_B, getgid(), true);
    gt_client *c = daemon_fixture_connect(fx);
    gt_kernel *k;
    gt_buffer *b;
    if (!c || gt_kernel_load(c, GT_TEST_DAEMON_MODULE, "fill", &k) ||
        gt_buffer_create(c, GOOD_ITEMS * sizeof(int32_t), &b))
        _exit(4);
    for (int32_t run = 1; run <= FILL_RUNS; run++) {
        gt_range range = {.dims = 1, .global = {GOOD_ITEMS}, .local = {64}};
        gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(run * 1000)};
        if (gt_run(c, k, &range, args, 2, NULL, NULL))
            _exit(5);
        const int32_t *data = gt_buffer_data(b);
        for (int32_t i = 0; i < GOOD_ITEMS; i++)
            if (data[i] != run * 1000 + i)
                _exit(6);
    }
    _exit(0);
}

/* Whether child exited within the guard; it is killed if not. Its wait status in *status. */
static bool child_done(pid_t child, int *status)
{
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        if (waitpid(child, status, WNOHANG) == child)
            return true;
        if (gt_clock_ms() > deadline) {
            kill(child, SIGKILL);
            waitpid(child, status, 0);
            return false;
        }
    }
}

/* System mode, no launch timeout: user A's kernel never returns, and user B's launches run and
 * are right all the same. A's executor is paused at the end of each slice while B's waits
 * (status launches.paused), and resumed after: A's launch is still running when B is done. */
static void test_one_users_hang_does_not_hold_another(void **state)
{
    users_test *t = *state;
    start_user_child(t, 0, USER_A, forever_child);
    pid_t b = fork();
    assert_true(b >= 0);
    if (b == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        fill_child(&t->fx);
    }
    int status;
    if (!child_done(b, &status))
        fail_msg("user B's launches did not complete within %d s while user A's kernel ran: A's hang held them",
                 DAEMON_FIXTURE_GUARD_SECONDS);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("user B's child failed (wait status 0x%x)", (unsigned)status);
    /* gt_run is answered from the launcher thread before the loop's thread takes the launch
       back and counts it (launches.c, gt_launch_answer_early), so the status may not count B's
       last launch yet when B has its answer (it read 2 running, 2 succeeded once, under ASan):
       read it until it does. */
    gt_client *c = daemon_fixture_connect(&t->fx);
    double running, paused, succeeded;
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        cJSON *st = daemon_fixture_status(c);
        running = daemon_fixture_status_number(st, "launches.running");
        paused = daemon_fixture_status_number(st, "launches.paused");
        succeeded = daemon_fixture_status_number(st, "launches.succeeded");
        cJSON_Delete(st);
        if (succeeded >= FILL_RUNS || gt_clock_ms() > deadline)
            break;
    }
    gt_disconnect(c);
    print_message("B's %d launches done while A's ran: %g running, %g succeeded, paused %g times\n", FILL_RUNS, running,
                  succeeded, paused);
    assert_true(running == 1);
    assert_true(succeeded == FILL_RUNS);
    assert_true(paused >= 1);

    /* user B's own forever launch: the two users' launches run side by side, taking turns, and
       the status counts both as running (it once said 1 whenever any launch was pending) */
    start_user_child(t, 1, USER_B, forever_child);
    c = daemon_fixture_connect(&t->fx);
    for (int64_t deadline = gt_clock_ms() + DAEMON_FIXTURE_GUARD_SECONDS * 1000;; gt_clock_sleep_ms(10)) {
        cJSON *st = daemon_fixture_status(c);
        running = daemon_fixture_status_number(st, "launches.running");
        double queued = daemon_fixture_status_number(st, "launches.queued");
        cJSON_Delete(st);
        if (running == 2 && queued == 0)
            break;
        if (gt_clock_ms() > deadline)
            fail_msg("the status says %g running and %g queued; expected both users' launches running", running,
                     queued);
    }
    gt_disconnect(c);
}

/* gridtuned in system mode, open to this process's group, with no launch timeout. */
static int setup_system(void **state)
{
    if (geteuid() != 0) {
        print_message("skipped: other users are played by child processes that setuid(), which needs root\n");
        skip();
    }
    users_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    *state = t;
    t->go[0] = t->go[1] = -1;
    static char group[256], dir[PATH_MAX];
    struct group *g = getgrgid(getgid());
    assert_non_null(g);
    snprintf(group, sizeof group, "%s", g->gr_name);
    snprintf(dir, sizeof dir, "%s", GT_TEST_DAEMON_MODULE);
    *strrchr(dir, '/') = '\0';
    daemon_fixture_start(&t->fx, NULL, (const char *const[]){"--system", "--group", group, "--module-dir", dir, NULL});
    assert_int_equal(pipe(t->go), 0);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_null_dereference, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_dereference_on_the_workers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_opening_a_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_making_a_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forking, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overrun_by_a_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_divide_by_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forever_loop_past_the_timeout, setup_with_timeout, teardown),
        cmocka_unit_test_setup_teardown(test_killed_client_cancels_its_running_launch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_launches_go_straight_to_the_executor, setup_inline, teardown),
        cmocka_unit_test_setup_teardown(test_gridtuned_never_maps_a_module, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constructor_that_aborts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constructor_that_lingers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loads_take_turns, setup, teardown),
        cmocka_unit_test(test_loader_dies_with_gridtuned),
        cmocka_unit_test_setup_teardown(test_executor_killed_while_idle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_users_see_only_their_own_buffers, setup_users, teardown_users),
        cmocka_unit_test_setup_teardown(test_one_users_hang_does_not_hold_another, setup_system, teardown_users),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
