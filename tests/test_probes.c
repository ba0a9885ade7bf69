/* test_probes.c: the eBPF probes in a real gridtuned.
 *
 * - With a busy loop pinned to worker 0's CPU, the probes count that worker's involuntary
 *   switches and time lost, and the launch's report marks the samples the loop disturbed as
 *   unused. Needs root and BPF; skipped, saying why, without them.
 * - With --no-probes, and with the capabilities BPF needs dropped, the daemon runs without
 *   probes and says why in its status and its reports.
 * No assertion is about speed: the busy loop and the worker share one CPU for the whole
 * launch, and the launch gives the worker many scheduler slices of work, so the scheduler
 * must take that CPU from the worker; what is checked is that the probes saw it and the tuner
 * acted on it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* 4096 x 2048 int32 in 16 x 16 workgroups: 32768 workgroups, enough for the analysis to take
 * many samples. */
#define SIDE_X 4096
#define SIDE_Y 2048
/* Steps of arithmetic per work-item (fill_slowly): they make the launch's work CPU time, many
 * scheduler slices of it on each worker. Filling the buffer alone is too little: once its
 * pages are mapped in before the launch, a worker may finish its share before the busy loop
 * is due its turn, and then the busy loop runs only while the worker sleeps. */
#define ROUNDS 16
/* Launches tried before concluding the busy loop disturbed no sample: a guard, not a figure
 * the test depends on (the first launch shows it). */
#define MAX_LAUNCHES 10

typedef struct probe_test {
    daemon_fixture fx;
    gt_client *c;
    gt_kernel *k;
    gt_buffer *b;
    pid_t hog;
} probe_test;

static int start(void **state, const char *const *extra, bool without_bpf)
{
    probe_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    daemon_fixture_start_as(&t->fx, NULL, extra, without_bpf);
    t->c = daemon_fixture_connect(&t->fx);
    assert_int_equal(gt_kernel_load(t->c, GT_TEST_DAEMON_MODULE, "fill_slowly", &t->k), 0);
    assert_int_equal(gt_buffer_create(t->c, (size_t)SIDE_X * SIDE_Y * sizeof(int32_t), &t->b), 0);
    *state = t;
    return 0;
}

static int setup_default(void **state) { return start(state, NULL, false); }
static int setup_no_probes(void **state) { return start(state, (const char *const[]){"--no-probes", NULL}, false); }
static int setup_without_bpf(void **state) { return start(state, NULL, true); }

static int teardown(void **state)
{
    probe_test *t = *state;
    if (t->hog > 0) {
        kill(t->hog, SIGKILL);
        waitpid(t->hog, NULL, 0);
    }
    gt_buffer_release(t->b);
    gt_kernel_release(t->k);
    gt_disconnect(t->c);
    daemon_fixture fx = t->fx;
    free(t);
    daemon_fixture_finish(&fx);
    return 0;
}

static const char *text_at(const cJSON *o, const char *a, const char *b)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b));
}

static double number_of(const cJSON *o, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(n))
        fail_msg("no number %s", key);
    return n->valuedouble;
}

/* One retuned launch of fill_slowly, its output checked, and its report. */
static cJSON *launch(probe_test *t, int32_t v)
{
    gt_range range = {.dims = 2, .global = {SIDE_X, SIDE_Y}, .local = {16, 16}};
    gt_arg args[] = {gt_arg_buffer(t->b), gt_arg_i32(v), gt_arg_i32(ROUNDS)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_RETUNE;
    gt_event ev;
    char *json = NULL;
    int32_t *data = gt_buffer_data(t->b);
    memset(data, 0xff, (size_t)SIDE_X * SIDE_Y * sizeof *data);
    if (gt_launch(t->c, t->k, &range, args, 3, &opts, &ev) || gt_wait(t->c, ev) || gt_report(t->c, ev, &json) ||
        gt_event_release(t->c, ev))
        fail_msg("launch %d: %s", v, gt_last_error(t->c));
    for (size_t i = 0; i < (size_t)SIDE_X * SIDE_Y; i++)
        if (data[i] != v + (int32_t)i)
            fail_msg("launch %d: element %zu is %d, not %d", v, i, data[i], v + (int32_t)i);
    cJSON *report = cJSON_Parse(json);
    free(json);
    assert_non_null(report);
    return report;
}

/* Worker `index` in the status's probes: its thread id, and the figure named `key`. */
static double worker_figure(gt_client *c, unsigned index, const char *key, pid_t *tid)
{
    cJSON *st = daemon_fixture_status(c);
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "probes"),
                                                                         "workers"),
                                        (int)index);
    if (!w)
        fail_msg("the status lists no probe figures for worker %u", index);
    if (tid)
        *tid = (pid_t)number_of(w, "tid");
    double v = number_of(w, key);
    cJSON_Delete(st);
    return v;
}

/* Skips (with the reason) unless the daemon's probes are on; fails instead when
   GT_TEST_REQUIRE_PROBES is set, so that a machine meant to have them cannot skip silently. */
static void need_probes(probe_test *t)
{
    cJSON *st = daemon_fixture_status(t->c);
    const char *state = text_at(st, "probes", "state"), *summary = text_at(st, "probes", "summary");
    bool on = state && strcmp(state, "on") == 0;
    char why[256];
    snprintf(why, sizeof why, "this test needs root and BPF, and gridtuned says probes: %s", summary ? summary : "?");
    cJSON_Delete(st);
    if (!on && getenv("GT_TEST_REQUIRE_PROBES"))
        fail_msg("%s (GT_TEST_REQUIRE_PROBES is set)", why);
    if (!on) {
        print_message("skipped: %s\n", why);
        skip();
    }
}

/* A child spinning on cpu until killed. */
static pid_t start_hog(int cpu)
{
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            _exit(1);
        for (volatile unsigned long spin = 0;; spin++)
            ;
    }
    return pid;
}

/* The one CPU thread tid is pinned to. */
static int pinned_cpu(pid_t tid)
{
    cpu_set_t set;
    if (sched_getaffinity(tid, sizeof set, &set) != 0)
        fail_msg("sched_getaffinity(%d): %s", (int)tid, strerror(errno));
    if (CPU_COUNT(&set) != 1)
        fail_msg("worker thread %d is not pinned to one CPU", (int)tid);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    return -1;
}

/* A disturbed sample: probe figures whose off-CPU time exceeds the share, and unused unless
   the report says the contention was steady (then disturbed samples count). */
static unsigned count_disturbed(const cJSON *report)
{
    bool steady = cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "phases"), "steady_contention"));
    double share = number_of(cJSON_GetObjectItemCaseSensitive(report, "tuning"), "disturbed_share");
    unsigned n = 0;
    const cJSON *cand, *smp;
    cJSON_ArrayForEach(cand, cJSON_GetObjectItemCaseSensitive(report, "candidates"))
    {
        cJSON_ArrayForEach(smp, cJSON_GetObjectItemCaseSensitive(cand, "samples"))
        {
            const cJSON *probe = cJSON_GetObjectItemCaseSensitive(smp, "probe");
            assert_true(cJSON_IsObject(probe));
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(smp, "disturbed")))
                continue;
            if (!steady)
                assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(smp, "used")));
            assert_true(number_of(probe, "worst_offcpu_ns") > share * number_of(smp, "wall_ns"));
            assert_true(number_of(probe, "offcpu_ns") >= number_of(probe, "worst_offcpu_ns"));
            n++;
        }
    }
    assert_int_equal(number_of(cJSON_GetObjectItemCaseSensitive(report, "phases"), "disturbed_samples"), n);
    return n;
}

static void test_busy_loop_on_a_workers_cpu_is_seen(void **state)
{
    probe_test *t = *state;
    need_probes(t);
    pid_t tid;
    double switches_before = worker_figure(t->c, 0, "involuntary_switches", &tid);
    double offcpu_before = worker_figure(t->c, 0, "offcpu_ns", NULL);
    t->hog = start_hog(pinned_cpu(tid));
    unsigned disturbed = 0, launches = 0;
    double switches = switches_before, offcpu = offcpu_before;
    /* Each figure asserted below is waited for, not one standing for another: a switch of
       worker 0 may be to one of gridtuned's own threads, which is not time lost, and a
       disturbed sample may be another task's doing on the other worker's CPU. */
    while ((disturbed == 0 || switches == switches_before || offcpu == offcpu_before) && launches < MAX_LAUNCHES) {
        cJSON *report = launch(t, (int32_t)(launches++ * 1000));
        assert_string_equal(text_at(report, "probes", "state"), "on");
        disturbed += count_disturbed(report);
        cJSON_Delete(report);
        switches = worker_figure(t->c, 0, "involuntary_switches", NULL);
        offcpu = worker_figure(t->c, 0, "offcpu_ns", NULL);
    }
    if (disturbed == 0)
        fail_msg("%u launches beside a busy loop on worker 0's CPU, and no sample was marked disturbed", launches);
    if (switches == switches_before)
        fail_msg("%u launches beside a busy loop on worker 0's CPU, and no involuntary switch of it", launches);
    if (offcpu == offcpu_before)
        fail_msg("%u launches beside a busy loop on worker 0's CPU, and no time it waited for another task", launches);
    assert_true(offcpu > offcpu_before);
    cJSON *st = daemon_fixture_status(t->c);
    assert_true(daemon_fixture_status_number(st, "probes.disturbed_samples") >= disturbed);
    cJSON_Delete(st);
    print_message("%u launches: %u disturbed samples, %.0f involuntary switches of worker 0, %.1f ms it waited\n",
                  launches, disturbed, switches - switches_before, (offcpu - offcpu_before) / 1e6);
}

/* Without probes: the state and why, in the status and the report; samples carry no figures
   and none is disturbed. */
static void assert_runs_without_probes(probe_test *t, const char *state, const char *why)
{
    cJSON *st = daemon_fixture_status(t->c);
    assert_string_equal(text_at(st, "probes", "state"), state);
    const char *summary = text_at(st, "probes", "summary");
    assert_non_null(summary);
    if (!strstr(summary, why))
        fail_msg("the status says probes: %s, which does not say \"%s\"", summary, why);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "probes"),
                                                                         "workers")),
                     0);
    cJSON *report = launch(t, 7);
    assert_string_equal(text_at(report, "probes", "state"), state);
    assert_string_equal(text_at(report, "probes", "summary"), summary);
    const cJSON *cand, *smp;
    unsigned samples = 0;
    cJSON_ArrayForEach(cand, cJSON_GetObjectItemCaseSensitive(report, "candidates"))
    {
        cJSON_ArrayForEach(smp, cJSON_GetObjectItemCaseSensitive(cand, "samples"))
        {
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(smp, "probe")));
            assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(smp, "disturbed")));
            samples++;
        }
    }
    assert_true(samples > 0);
    char line[256];
    snprintf(line, sizeof line, "probes: %s; samples are not checked for disturbance", summary);
    cJSON_Delete(report);
    cJSON_Delete(st);
    if (!daemon_fixture_log_has_line(&t->fx, line))
        fail_msg("the log %s has no line ending in \"%s\"", t->fx.log, line);
}

static void test_no_probes_flag_turns_them_off(void **state)
{
    assert_runs_without_probes(*state, "off", "off (turned off with --no-probes)");
}

/* Reasons that come before any capability is asked for: then this machine cannot show the
   capability's. */
static const char *const earlier_reasons[] = {"built without BPF", "no kernel BTF", "locked down", "PID namespace"};

static void test_without_bpf_capabilities_the_daemon_says_why(void **state)
{
    probe_test *t = *state;
    if (geteuid() != 0) {
        print_message("skipped: dropping the capabilities BPF needs takes root; as a user the probes are "
                      "unavailable anyway\n");
        skip();
    }
    cJSON *st = daemon_fixture_status(t->c);
    const char *summary = text_at(st, "probes", "summary");
    for (size_t i = 0; summary && i < sizeof earlier_reasons / sizeof earlier_reasons[0]; i++)
        if (strstr(summary, earlier_reasons[i])) {
            print_message("skipped: the probes are unavailable here before capabilities matter: %s\n", summary);
            cJSON_Delete(st);
            skip();
        }
    cJSON_Delete(st);
    assert_runs_without_probes(t, "unavailable", "CAP_BPF");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_busy_loop_on_a_workers_cpu_is_seen, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_no_probes_flag_turns_them_off, setup_no_probes, teardown),
        cmocka_unit_test_setup_teardown(test_without_bpf_capabilities_the_daemon_says_why, setup_without_bpf,
                                        teardown),
    };
    return cmocka_run_group_tests_name("gridtuned's eBPF probes", tests, NULL, NULL);
}
