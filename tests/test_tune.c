/* test_tune.c: the tuner's decisions, driven through a fake executor with a cost model.
 * Nothing here reads a clock: every time is the model's, so every outcome is exact. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/fake_executor.h"
#include "tuner/refine.h"
#include "tuner/sampler.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 4096 x 4096 work-items in 16 x 16 workgroups: a 256 x 256 grid. */
static const gt_range square = {.dims = 2, .global = {4096, 4096, 1}, .local = {16, 16, 1}};

typedef struct fixture {
    fake_executor fake;
    gt_executor exec;
    gt_tune_config cfg;
    gt_tune_launch launch;
    gt_tune_result result;
    char err[256];
} fixture;

static void fixture_init(fixture *fx, const gt_range *range)
{
    memset(fx, 0, sizeof *fx);
    fake_executor_init(&fx->fake, range, 2, &fx->exec);
    fx->cfg = gt_tune_config_default();
    fx->cfg.sample_ns = 50000; /* 100 of the model's workgroups per sample */
    fx->cfg.budget = 0.10;     /* the scenarios below are sized for 65 such samples */
    fx->launch = (gt_tune_launch){.kernel = "k", .kernel_hash = "00000000000000aa", .machine = "00000000000000bb",
                                  .range = *range};
}

static void fixture_fini(fixture *fx)
{
    gt_tune_result_free(&fx->result);
    fake_executor_fini(&fx->fake);
}

static int tune(fixture *fx, gt_wisdom *w)
{
    gt_tune_result_free(&fx->result);
    return gt_tune_run(&fx->cfg, &fx->launch, &fx->exec, w, &fx->result, fx->err, sizeof fx->err);
}

static void assert_winner(const gt_tune_result *r, const char *expected)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&r->winner, text, sizeof text);
    assert_string_equal(text, expected);
}

static uint64_t budget_groups(const fixture *fx)
{
    return (uint64_t)(fx->cfg.budget * (double)fx->fake.groups);
}

/* Every workgroup ran exactly once, and the result accounts for all of them. */
static void assert_launch_complete(const fixture *fx)
{
    assert_int_equal(fake_executor_miscounted(&fx->fake), 0);
    assert_int_equal(fx->result.groups_analysis + fx->result.groups_remainder, fx->fake.groups);
    assert_int_equal(fx->result.groups_total, fx->fake.groups);
}

static size_t used_samples_of(const gt_candidate *c)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nsamples; k++)
        n += c->samples[k].used;
    return n;
}

/* The best setting of each axis wins, the assignment too. The assignment comes last, when the
   time limit has fallen with the tiles' speed: a budget that leaves it room. */
static void test_best_candidate_wins(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.budget = 0.2;
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx.fake, "assign=dynamic:4", 0.8, 0);
    fake_executor_factor(&fx.fake, "item=column", 1.4, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=dynamic:4");
    assert_int_equal(fx.result.source, GT_SOURCE_ANALYSIS);
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    /* The default costs 1 / (0.5 * 0.8) = 2.5 times the winner: a gain of 150%. */
    assert_true(fabs(fx.result.estimated_gain - 1.5) < 1e-9);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Nested rounds sample every candidate of an axis each round: more budget still. */
static void test_nested_finds_the_best_too(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.budget = 0.4;
    fx.cfg.strategy = GT_STRATEGY_NESTED;
    fake_executor_factor(&fx.fake, "group=hilbert", 0.7, 0);
    fake_executor_factor(&fx.fake, "assign=dynamic:8", 0.9, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=hilbert,item=linear,assign=dynamic:8");
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A model where every schedule part costs something different, fixed by a seed. */
static void scramble(fixture *fx, unsigned seed)
{
    static const char *const parts[] = {"assign=dynamic:4", "assign=dynamic:2", "assign=dynamic:16", "assign=stealing",
                                        "item=column", "item=tiled:2x2", "item=tiled:8x8", "group=column",
                                        "group=zigzag", "group=tiled:4x4", "group=hilbert"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        seed = seed * 1103515245u + 12345u;
        fake_executor_factor(&fx->fake, parts[i], 0.4 + (seed >> 16) % 1000 / 625.0, 0);
    }
}

static void test_budget_is_never_exceeded(void **state)
{
    (void)state;
    const double budgets[] = {0.01, 0.05, 0.1, 0.25, 0.49};
    const gt_range shapes[] = {
        square,
        {.dims = 1, .global = {1 << 20, 1, 1}, .local = {64, 1, 1}},
        {.dims = 3, .global = {256, 256, 64}, .local = {8, 8, 4}},
        {.dims = 2, .global = {8192, 48}, .local = {16, 16}},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
            for (int strategy = 0; strategy < 2; strategy++) {
                fixture fx;
                fixture_init(&fx, &shapes[s]);
                fx.cfg.budget = budgets[b];
                fx.cfg.strategy = (gt_strategy)strategy;
                scramble(&fx, (unsigned)(s * 10 + b));
                assert_int_equal(tune(&fx, NULL), 0);
                if (fx.result.groups_analysis > budget_groups(&fx))
                    fail_msg("shape %zu, budget %g, %s: analysis ran %llu workgroups, the budget is %llu", s,
                             budgets[b], gt_strategy_name((gt_strategy)strategy),
                             (unsigned long long)fx.result.groups_analysis, (unsigned long long)budget_groups(&fx));
                assert_launch_complete(&fx);
                fixture_fini(&fx);
            }
}

/* An executor whose kernel refuses spans: analysis tries none, and the configuration a report
   shows leaves the axis out. With spans allowed, the same launch does try them. */
static void test_a_kernel_that_refuses_spans_gets_none(void **state)
{
    (void)state;
    for (int refuse = 0; refuse < 2; refuse++) {
        fixture fx;
        fixture_init(&fx, &square);
        fx.exec.no_spans = refuse;
        assert_int_equal(tune(&fx, NULL), 0);
        size_t spanned = 0;
        for (size_t i = 0; i < fx.result.ncandidates; i++)
            spanned += fx.result.candidates[i].schedule.span > 1;
        if (refuse)
            assert_int_equal(spanned, 0);
        else
            assert_true(spanned > 0);
        gt_tune_config used = gt_tune_config_for(&fx.cfg, &fx.exec);
        assert_int_equal(!(used.space.axes & (1u << GT_AXIS_SPAN)), refuse);
        assert_launch_complete(&fx);
        fixture_fini(&fx);
    }
}

static void test_equal_costs_end_analysis_early(void **state)
{
    (void)state;
    for (int strategy = 0; strategy < 2; strategy++) {
        fixture fx;
        fixture_init(&fx, &square);
        fx.cfg.strategy = (gt_strategy)strategy;
        assert_int_equal(tune(&fx, NULL), 0);
        assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
        assert_winner(&fx.result, "group=linear,item=linear,assign=stealing");
        assert_non_null(strstr(fx.result.reason, "no candidate"));
        /* Each challenger was measured min_samples times at most, and the default, which
           defends on every axis, that many times more: every axis is flat by then. The
           confirmation then measured the default and one challenger four times more. */
        assert_true(fx.result.confirmation.ran);
        assert_false(fx.result.confirmation.replaced);
        assert_int_equal(fx.result.confirmation.incumbent, 0);
        for (size_t i = 0; i < fx.result.ncandidates; i++)
            assert_true(used_samples_of(&fx.result.candidates[i]) <=
                        fx.cfg.min_samples * (i == 0 ? GT_AXIS_COUNT : 1) +
                            (i == 0 || i == fx.result.confirmation.challenger ? 4 : 0));
        /* flat axes end early: both strategies spend about 93% of the budget on the four axes
           (the group axis's looks take GT_GROUP_SAMPLE_STRETCH times the others'), where
           running them out would spend all of it */
        assert_true(fx.result.groups_analysis < budget_groups(&fx) * 95 / 100);
        assert_true(fabs(fx.result.estimated_gain) < 1e-12);
        assert_launch_complete(&fx);
        fixture_fini(&fx);
    }
}

/* Later workgroups cost more; neighbouring, rotating samples keep that from crowning anyone. */
static void test_drift_does_not_pick_a_winner(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.fake.drift = 0.02;
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_small_gain_keeps_the_default(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:2x2", 0.99, 0); /* 1%: below the 3% minimum gain */
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_one_workgroup_does_no_analysis(void **state)
{
    (void)state;
    const gt_range one = {.dims = 2, .global = {16, 16, 1}, .local = {16, 16, 1}};
    fixture fx;
    fixture_init(&fx, &one);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_non_null(strstr(fx.result.reason, "too small"));
    assert_int_equal(fx.result.groups_analysis, 0);
    assert_int_equal(fx.fake.batches, 1);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Large enough to calibrate, too short to hold four samples: the default, and why. */
static void test_short_launch_is_not_analysed(void **state)
{
    (void)state;
    const gt_range short_launch = {.dims = 1, .global = {64 * 1000, 1, 1}, .local = {64, 1, 1}};
    fixture fx;
    fixture_init(&fx, &short_launch);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_non_null(strstr(fx.result.reason, "too small to pay for analysis: the launch takes about"));
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_forced_schedule_runs_whole_launch(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.forced = true;
    assert_int_equal(gt_schedule_parse("group=hilbert,item=tiled:4x4,assign=stealing", &fx.cfg.schedule, fx.err,
                                       sizeof fx.err),
                     0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_FORCED);
    assert_winner(&fx.result, "group=hilbert,item=tiled:4x4,assign=stealing");
    assert_int_equal(fx.fake.batches, 1);
    assert_int_equal(fx.result.ncandidates, 0);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_tuning_off_runs_the_default(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.mode = GT_TUNE_OFF;
    fake_executor_factor(&fx.fake, "assign=dynamic:4", 0.5, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_non_null(strstr(fx.result.reason, "off"));
    assert_int_equal(fx.fake.batches, 1);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_ipc_metric_uses_the_cycle_counters(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_add_cycle_counters(&fx.fake, &fx.exec);
    fx.cfg.metric = GT_METRIC_IPC;
    /* The item axis alone, since the metric is the point here: with every axis, column's
       look lowers the time limit, and the item axis's share of it ends before tiled:8x8's. */
    fx.cfg.space.axes = 1u << GT_AXIS_ITEM;
    /* column is faster in time but worse in cycles per instruction; tiled:8x8 the reverse. */
    fake_executor_factor(&fx.fake, "item=column", 0.6, 1.5);
    fake_executor_factor(&fx.fake, "item=tiled:8x8", 1.2, 0.5);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.metric, GT_METRIC_IPC);
    assert_string_equal(fx.result.metric_note, "");
    assert_winner(&fx.result, "group=linear,item=tiled:8x8,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_no_counters_fall_back_to_time(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.metric = GT_METRIC_IPC;
    fake_executor_factor(&fx.fake, "item=column", 0.6, 1.5);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.result.metric, GT_METRIC_TIME);
    assert_non_null(strstr(fx.result.metric_note, "PAPI_TOT_CYC"));
    assert_winner(&fx.result, "group=linear,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static void test_executor_failure_is_reported(void **state)
{
    (void)state;
    for (int at = 1; at <= 12; at += 5) {
        fixture fx;
        fixture_init(&fx, &square);
        fx.fake.fail_at_batch = at;
        assert_int_equal(tune(&fx, NULL), -EIO);
        assert_non_null(strstr(fx.err, "fails on purpose"));
        fixture_fini(&fx);
    }
}

static void test_bad_config_is_refused(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.budget = 0.5;
    assert_int_equal(tune(&fx, NULL), -EINVAL);
    assert_non_null(strstr(fx.err, "budget 0.5"));
    assert_int_equal(fx.fake.batches, 0);
    fixture_fini(&fx);
}

/* ---- with the wisdom --------------------------------------------------------------------- */

static char *temp_wisdom(void)
{
    char *dir = strdup("/tmp/gt-tune-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void remove_tree(char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

static gt_wisdom *open_wisdom(const char *dir, const char *name)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gt_wisdom *w = NULL;
    assert_int_equal(gt_wisdom_open(path, &w, err, sizeof err), 0);
    return w;
}

static void test_wisdom_hit_skips_analysis(void **state)
{
    (void)state;
    char *dir = temp_wisdom();
    gt_wisdom *w = open_wisdom(dir, "wisdom.json");
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.refine = false; /* the winner alone on later launches; refinement is tested below */
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(&fx, w), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_ANALYSIS);
    double gain = fx.result.estimated_gain;
    assert_int_equal(gt_wisdom_save(w, fx.err, sizeof fx.err), 0);
    gt_wisdom_close(w);
    fixture_fini(&fx);

    w = open_wisdom(dir, "wisdom.json"); /* from the file, as a new process would */
    fixture_init(&fx, &square);
    fx.cfg.refine = false;
    assert_int_equal(tune(&fx, w), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_WISDOM);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_int_equal(fx.result.groups_analysis, 0);
    assert_int_equal(fx.fake.batches, 1);
    assert_true(fabs(fx.result.estimated_gain - gain) < 1e-9);
    assert_launch_complete(&fx);

    /* A different worker count is a different key: analysis again. */
    fixture_fini(&fx);
    fixture_init(&fx, &square);
    fx.exec.workers = 3;
    assert_int_equal(tune(&fx, w), 0);
    assert_int_not_equal(fx.result.source, GT_SOURCE_WISDOM);
    gt_wisdom_close(w);
    fixture_fini(&fx);
    remove_tree(dir);
}

static void test_retune_ignores_and_replaces_the_wisdom(void **state)
{
    (void)state;
    char *dir = temp_wisdom();
    gt_wisdom *w = open_wisdom(dir, "wisdom.json");
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:8x8", 0.5, 0);
    assert_int_equal(tune(&fx, w), 0);
    assert_winner(&fx.result, "group=linear,item=tiled:8x8,assign=stealing");
    fixture_fini(&fx);

    fixture_init(&fx, &square);
    fx.cfg.mode = GT_TUNE_RETUNE;
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(&fx, w), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_ANALYSIS);
    fixture_fini(&fx);

    fixture_init(&fx, &square);
    assert_int_equal(tune(&fx, w), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_WISDOM);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    gt_wisdom_close(w);
    fixture_fini(&fx);
    remove_tree(dir);
}

static void test_corrupt_wisdom_is_survived(void **state)
{
    (void)state;
    char *dir = temp_wisdom();
    char path[512];
    snprintf(path, sizeof path, "%s/wisdom.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\": \"gridtune-wisdom\", \"version\": 1, \"entries\": [{\"kernel\": ", f);
    fclose(f);
    gt_wisdom *w = open_wisdom(dir, "wisdom.json");
    assert_true(strlen(gt_wisdom_warning(w)) > 0);
    assert_int_equal(gt_wisdom_count(w), 0);
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(&fx, w), 0);
    assert_int_equal(fx.result.source, GT_SOURCE_ANALYSIS);
    assert_int_equal(gt_wisdom_save(w, fx.err, sizeof fx.err), 0);
    assert_int_equal(gt_wisdom_count(w), 1);
    assert_launch_complete(&fx);
    gt_wisdom_close(w);
    fixture_fini(&fx);
    remove_tree(dir);
}

/* ---- samples disturbed by another tenant ------------------------------------------------------ */

/* Every sample the probes saw disturbed is unused, and the used ones were not disturbed. */
static void assert_disturbed_unused(const gt_tune_result *r, unsigned *disturbed)
{
    *disturbed = 0;
    for (size_t i = 0; i < r->ncandidates; i++)
        for (size_t k = 0; k < r->candidates[i].nsamples; k++) {
            const gt_sample *smp = &r->candidates[i].samples[k];
            assert_true(smp->probed);
            if (smp->disturbed) {
                assert_false(smp->used);
                assert_true(smp->probe.offcpu_ns > 0);
                (*disturbed)++;
            }
        }
}

/* The tenant takes 20 samples' time from every third sample of the best schedule: a few
   samples in all, so the contention is not steady. */
/* The fake's tenant follows the parts of a schedule's text, and every span of the best schedule
   has all of its parts: with spans explored, it would disturb four more candidates than the
   one this is about, so the span axis stays off. */
static void tenant_on_the_best(fixture *fx)
{
    fx->cfg.space.axes &= ~(1u << GT_AXIS_SPAN);
    fake_executor_factor(&fx->fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_tenant(&fx->fake, "group=linear,item=tiled:4x4,assign=stealing", 3, 20 * fx->cfg.sample_ns);
}

/* A tuned launch of square, with probes, beside tenant_on_the_best. */
static void tune_probed_beside_the_tenant(fixture *fx)
{
    fixture_init(fx, &square);
    fake_executor_add_probes(&fx->fake, &fx->exec);
    tenant_on_the_best(fx);
    assert_int_equal(tune(fx, NULL), 0);
}

static void test_disturbed_samples_are_left_out_and_measured_again(void **state)
{
    (void)state;
    fixture fx;
    tune_probed_beside_the_tenant(&fx);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_false(fx.result.steady_contention);
    unsigned disturbed;
    assert_disturbed_unused(&fx.result, &disturbed);
    assert_true(fx.fake.disturbed > 0);
    assert_int_equal(disturbed, fx.fake.disturbed);
    assert_int_equal(fx.result.disturbed_samples, disturbed);
    /* each disturbed sample was followed by a clean one of the same candidate */
    assert_int_equal(fx.result.remeasured, disturbed);
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* On 16 workers one preempted worker is as much a disturbance as on two: the batch may wait
   for its share whatever the other fifteen do. */
static void test_one_waiting_worker_of_many_disturbs_a_sample(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_fini(&fx.fake);
    fake_executor_init(&fx.fake, &square, 16, &fx.exec);
    fx.cfg.sample_ns /= 8; /* still 100 workgroups a sample, as on 2 workers */
    fake_executor_add_probes(&fx.fake, &fx.exec);
    tenant_on_the_best(&fx);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_true(fx.fake.disturbed > 0);
    assert_int_equal(fx.result.disturbed_samples, fx.fake.disturbed);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* With probes, the result carries each phase's page faults: the analysis's every batch,
   calibration and disturbed samples included, and the remainder's (one per workgroup here). */
static void test_page_faults_of_each_phase_are_summed(void **state)
{
    (void)state;
    fixture fx;
    tune_probed_beside_the_tenant(&fx);
    uint64_t sampled = 0;
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        for (size_t k = 0; k < fx.result.candidates[i].nsamples; k++)
            sampled += fx.result.candidates[i].samples[k].probe.page_faults;
    assert_true(fx.result.remainder_probed);
    assert_true(fx.result.groups_analysis > 0);
    assert_int_equal(fx.result.analysis_page_faults, fx.result.groups_analysis);
    assert_int_equal(fx.result.analysis_page_faults, sampled);
    assert_int_equal(fx.result.remainder_page_faults, fx.result.groups_remainder);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The same tenant without probes: its slow samples count, as the probes' absence implies. */
static void test_without_probes_disturbed_samples_count(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    tenant_on_the_best(&fx);
    assert_int_equal(tune(&fx, NULL), 0);
    size_t slow_used = 0;
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        for (size_t k = 0; k < fx.result.candidates[i].nsamples; k++) {
            const gt_sample *smp = &fx.result.candidates[i].samples[k];
            assert_false(smp->probed);
            assert_false(smp->disturbed);
            slow_used += smp->used && smp->wall_ns > 10 * fx.cfg.sample_ns;
        }
    assert_true(fx.fake.disturbed > 0);
    assert_int_equal(slow_used, fx.fake.disturbed);
    assert_int_equal(fx.result.disturbed_samples, 0);
    assert_int_equal(fx.result.remeasured, 0);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A tenant on every batch is the machine's steady state: after the first samples the
   disturbed ones count, none is measured again, and the best schedule still wins, since the
   remainder runs under the same tenant. */
static void test_a_tenant_on_every_sample_is_steady_contention(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_add_probes(&fx.fake, &fx.exec);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    /* A tenant small enough not to stretch the samples (calibration sees it as the batches'
       fixed cost), disturbing all the same. */
    fx.cfg.disturbed_share = 0.02;
    fake_executor_tenant(&fx.fake, "", 1, fx.cfg.sample_ns / 10);
    /* Until the contention is found steady, every sample is measured again: a budget for that. */
    fx.cfg.budget = 0.2;
    assert_int_equal(tune(&fx, NULL), 0);
    assert_true(fx.result.steady_contention);
    /* each disturbed batch disturbed its sample; a look is two batches */
    assert_true(fx.result.disturbed_samples > 0 && fx.result.disturbed_samples <= fx.fake.disturbed);
    size_t used = 0, samples = 0, calibrations = 0, warm_ups = 0;
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        for (size_t k = 0; k < fx.result.candidates[i].nsamples; k++) {
            const gt_sample *smp = &fx.result.candidates[i].samples[k];
            assert_true(smp->disturbed);
            calibrations += smp->kind == GT_SAMPLE_CALIBRATION;
            warm_ups += smp->kind == GT_SAMPLE_WARM_UP;
            /* a warm-up never counts, nor calibration, not even once the contention is steady */
            assert_false(smp->used && (smp->kind == GT_SAMPLE_WARM_UP || smp->kind == GT_SAMPLE_CALIBRATION));
            used += smp->used;
            samples++;
        }
    /* every sample but the calibration's and the warm-ups counts; re-measures stopped once it was
       clear, and calibration measured a disturbed stretch again three times at most */
    assert_true(calibrations >= 2 && calibrations <= 3 + 3);
    assert_true(used > 0 && samples - calibrations - warm_ups - used <= 2);
    assert_true(fx.result.remeasured < 20);
    assert_non_null(strstr(fx.result.reason, "disturbed by steady contention, counted"));
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

static const gt_candidate *candidate_of(const gt_tune_result *r, const char *schedule)
{
    for (size_t i = 0; i < r->ncandidates; i++) {
        char text[GT_SCHEDULE_TEXT_MAX];
        gt_schedule_format(&r->candidates[i].schedule, text, sizeof text);
        if (strcmp(text, schedule) == 0)
            return &r->candidates[i];
    }
    fail_msg("no candidate %s", schedule);
    return NULL;
}

/* A candidate's first sample that counts for it: its look, or the glance that ended it; a
   stretched candidate's first sample is the warm-up before it. */
static const gt_sample *look_of(const gt_candidate *c)
{
    size_t i = c->nsamples && c->samples[0].kind == GT_SAMPLE_WARM_UP;
    assert_true(i < c->nsamples);
    return &c->samples[i];
}

/* A candidate's samples are stretches of its own walk that start spread over the whole walk,
   not at the grid's start: the first quarter and the last quarter both hold starts. */
/* A launch of square tuned where item=tiled:4x4 halves the cost; its candidate. The budget
   is twice the default's: the analysis's time limit (a tenth of the launch at the tiles'
   speed) would otherwise leave the last axes a sample or two. */
static const gt_candidate *tuned_with_fast_tiles(fixture *fx)
{
    fixture_init(fx, &square);
    fx->cfg.budget = 0.2;
    fake_executor_factor(&fx->fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(fx, NULL), 0);
    return candidate_of(&fx->result, "group=linear,item=tiled:4x4,assign=stealing");
}

static void test_samples_start_spread_over_the_walk(void **state)
{
    (void)state;
    fixture fx;
    const gt_candidate *c = tuned_with_fast_tiles(&fx);
    const uint64_t positions = 256 * 256; /* the walk of square's grid in spans of 1 */
    bool early = false, late = false;
    for (size_t k = 0; k < c->nsamples; k++) {
        const gt_sample *smp = &c->samples[k];
        assert_true(smp->start < positions);
        assert_true(smp->runs >= 1 && smp->runs <= smp->groups);
        early |= smp->start < positions / 4;
        late |= smp->start >= positions * 3 / 4;
    }
    assert_true(c->nsamples >= 4);
    assert_true(early && late);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The sized samples of the analysis, each asserted to take the asked-for time within 30%. */
static size_t sized_samples_as_asked(const fixture *fx)
{
    size_t sized = 0;
    for (size_t i = 0; i < fx->result.ncandidates; i++)
        for (size_t k = 0; k < fx->result.candidates[i].nsamples; k++) {
            const gt_sample *smp = &fx->result.candidates[i].samples[k];
            if (smp->kind != GT_SAMPLE_SIZED)
                continue;
            sized++;
            assert_true(fabs((double)smp->wall_ns / (double)fx->cfg.sample_ns - 1) <= 0.3);
        }
    return sized;
}

/* A candidate's first sample is sized by the default's speed; its later ones by its own, and
   take the asked-for time within 30%: here the candidate runs twice as fast as the default, so
   its look is half as long. */
static void test_sized_samples_take_the_asked_time(void **state)
{
    (void)state;
    fixture fx;
    const gt_candidate *c = tuned_with_fast_tiles(&fx);
    assert_int_equal(c->samples[0].kind, GT_SAMPLE_LOOK);
    assert_true(fabs((double)c->samples[0].wall_ns / (double)fx.cfg.sample_ns - 0.5) < 0.15);
    size_t sized = sized_samples_as_asked(&fx);
    assert_true(sized >= 5);
    fixture_fini(&fx);
}

/* A pool woken from a long sleep makes the first batch slow: calibration must not read the
   difference between it and the next as the cost of a workgroup. The default costs 0.8 us per
   workgroup (1.6 over 2 workers) and 5 us per batch, the first batch first_ns more; the warm-up
   (4 workgroups) sizes nothing, and the slope comes from 32 and 128 workgroups. Every sample
   then takes the asked-for time within 30%, and the looks are enough to find the winner. */
static void tune_after_a_slow_first_batch(uint64_t first_ns)
{
    fixture fx;
    fixture_init(&fx, &square);
    fx.fake.base_ns = 1600;
    fx.fake.fixed_ns = 5000;
    fx.fake.first_ns = first_ns;
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    size_t looks = 0, calibrations = 0;
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        for (size_t k = 0; k < fx.result.candidates[i].nsamples; k++) {
            const gt_sample *smp = &fx.result.candidates[i].samples[k];
            if (smp->kind == GT_SAMPLE_CALIBRATION) {
                calibrations++;
                continue;
            }
            looks += smp->kind == GT_SAMPLE_LOOK;
            double asked = gt_sample_stretch(&fx.result.candidates[i]) * (double)fx.cfg.sample_ns;
            assert_true((double)smp->wall_ns <= 1.3 * asked);
        }
    assert_int_equal(calibrations, 3); /* 4, 32 and 128 workgroups */
    assert_true(looks >= 5);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* 16 us more: the first two stretches (4 and 32 workgroups: 24.2 and 30.6 us) show a slope of
   0.23 us and a fixed part of 23 us, which sized looks of about 900 workgroups (740 us, 15
   times the asked-for time) when calibration took any slope. */
static void test_a_slow_first_batch_does_not_stretch_the_samples(void **state)
{
    (void)state;
    tune_after_a_slow_first_batch(16000);
}

/* 8 us more: 16.2 and 30.6 us show a slope of 0.51 us, which passes for believed (its 32
   workgroups take more than half of the stretch), and a fixed part of 14 us, which sized
   samples of 141 us, 2.8 times the asked 50 (conv11 and matmul_tiled here: a first batch
   100-370 us slower, samples 4-8 times the asked length). */
static void test_a_first_batch_a_little_slow_does_not_stretch_the_samples(void **state)
{
    (void)state;
    tune_after_a_slow_first_batch(8000);
}

/* Calibration grows its stretches eightfold until one takes half a sample, but once the
   slope between two is believed it sizes the next from it: three quarters of a sample, and at
   least four times the last stretch, so that the next slope is not noise. Here 4 and 32
   workgroups (0.5 us each: 2 and 16 us) show the slope; three quarters of the asked 50 us
   are 75 workgroups, four times 32 are 128 (64 us), where growing on would have run 256
   (128 us). */
static void test_calibration_ends_near_the_asked_length(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *def = &fx.result.candidates[0];
    size_t calibrations = 0;
    const gt_sample *last = NULL;
    for (size_t k = 0; k < def->nsamples; k++)
        if (def->samples[k].kind == GT_SAMPLE_CALIBRATION) {
            calibrations++;
            last = &def->samples[k];
        }
    assert_int_equal(calibrations, 3);
    assert_int_equal(last->groups, 128);
    assert_true((double)last->wall_ns >= 0.5 * (double)fx.cfg.sample_ns);
    assert_true((double)last->wall_ns <= 1.3 * (double)fx.cfg.sample_ns);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Another task takes 1 ms from calibration's third stretch (128 workgroups, 64 us of work):
   taken as it is, its slope makes a workgroup cost 22 times what it does, and samples far
   shorter than asked. The stretch runs again on fresh workgroups, and the samples
   are sized by undisturbed stretches alone. */
static void test_a_disturbed_calibration_stretch_runs_again(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_add_probes(&fx.fake, &fx.exec);
    fake_executor_tenant(&fx.fake, "", 3, 1000000);
    fx.fake.tenant_last = 3;
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_int_equal(fx.fake.disturbed, 1);
    const gt_candidate *def = &fx.result.candidates[0];
    assert_true(def->nsamples >= 4);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(def->samples[k].kind, GT_SAMPLE_CALIBRATION);
    assert_true(def->samples[2].disturbed);
    assert_int_equal(def->samples[3].groups, def->samples[2].groups);
    assert_false(def->samples[3].disturbed);
    sized_samples_as_asked(&fx);
    /* The looks are sized by calibration's slope: the default's takes the asked-for time, and
       the tiles' half of it. */
    size_t look = 4;
    while (look < def->nsamples && def->samples[look].kind != GT_SAMPLE_LOOK)
        look++;
    assert_true(look < def->nsamples);
    assert_true(fabs((double)def->samples[look].wall_ns / (double)fx.cfg.sample_ns - 1) <= 0.3);
    const gt_candidate *tiles = candidate_of(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_true(fabs((double)look_of(tiles)->wall_ns / (double)fx.cfg.sample_ns - 0.5) <= 0.15);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The default costs ten times the column order: a tenth of the workgroups at the default's
   speed would take as long as the whole launch at the winner's. The analysis's time limit is a
   tenth of the launch's time at the best speed seen (50 ns a workgroup: 0.1 x 65536 x 50 ns).
   The item axis comes first, so the column order is seen in the first round of looks; every
   sample after that round runs the column items, the assignments' looks too, at its speed,
   and the analysis ends within the limit, long before the budget's workgroups are spent. */
static void test_a_slow_default_does_not_spend_the_launchs_time(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=column", 0.1, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=linear,item=column,assign=stealing");
    double limit = fx.cfg.budget * 65536 * 50;
    assert_true(fabs(fx.result.analysis_limit_ns / limit - 1) < 1e-9);
    assert_true((double)fx.result.analysis_ns <= limit);
    const gt_candidate *column = candidate_of(&fx.result, "group=linear,item=column,assign=stealing");
    assert_int_equal(column->samples[0].kind, GT_SAMPLE_LOOK);
    bool assignments = false;
    for (size_t i = 0; i < fx.result.ncandidates; i++) {
        const gt_candidate *c = &fx.result.candidates[i];
        for (size_t k = 0; k < c->nsamples; k++)
            assert_true(c->samples[k].round <= column->samples[0].round ||
                        c->schedule.item.kind == GT_ORDER_COLUMN);
        assignments |= i > 0 && c->phase == GT_AXIS_ASSIGN && c->nsamples > 0;
    }
    assert_true(assignments);
    assert_true(fx.result.groups_analysis < budget_groups(&fx) / 2);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The widest span is a worker's whole share of a sample at the incumbent's speed: the
   default's samples are ten times smaller here (100 workgroups: a span of 12 at most, four per
   worker), the column order's hold 1000, so the span axis reaches a row of the grid (256). A
   span's samples hold whole spans for every worker, so that none waits on another's last. */
static void test_spans_reach_a_row_at_the_incumbents_speed(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.space.axes = 1u << GT_AXIS_ITEM | 1u << GT_AXIS_SPAN;
    fx.cfg.budget = 0.45; /* room for the span axis after the default's slow looks, and for
                             confirming samples of more than two spans */
    fake_executor_factor(&fx.fake, "item=column", 0.1, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *row = candidate_of(&fx.result, "group=linear,span=256,item=column,assign=stealing");
    assert_true(row->nsamples > 0);
    for (size_t i = 0; i < fx.result.ncandidates; i++) {
        const gt_candidate *c = &fx.result.candidates[i];
        for (size_t k = 0; c->schedule.span > 1 && k < c->nsamples; k++)
            assert_int_equal(c->samples[k].groups % (2 * c->schedule.span), 0);
    }
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Candidates the samples cannot tell apart (within the minimum gain) tie, and the first listed
 * of them is the axis's pick: item=column, before the tiled orders that the model makes 1-2%
 * faster. One clearly faster (test_best_candidate_wins) still wins. */
static void test_a_tie_goes_to_the_first_listed(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.space.axes = 1u << GT_AXIS_ITEM;
    fake_executor_factor(&fx.fake, "item=column", 0.5, 0);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.49, 0);
    fake_executor_factor(&fx.fake, "item=tiled:8x8", 0.495, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=linear,item=column,assign=stealing");
    assert_true(candidate_of(&fx.result, "group=linear,item=tiled:4x4,assign=stealing")->nsamples > 0);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The span axis keeps its best-looking span even among ties: the first listed span is the
 * widest a sample holds (73 workgroups here), which ties with short spans in samples far more
 * often than on the whole launch. */
static void test_spans_do_not_tie(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fx.cfg.space.axes = 1u << GT_AXIS_SPAN;
    fx.cfg.strategy = GT_STRATEGY_NESTED; /* no halving: both stay in the field to the end */
    fx.cfg.budget = 0.45;
    fake_executor_factor(&fx.fake, "span=73", 0.8, 0);
    fake_executor_factor(&fx.fake, "span=8", 0.785, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_true(candidate_of(&fx.result, "group=linear,span=73,item=linear,assign=stealing")->nsamples > 0);
    assert_winner(&fx.result, "group=linear,span=8,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A candidate whose look costs more than twice the best so far is dropped after it, and its
   look ends after its first quarter, which shows it: a quarter of the workgroups of a look
   that goes on (another of the item axis's). A group order's look, four times as long, ends
   after its glance only at four times that cost (the whole look would be hopeless even if its
   other quarters cost nothing); at three times the best its second quarter runs alone too,
   which shows it again: the look ends there, a warm-up of a quarter and a glance of a quarter,
   and the candidate leaves the race. */
static void test_a_hopeless_look_leaves_the_race(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=column", 3.0, 0);
    fake_executor_factor(&fx.fake, "group=column", 3.0, 0);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.8, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *c = candidate_of(&fx.result, "group=linear,item=column,assign=stealing");
    assert_int_equal(c->nsamples, 1);
    assert_int_equal(c->samples[0].kind, GT_SAMPLE_GLANCE);
    assert_true(c->samples[0].used);
    assert_true(c->eliminated);
    const gt_candidate *t = candidate_of(&fx.result, "group=linear,item=tiled:2x2,assign=stealing");
    assert_int_equal(t->samples[0].kind, GT_SAMPLE_LOOK);
    assert_true(4 * c->samples[0].groups <= t->samples[0].groups && 5 * c->samples[0].groups > t->samples[0].groups);
    const gt_candidate *g = candidate_of(&fx.result, "group=column,item=tiled:4x4,assign=stealing");
    assert_int_equal(g->nsamples, 2);
    assert_int_equal(g->samples[0].kind, GT_SAMPLE_WARM_UP);
    assert_false(g->samples[0].used);
    assert_int_equal(g->samples[1].kind, GT_SAMPLE_GLANCE);
    assert_int_equal(g->samples[0].groups, t->samples[0].groups);
    assert_int_equal(g->samples[1].groups, t->samples[0].groups);
    assert_true(g->eliminated);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A machine that stalls every batch for four samples' time is in steady contention too, and
   then the stalls count in the analysis's time as in its costs: the analysis ends within its
   time limit (left out of the time, they took it to 1.3 times the limit here). */
static void test_steady_contention_counts_in_the_time_limit(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_add_probes(&fx.fake, &fx.exec);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_tenant(&fx.fake, "", 1, 4 * fx.cfg.sample_ns);
    fx.cfg.budget = 0.3;
    assert_int_equal(tune(&fx, NULL), 0);
    assert_true(fx.result.steady_contention);
    assert_true(fx.result.disturbed_samples > 0);
    assert_true((double)fx.result.analysis_ns <= fx.result.analysis_limit_ns);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A fixture whose group axis has the linear and column orders only, beside one other axis. */
static void init_two_orders(fixture *fx, gt_axis other)
{
    fixture_init(fx, &square);
    fx->cfg.space.axes = 1u << other | 1u << GT_AXIS_GROUP;
    fx->cfg.space.group_styles = 1u << GT_ORDER_LINEAR | 1u << GT_ORDER_COLUMN;
}

/* The span check's model: span 8 halves the linear order's cost, the column order costs 0.05 of
   the default's with a span of 1 and column_span8 times that with span 8. Tuned. */
static void tune_span_after_a_move(fixture *fx, double column_span8)
{
    init_two_orders(fx, GT_AXIS_SPAN);
    fake_executor_factor(&fx->fake, "span=8", 0.5, 0);
    fake_executor_factor(&fx->fake, "group=column", 0.05, 0);
    fake_executor_factor(&fx->fake, "group=column,span=8", column_span8, 0);
    assert_int_equal(tune(fx, NULL), 0);
}

/* The group axis looked at `moved` (the new order with the setting chosen under the old one),
   then a check's look at `check` followed, and won. */
static void assert_checked_after_the_move(const fixture *fx, const char *moved, const char *check)
{
    const gt_candidate *m = candidate_of(&fx->result, moved);
    assert_int_equal(m->phase, GT_AXIS_GROUP);
    assert_true(m->nsamples > 0);
    const gt_candidate *c = candidate_of(&fx->result, check);
    assert_int_equal(c->phase, GT_AXIS_GROUP);
    assert_true(c->nsamples > 0);
    assert_int_equal(look_of(c)->kind, GT_SAMPLE_LOOK);
    assert_true(look_of(c)->round > look_of(m)->round);
    assert_winner(&fx->result, check);
}

/* The span is chosen under the linear group order, where span 8 is 2x faster; the group axis
   then moves to the column order, which is 20x faster with a span of 1 and loses most of it
   with span 8 (column with span 8: 0.2 of the default's cost; with span 1: 0.05). The column
   order's look lowers the time limit below the time spent, yet the span check looks at the
   column order with a span of 1, owed past the limit, and it wins. With the order unmoved
   there is no check: a second run where the column order is slow. */
static void test_a_span_chosen_under_another_order_is_checked(void **state)
{
    (void)state;
    fixture fx;
    tune_span_after_a_move(&fx, 8.0);
    assert_checked_after_the_move(&fx, "group=column,span=8,item=linear,assign=stealing",
                                  "group=column,item=linear,assign=stealing");
    assert_true(fx.result.groups_analysis <= budget_groups(&fx));
    assert_launch_complete(&fx);
    fixture_fini(&fx);

    init_two_orders(&fx, GT_AXIS_SPAN);
    fake_executor_factor(&fx.fake, "span=8", 0.5, 0);
    fake_executor_factor(&fx.fake, "group=column", 1.5, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        assert_false(fx.result.candidates[i].schedule.group.kind == GT_ORDER_COLUMN &&
                     fx.result.candidates[i].schedule.span == 1);
    assert_winner(&fx.result, "group=linear,span=8,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* As above, but the column order costs only 10% more with span 8 than with a span of 1 (0.055
   and 0.05 of the default's cost): the check's one look is not the quarter faster it takes to
   take over, so the group axis's pick stays, and the span of 1 is the confirmation's
   challenger, whose pairs show the 10% and replace it. */
static void test_a_check_takes_over_only_by_a_clear_gain(void **state)
{
    (void)state;
    fixture fx;
    tune_span_after_a_move(&fx, 2.2);
    const gt_candidate *moved = candidate_of(&fx.result, "group=column,span=8,item=linear,assign=stealing");
    const gt_candidate *check = candidate_of(&fx.result, "group=column,item=linear,assign=stealing");
    assert_int_equal(check->phase, GT_AXIS_GROUP);
    assert_int_equal(look_of(check)->kind, GT_SAMPLE_LOOK);
    assert_true(fx.result.confirmation.ran);
    assert_ptr_equal(&fx.result.candidates[fx.result.confirmation.incumbent], moved);
    assert_ptr_equal(&fx.result.candidates[fx.result.confirmation.challenger], check);
    assert_true(fx.result.confirmation.replaced);
    assert_winner(&fx.result, "group=column,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The model: tiles halve the cost at a span of 1, a span of 8 takes a fifth off, and linear
   items at a span of 8 cost linear_items_at_8 of that. */
static void tiles_then_a_span_of_8(fixture *fx, double linear_items_at_8)
{
    fixture_init(fx, &square);
    fx->cfg.space.axes = 1u << GT_AXIS_ITEM | 1u << GT_AXIS_SPAN;
    fake_executor_factor(&fx->fake, "item=tiled:8x8", 0.5, 0);
    fake_executor_factor(&fx->fake, "span=8", 0.8, 0);
    fake_executor_factor(&fx->fake, "span=8,item=linear", linear_items_at_8, 0);
}

/* Items in tiles of 8x8 halve the cost at a span of 1, and the item axis takes them; a span of 8
   takes a fifth off that. With that span, the linear items cost half the tiles' (0.2 of the
   default's cost against 0.4): the span axis moved the span, so a check looks at the start's
   item order with it, and it wins. */
static void test_an_item_order_chosen_at_another_span_is_checked(void **state)
{
    (void)state;
    fixture fx;
    tiles_then_a_span_of_8(&fx, 0.25);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *tiles = candidate_of(&fx.result, "group=linear,span=8,item=tiled:8x8,assign=stealing");
    assert_int_equal(tiles->phase, GT_AXIS_SPAN);
    assert_true(tiles->nsamples > 0);
    const gt_candidate *check = candidate_of(&fx.result, "group=linear,span=8,item=linear,assign=stealing");
    assert_int_equal(check->phase, GT_AXIS_SPAN);
    assert_string_equal(check->style, "item=linear");
    assert_int_equal(look_of(check)->kind, GT_SAMPLE_LOOK);
    assert_true(look_of(check)->round > look_of(tiles)->round);
    assert_winner(&fx.result, "group=linear,span=8,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* As above, but under tiles a span of 8 is the best (0.4 of the default's cost; the widest
   span the span axis lists here, 100, costs four times the tiles' at a span of 1), and linear
   items cost more than the tiles at a span of 8 (0.45) while at the widest span they cost a
   tenth: the span was chosen under the other item order, so a second check looks at the
   start's item order with the widest span, and it wins. */
static void test_the_start_item_order_is_checked_at_the_widest_span(void **state)
{
    (void)state;
    fixture fx;
    tiles_then_a_span_of_8(&fx, 0.5625);
    fake_executor_factor(&fx.fake, "span=100,item=tiled:8x8", 4.0, 0);
    fake_executor_factor(&fx.fake, "span=100,item=linear", 0.1, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *first = candidate_of(&fx.result, "group=linear,span=8,item=linear,assign=stealing");
    const gt_candidate *wide = candidate_of(&fx.result, "group=linear,span=100,item=linear,assign=stealing");
    assert_int_equal(wide->phase, GT_AXIS_SPAN);
    assert_string_equal(wide->style, "span=series");
    assert_int_equal(look_of(wide)->kind, GT_SAMPLE_LOOK);
    assert_true(look_of(wide)->round > look_of(first)->round);
    assert_winner(&fx.result, "group=linear,span=100,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Spans only: the widest listed here, 50, costs a tenth of the default's, so that the time
   limit falls and ends the race with its looks; a span of 32 looks a tenth cheaper in its look
   (0.09) and costs 0.18 from the batch `from` on (a lucky look). */
static void spans_with_a_lucky_look(fixture *fx, unsigned from)
{
    fixture_init(fx, &square);
    fx->cfg.space.axes = 1u << GT_AXIS_SPAN;
    fake_executor_factor(&fx->fake, "span=50", 0.1, 0);
    fake_executor_factor(&fx->fake, "span=32", 0.09, 0);
    if (from)
        fake_executor_factor_from(&fx->fake, "span=32", 2.0, from);
}

/* The spans whose looks lie close to the pick's get a second sample, sized, before the
   confirmation: the span of 64, whose look was lucky, shows its cost there and the widest
   span takes over. `from` is the batch after the span axis's looks in the same launch without
   the change of cost. */
static void test_close_spans_get_a_second_sample(void **state)
{
    (void)state;
    fixture fx;
    spans_with_a_lucky_look(&fx, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    unsigned looks_round = look_of(candidate_of(&fx.result, "group=linear,span=32,item=linear,assign=stealing"))->round;
    unsigned from = 1;
    for (size_t i = 0; i < fx.result.ncandidates; i++)
        for (size_t k = 0; k < fx.result.candidates[i].nsamples; k++)
            from += fx.result.candidates[i].samples[k].round <= looks_round;
    fixture_fini(&fx);

    spans_with_a_lucky_look(&fx, from);
    assert_int_equal(tune(&fx, NULL), 0);
    const char *names[] = {"group=linear,span=32,item=linear,assign=stealing",
                           "group=linear,span=50,item=linear,assign=stealing"};
    for (int n = 0; n < 2; n++) {
        const gt_candidate *c = candidate_of(&fx.result, names[n]);
        assert_true(c->nsamples >= 2);
        assert_int_equal(c->samples[1].kind, GT_SAMPLE_SIZED);
    }
    assert_winner(&fx.result, "group=linear,span=50,item=linear,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The item order is chosen under the linear group order, where tiled:4x4 is 5% faster than
   column; the group axis then moves to the zigzag order, 5x faster with column items and 3x
   slower than that with tiled ones (zigzag and tiled:4x4: 0.57 of the default's cost; zigzag
   and column: 0.2). The item check looks at the zigzag order with the item axis's best other
   kind of order, the column one, and it wins. (The zigzag order: with the column one, the item
   axis's column walk would find the pair itself.) */
static void test_an_item_order_chosen_under_another_order_is_checked(void **state)
{
    (void)state;
    fixture fx;
    init_two_orders(&fx, GT_AXIS_ITEM);
    fx.cfg.space.group_styles = 1u << GT_ORDER_LINEAR | 1u << GT_ORDER_ZIGZAG;
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.95, 0);
    fake_executor_factor(&fx.fake, "group=zigzag", 0.2, 0);
    fake_executor_factor(&fx.fake, "group=zigzag,item=tiled:4x4", 3.0, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_checked_after_the_move(&fx, "group=zigzag,item=tiled:4x4,assign=stealing",
                                  "group=zigzag,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Neither half of the column walk wins alone: column items cost 1.6x the default's under the
   linear group order, where tiled:4x4 ones cost 0.6, and the column group order changes
   nothing by itself; the two together cost 0.16. */
static void init_column_walk_model(fixture *fx)
{
    init_two_orders(fx, GT_AXIS_ITEM);
    fake_executor_factor(&fx->fake, "item=tiled:4x4", 0.6, 0);
    fake_executor_factor(&fx->fake, "item=column", 1.6, 0);
    fake_executor_factor(&fx->fake, "group=column,item=column", 0.1, 0);
}

/* One axis at a time ends at tiled:4x4 under the linear order in the model above; the item
   axis's column walk looks at the pair, and it wins there. */
static void test_the_column_walk_finds_what_neither_half_shows(void **state)
{
    (void)state;
    fixture fx;
    init_column_walk_model(&fx);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *walk = candidate_of(&fx.result, "group=column,item=column,assign=stealing");
    assert_int_equal(walk->phase, GT_AXIS_ITEM);
    assert_string_equal(walk->style, "walk=column");
    assert_int_equal(look_of(walk)->kind, GT_SAMPLE_LOOK);
    assert_winner(&fx.result, "group=column,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The walk of the model above, where a span of 16 halves its cost again, and the fixture's
   budget, whose time limit leaves the span axis little. The walk, measured on the item axis,
   takes its span axis's first round after the spans' looks: the first goes to a span of 16
   (the widest that leaves the column order 16 columns of a 256-wide grid), which wins. Run
   first, the walk's stretched sample took what the span axis had, and no span had a look. */
static void test_the_incumbent_takes_an_axis_after_the_looks(void **state)
{
    (void)state;
    fixture fx;
    init_column_walk_model(&fx);
    fx.cfg.space.axes |= 1u << GT_AXIS_SPAN;
    fake_executor_factor(&fx.fake, "group=column,span=16,item=column", 0.05, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *span = candidate_of(&fx.result, "group=column,span=16,item=column,assign=stealing");
    assert_int_equal(span->phase, GT_AXIS_SPAN);
    assert_int_equal(look_of(span)->kind, GT_SAMPLE_LOOK);
    assert_winner(&fx.result, "group=column,span=16,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* Column items at five times the default's cost under the linear group order: the data runs
   along the rows, and the walk (as slow in this model) leaves the race without a sample. At
   1.6 times (the model above) it is looked at. */
static void test_a_far_column_order_takes_its_walk_out(void **state)
{
    (void)state;
    fixture fx;
    init_two_orders(&fx, GT_AXIS_ITEM);
    fake_executor_factor(&fx.fake, "item=column", 5.0, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *column = candidate_of(&fx.result, "group=linear,item=column,assign=stealing");
    const gt_candidate *walk = candidate_of(&fx.result, "group=column,item=column,assign=stealing");
    assert_int_equal(column->nsamples, 1);
    assert_string_equal(walk->style, "walk=column");
    assert_int_equal(walk->nsamples, 0);
    assert_true(walk->eliminated);
    assert_true(candidate_of(&fx.result, "group=linear,item=tiled:4x4,assign=stealing")->nsamples > 0);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The column walk moves the group order, so it is sampled as the group axis's candidates are:
   its look is four times the default's size, the first quarter of it a warm-up that does not
   count. The model is the walk's above, and the column group order pays 30 us to start each
   stretch it walks, as transpose's column walk pays for its first columns of workgroups.
   Sized as the default's, the walk's glance (25 workgroups at 80 ns, 32 us) would cost 1.28 us
   per workgroup, above twice the default's 0.5, and end it; stretched, its glance (100
   workgroups, 38 us) costs 0.38, and the rest of its look (300) 0.08: it wins. */
static void test_the_column_walk_is_sampled_as_a_group_order(void **state)
{
    (void)state;
    fixture fx;
    init_column_walk_model(&fx);
    fake_executor_warm_up(&fx.fake, "group=column", 30000);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *walk = candidate_of(&fx.result, "group=column,item=column,assign=stealing");
    const gt_candidate *column = candidate_of(&fx.result, "group=linear,item=column,assign=stealing");
    assert_int_equal(walk->phase, GT_AXIS_ITEM);
    assert_true(walk->stretched);
    assert_false(column->stretched);
    assert_true(walk->nsamples >= 2);
    assert_int_equal(walk->samples[0].kind, GT_SAMPLE_WARM_UP);
    assert_false(walk->samples[0].used);
    assert_int_equal(walk->samples[1].kind, GT_SAMPLE_LOOK);
    assert_int_equal(column->samples[0].kind, GT_SAMPLE_LOOK);
    assert_int_equal(walk->samples[0].groups, column->samples[0].groups);
    assert_int_equal(walk->samples[1].groups, (GT_GROUP_SAMPLE_STRETCH - 1) * column->samples[0].groups);
    assert_winner(&fx.result, "group=column,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A stretched look whose first quarter costs more than twice the best so far, but less than
   four times that, runs its second quarter alone, and goes on when that one costs less; the
   first quarter is the look's warm-up, which does not count. The column walk of the model
   above at 10 ns a workgroup pays 150 us to start each stretch it walks, where the default's
   workgroups cost 500 ns and tiled items' 300: its glance (100 workgroups) costs 1.51 us a
   workgroup, its second quarter 10 ns, and its look goes on. Counted with its warm-up, the
   whole look (400 workgroups) would cost 385 ns a workgroup, more than tiled items; without
   it, 10 ns: the walk wins. */
static void test_a_looks_first_quarter_is_its_warm_up(void **state)
{
    (void)state;
    fixture fx;
    init_column_walk_model(&fx);
    fake_executor_factor(&fx.fake, "group=column,item=column", 0.125, 0);
    fake_executor_warm_up(&fx.fake, "group=column", 150000);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *walk = candidate_of(&fx.result, "group=column,item=column,assign=stealing");
    const gt_candidate *column = candidate_of(&fx.result, "group=linear,item=column,assign=stealing");
    assert_winner(&fx.result, "group=column,item=column,assign=stealing");
    assert_true(walk->nsamples >= 2);
    assert_int_equal(walk->samples[0].kind, GT_SAMPLE_WARM_UP);
    assert_int_equal(walk->samples[1].kind, GT_SAMPLE_LOOK);
    assert_int_equal(walk->samples[0].groups + walk->samples[1].groups,
                     GT_GROUP_SAMPLE_STRETCH * column->samples[0].groups);
    assert_winner(&fx.result, "group=column,item=column,assign=stealing");
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The batches a tuned launch ran before its confirmation began: all the fake ran but the
   confirming samples (a batch each) and the dispatch of the rest (one). A look is two batches,
   its first quarter run alone. */
static unsigned batches_before_confirming(const fixture *fx)
{
    unsigned n = fx->fake.batches - 1;
    for (size_t i = 0; i < fx->result.ncandidates; i++)
        for (size_t k = 0; k < fx->result.candidates[i].nsamples; k++)
            n -= fx->result.candidates[i].samples[k].kind == GT_SAMPLE_CONFIRM;
    return n;
}

/* The winner and the runner-up are measured again in pairs, and a runner-up that is not faster
   by the minimum gain does not take over: 2% is not 3%. The pairs stop once it is out of reach:
   after the incumbent's sample and two of its own, all three in the incumbent's favour, even
   its five owed samples at the lowest costs could give no p below 0.05 (4/70 at best). */
static void test_the_confirmation_keeps_the_incumbent_without_a_shown_gain(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx.fake, "item=tiled:4x4,assign=dynamic:4", 0.98, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_confirmation *cf = &fx.result.confirmation;
    assert_true(cf->ran);
    assert_false(cf->replaced);
    assert_true(cf->out_of_reach);
    assert_int_equal(cf->test.na, 2);
    assert_int_equal(cf->test.nb, 1);
    assert_true(cf->test.p >= GT_RANK_TEST_ALPHA);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    /* the first pair ran in a shared round, the challenger's second sample in the next */
    const gt_candidate *inc = &fx.result.candidates[cf->incumbent], *ch = &fx.result.candidates[cf->challenger];
    const gt_sample *last = &inc->samples[inc->nsamples - 1], *second = &ch->samples[ch->nsamples - 1];
    assert_int_equal(last->kind, GT_SAMPLE_CONFIRM);
    assert_int_equal(second[-1].kind, GT_SAMPLE_CONFIRM);
    assert_int_equal(last->round, second[-1].round);
    assert_int_equal(second->round, last->round + 1);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* The item axis alone, the tiled orders at half and 0.6 of the default's cost. */
static void item_orders_only(fixture *fx)
{
    fixture_init(fx, &square);
    fx->cfg.space.axes = 1u << GT_AXIS_ITEM;
    fake_executor_factor(&fx->fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx->fake, "item=tiled:8x8", 0.6, 0);
}

/* The analysis ends away from the default only when its pick's median beats the default's by
   the minimum gain. Here the tiled orders cost half and 0.6 of the default in their samples,
   and 1.25 and 1.2 from the confirmation on (a machine that changed, or samples that did not
   show the launch): tiled:8x8 beats tiled:4x4 by 4% in every pair and takes over, but its
   median ends above the default's: the default stays. The same launch without the change
   picks tiled:4x4. */
static void test_a_pick_above_the_start_keeps_the_start(void **state)
{
    (void)state;
    fixture fx;
    item_orders_only(&fx);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    unsigned from = batches_before_confirming(&fx) + 1;
    fixture_fini(&fx);

    item_orders_only(&fx);
    fake_executor_factor_from(&fx.fake, "item=tiled:4x4", 2.5, from);
    fake_executor_factor_from(&fx.fake, "item=tiled:8x8", 2.0, from);
    assert_int_equal(tune(&fx, NULL), 0);
    const gt_candidate *pick = candidate_of(&fx.result, "group=linear,item=tiled:8x8,assign=stealing");
    assert_true(fx.result.confirmation.ran);
    assert_true(fx.result.confirmation.replaced);
    assert_true(pick->median * (1 + fx.cfg.min_gain) >= fx.result.candidates[0].median);
    assert_winner(&fx.result, "group=linear,item=linear,assign=stealing");
    assert_int_equal(fx.result.source, GT_SOURCE_DEFAULT);
    assert_non_null(strstr(fx.result.reason, "analysis's pick group=linear,item=tiled:8x8,assign=stealing ended at"));
    assert_non_null(strstr(fx.result.reason, "not 3% below the default's"));
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* A runner-up that turns out 20% faster when measured again takes over; the same launch
   without the change keeps its winner. The change starts where the confirmation starts, as
   the first run of the same deterministic launch shows. */
static void test_the_confirmation_replaces_the_incumbent_on_a_shown_gain(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx.fake, "item=tiled:4x4,assign=dynamic:4", 1.02, 0);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_winner(&fx.result, "group=linear,item=tiled:4x4,assign=stealing");
    char runner_up[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&fx.result.candidates[fx.result.confirmation.challenger].schedule, runner_up,
                       sizeof runner_up);
    unsigned from = batches_before_confirming(&fx) + 1;
    fixture_fini(&fx);

    fixture_init(&fx, &square);
    fake_executor_factor(&fx.fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx.fake, "item=tiled:4x4,assign=dynamic:4", 1.02, 0);
    fake_executor_factor_from(&fx.fake, runner_up, 0.8, from);
    assert_int_equal(tune(&fx, NULL), 0);
    assert_true(fx.result.confirmation.ran);
    assert_true(fx.result.confirmation.replaced);
    assert_false(fx.result.confirmation.out_of_reach);
    assert_int_equal(fx.result.confirmation.test.na, 4);
    assert_int_equal(fx.result.confirmation.test.nb, 4);
    assert_true(fx.result.confirmation.test.p < GT_RANK_TEST_ALPHA);
    assert_winner(&fx.result, runner_up);
    assert_launch_complete(&fx);
    fixture_fini(&fx);
}

/* ---- launches that keep learning --------------------------------------------------------- */

/* A wisdom in a temporary directory and a fixture, for launch after launch. */
typedef struct refine_rig {
    char *dir;
    gt_wisdom *w;
    fixture fx;
} refine_rig;

static int refine_rig_setup(void **state)
{
    refine_rig *rig = calloc(1, sizeof *rig);
    if (!rig)
        return -1;
    rig->dir = temp_wisdom();
    rig->w = open_wisdom(rig->dir, "wisdom.json");
    fixture_init(&rig->fx, &square);
    *state = rig;
    return 0;
}

static int refine_rig_teardown(void **state)
{
    refine_rig *rig = *state;
    fixture_fini(&rig->fx);
    gt_wisdom_close(rig->w);
    remove_tree(rig->dir);
    free(rig);
    return 0;
}

/* Item orders only: the winner item=tiled:4x4 (0.5), one runner-up of another kind close
   behind, column (0.55); tiled:8x8 (0.52), of the winner's kind, is no contender however
   close, and linear (1.1), the third kind, is more than twice behind: hopeless. */
static void close_runner_up(fixture *fx)
{
    fx->cfg.space.axes = 1u << GT_AXIS_ITEM;
    fake_executor_factor(&fx->fake, "item=tiled:4x4", 0.5, 0);
    fake_executor_factor(&fx->fake, "item=column", 0.55, 0);
    fake_executor_factor(&fx->fake, "item=tiled:8x8", 0.52, 0);
    fake_executor_factor(&fx->fake, "item=linear", 1.1, 0);
}

/* The fixture anew on the square grid, its configuration kept: the next launch of the same
   kernel, on a fresh fake. */
static void refresh(fixture *fx)
{
    gt_tune_config cfg = fx->cfg;
    fixture_fini(fx);
    fixture_init(fx, &square);
    fx->cfg = cfg;
}

/* One more launch of the same kernel, on a fresh fake (the wisdom carries over), in which
   schedules with part `changed` cost `factor` times the model's (none when NULL). Every launch
   runs every workgroup once. Returns the wisdom entry after it. */
static gt_wisdom_entry launch_again(fixture *fx, gt_wisdom *w, const char *changed, double factor)
{
    refresh(fx);
    close_runner_up(fx);
    if (changed)
        fake_executor_factor(&fx->fake, changed, factor, 0);
    assert_int_equal(tune(fx, w), 0);
    assert_launch_complete(fx);
    gt_wisdom_entry e;
    assert_true(gt_wisdom_get(w, 0, NULL, &e));
    return e;
}

static void assert_schedule(const gt_schedule *s, const char *expected)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    assert_string_equal(text, expected);
}

#define WINNER "group=linear,item=tiled:4x4,assign=stealing"
#define RUNNER_UP "group=linear,item=column,assign=stealing"

/* After analysis the entry is refining with the runner-up as its contender; the next launch
   runs it on a quarter of the workgroups and the winner on the rest, and records the pair (the
   contender runs a little faster there than in the samples, so it stays). */
static void test_a_refining_launch_runs_a_contender_on_a_share(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    gt_wisdom_entry e = launch_again(fx, w, NULL, 1);
    assert_int_equal(fx->result.source, GT_SOURCE_ANALYSIS);
    assert_true(fx->result.wisdom_changed);
    assert_int_equal(e.refine.state, GT_REFINE_REFINING);
    assert_int_equal(e.refine.ncontenders, 1);
    assert_schedule(&e.refine.contenders[0].schedule, RUNNER_UP);

    e = launch_again(fx, w, "item=column", 0.49 / 0.55);
    assert_int_equal(fx->result.source, GT_SOURCE_WISDOM);
    assert_winner(&fx->result, WINNER);
    assert_int_equal(fx->result.refine.nshares, 1);
    assert_true(fx->result.wisdom_changed); /* the pair and the launch count are the entry's */
    assert_int_equal(fx->result.groups_analysis, fx->fake.groups / GT_REFINE_SHARE);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_COMPARED);
    assert_true(fabs(fx->result.refine.shares[0].cost / fx->result.refine.incumbent_cost - 0.98) < 1e-9);
    assert_int_equal(e.refine.launches, 1);
    assert_int_equal(e.refine.contenders[0].n, 1);
    assert_non_null(strstr(fx->result.reason, "refining 1/12"));

    /* with refinement off, the same entry runs the winner alone */
    fx->cfg.refine = false;
    launch_again(fx, w, NULL, 1);
    assert_int_equal(fx->result.groups_analysis, 0);
    assert_false(fx->result.refine.ran);
}

/* The contender's share runs after the winner's rest, in the launch's later batches (a first
   share in two: a piece, then the rest): a share run first cost the winner itself up to 4%
   more than the rest on this machine. Here the contender costs 0.49 / 0.55 of the model from
   batch 2 on, and the model's 0.55 before it. */
static void test_a_refining_launch_runs_the_share_last(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    launch_again(fx, rig->w, NULL, 1);
    refresh(fx);
    close_runner_up(fx);
    fake_executor_factor_from(&fx->fake, "item=column", 0.49 / 0.55, 2);
    assert_int_equal(tune(fx, rig->w), 0);
    assert_launch_complete(fx);
    assert_int_equal(fx->result.refine.nshares, 1);
    assert_int_equal(fx->fake.batches, 3);
    assert_int_equal(fx->result.groups_analysis, fx->fake.groups / GT_REFINE_SHARE);
    assert_true(fabs(fx->result.refine.shares[0].cost / fx->result.refine.incumbent_cost - 0.98) < 1e-9);
}

/* close_runner_up with linear items 1.2 times the winner (0.6): a second contender, of the
   third kind, within GT_REFINE_HOPELESS. */
static void two_runners_up(fixture *fx)
{
    close_runner_up(fx);
    fake_executor_factor(&fx->fake, "item=linear", 0.6 / 1.1, 0);
}

/* The first launch of the kernel with two runners-up: an analysis. */
static void decide_with_two_runners_up(fixture *fx, gt_wisdom *w)
{
    refresh(fx);
    two_runners_up(fx);
    assert_int_equal(tune(fx, w), 0);
    assert_launch_complete(fx);
}

/* One more launch of the same kernel with two contenders, in which column items cost `column`
   and linear items `linear` times the winner's (0.5). Returns the wisdom entry after it. */
static gt_wisdom_entry launch_two(fixture *fx, gt_wisdom *w, double column, double linear)
{
    refresh(fx);
    two_runners_up(fx);
    fake_executor_factor(&fx->fake, "item=column", column * 0.5 / 0.55, 0);
    fake_executor_factor(&fx->fake, "item=linear", linear * 0.5 / 0.6, 0);
    assert_int_equal(tune(fx, w), 0);
    assert_launch_complete(fx);
    gt_wisdom_entry e;
    assert_true(gt_wisdom_get(w, 0, NULL, &e));
    return e;
}

/* With two contenders, a refining launch runs each on a quarter of the workgroups, after the
   winner ran the other half, and records both pairs against the winner's cost; it counts as
   one refining launch. */
static void test_a_refining_launch_runs_two_contenders_on_a_share_each(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    decide_with_two_runners_up(fx, w);
    gt_wisdom_entry e;
    assert_true(gt_wisdom_get(w, 0, NULL, &e));
    assert_int_equal(e.refine.ncontenders, 2);
    assert_schedule(&e.refine.contenders[0].schedule, RUNNER_UP);
    assert_schedule(&e.refine.contenders[1].schedule, "group=linear,item=linear,assign=stealing");

    e = launch_two(fx, w, 0.98, 0.97);
    const gt_refine_outcome *o = &fx->result.refine;
    assert_int_equal(o->nshares, 2);
    assert_int_equal(fx->result.groups_analysis, 2 * (fx->fake.groups / GT_REFINE_SHARE));
    assert_int_equal(fx->result.groups_remainder, fx->fake.groups - 2 * (fx->fake.groups / GT_REFINE_SHARE));
    assert_schedule(&o->shares[0].contender, RUNNER_UP);
    assert_schedule(&o->shares[1].contender, "group=linear,item=linear,assign=stealing");
    assert_true(fabs(o->shares[0].cost / o->incumbent_cost - 0.98) < 1e-9);
    assert_true(fabs(o->shares[1].cost / o->incumbent_cost - 0.97) < 1e-9);
    assert_int_equal(o->shares[0].event, GT_REFINE_EVENT_COMPARED);
    assert_int_equal(o->shares[1].event, GT_REFINE_EVENT_COMPARED);
    assert_int_equal(o->event, GT_REFINE_EVENT_COMPARED);
    assert_int_equal(e.refine.launches, 1);
    assert_int_equal(e.refine.contenders[0].n, 1);
    assert_int_equal(e.refine.contenders[1].n, 1);
    assert_non_null(strstr(fx->result.reason, "refining 1/12: the winner ran the launch but 2 shares"));

    /* the first no faster leaves; the other's pair stands: the launch's event is the drop */
    e = launch_two(fx, w, 1.05, 0.97);
    assert_int_equal(o->shares[0].event, GT_REFINE_EVENT_COMPARED); /* its second pair */
    assert_int_equal(o->shares[1].event, GT_REFINE_EVENT_COMPARED);
    assert_int_equal(e.refine.ncontenders, 2);
    e = launch_two(fx, w, 1.05, 0.97);
    assert_int_equal(o->event, GT_REFINE_EVENT_DROPPED); /* three pairs, the first without a gain in sight */
    assert_int_equal(e.refine.ncontenders, 1);
    assert_schedule(&e.refine.contenders[0].schedule, "group=linear,item=linear,assign=stealing");
    assert_int_equal(e.refine.contenders[0].n, 3);
    assert_int_equal(e.refine.launches, 3);
}

/* When the second contender takes over at once (far ahead on its first share), the first's
   pair of the same launch was against the old winner: it is not kept (event none), and the
   contenders follow the new winner, the old one among them. */
static void test_a_pair_against_a_replaced_winner_is_not_kept(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    decide_with_two_runners_up(fx, w);
    gt_wisdom_entry e = launch_two(fx, w, 0.98, 0.5);
    const gt_refine_outcome *o = &fx->result.refine;
    assert_int_equal(o->shares[1].event, GT_REFINE_EVENT_REPLACED);
    assert_int_equal(o->shares[0].event, GT_REFINE_EVENT_NONE);
    assert_int_equal(o->event, GT_REFINE_EVENT_REPLACED);
    assert_schedule(&e.schedule, "group=linear,item=linear,assign=stealing");
    for (unsigned i = 0; i < e.refine.ncontenders; i++)
        assert_int_equal(e.refine.contenders[i].n, 0);
    assert_int_equal(e.refine.ncontenders, 2);
    assert_schedule(&e.refine.contenders[0].schedule, RUNNER_UP);
    assert_schedule(&e.refine.contenders[1].schedule, WINNER);
}

/* A contender that runs faster on shares of whole launches than it did in the samples (1.25
   times) takes the winner's place once the signed-rank test shows it (five pairs); the old
   winner, which the test ruled out, does not return, and with none left the entry settles at
   once: the winner runs alone. */
static void test_a_faster_contender_replaces_the_winner(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    gt_wisdom_entry e = launch_again(fx, w, NULL, 1);
    unsigned launch = 1, replaced_at = 0, settled_at = 0;
    double replaced_p = NAN;
    while (e.refine.state != GT_REFINE_SETTLED && launch < 20) {
        e = launch_again(fx, w, "item=column", 0.4 / 0.55);
        launch++;
        if (fx->result.refine.event == GT_REFINE_EVENT_REPLACED) {
            replaced_at = launch;
            replaced_p = fx->result.refine.shares[0].p;
        }
        if (fx->result.refine.settled_now)
            settled_at = launch;
    }
    assert_int_equal(replaced_at, 1 + GT_REFINE_MIN_PAIRS);
    assert_int_equal(settled_at, replaced_at);
    assert_true(replaced_p < GT_RANK_TEST_ALPHA);
    assert_true(fx->result.wisdom_changed);
    assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
    assert_schedule(&e.schedule, RUNNER_UP);
    assert_int_equal(e.refine.ncontenders, 0);
    launch_again(fx, w, "item=column", 0.4 / 0.55);
    assert_winner(&fx->result, RUNNER_UP);
    assert_int_equal(fx->result.groups_analysis, 0);
}

/* A contender no faster than the winner on its first share leaves at once, without a test,
   and the entry settles: a little slower (1.1 times, as in the samples) as well as far slower. */
static void test_a_slower_contender_leaves_after_one_share(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    static const double factors[] = {1.0, 2.0, 0.5 / 0.55};
    for (size_t i = 0; i < sizeof factors / sizeof factors[0]; i++) {
        gt_wisdom_clear(w);
        launch_again(fx, w, NULL, 1);
        gt_wisdom_entry e = launch_again(fx, w, "item=column", factors[i]);
        assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
        assert_true(isnan(fx->result.refine.shares[0].p));
        assert_int_equal(e.refine.ncontenders, 0);
        assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
    }
}

/* From a cleared wisdom, a decision and then the first refining launch, whose workgroups cost
   base_ns each and whose contender (the runner-up, column) twice its analysed cost. */
static void launch_hopeless_runner_up(fixture *fx, gt_wisdom *w, double base_ns)
{
    gt_wisdom_clear(w);
    launch_again(fx, w, NULL, 1);
    refresh(fx);
    close_runner_up(fx);
    fx->fake.base_ns = base_ns;
    fake_executor_factor(&fx->fake, "item=column", 2.0, 0);
    assert_int_equal(tune(fx, w), 0);
    assert_launch_complete(fx);
}

/* A contender whose first piece of its first share costs more than GT_REFINE_HOPELESS times the
   winner's (2.2 times here) leaves the rest of the share to the winner, and leaves; one 1.32
   times as costly runs its whole share, and leaves too. Either way every workgroup runs once,
   and the launch's analysis is what the contender ran. The piece is the smallest of a 32nd,
   a 16th, an 8th and a quarter of the share that takes the winner GT_REFINE_PROBE_MIN_NS or
   more: here an 8th, just over (2 Ki workgroups at 0.5 us each, over two workers). */
static void test_a_hopeless_first_share_is_cut_short(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    static const struct {
        double factor, ratio;
        bool cut;
    } cases[] = {{2.0, 2.2, true}, {1.2, 1.32, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gt_wisdom_clear(w);
        launch_again(fx, w, NULL, 1);
        gt_wisdom_entry e = launch_again(fx, w, "item=column", cases[i].factor);
        uint64_t share = fx->fake.groups / GT_REFINE_SHARE;
        uint64_t ran = cases[i].cut ? share / (2 * GT_REFINE_PROBE_PARTS) : share;
        assert_int_equal(fx->fake.batches, 3);
        assert_int_equal(fx->result.groups_analysis, ran);
        assert_int_equal(fx->result.groups_remainder, fx->fake.groups - ran);
        assert_true(fabs(fx->result.refine.shares[0].cost / fx->result.refine.incumbent_cost - cases[i].ratio) < 1e-9);
        assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
        assert_int_equal(e.refine.ncontenders, 0);
        assert_int_equal(strstr(fx->result.reason, "so slowly that the winner ran the rest") != NULL, cases[i].cut);
    }
    /* The winner runs the rest of a share in its own walk: here the contender is the widest
       span (a row of 256 workgroups), whose runs the winner's span of 1 cannot take. */
    gt_wisdom_clear(w);
    for (int launch = 1; launch <= 2; launch++) {
        refresh(fx);
        fx->cfg.space.axes = 1u << GT_AXIS_SPAN;
        fake_executor_factor(&fx->fake, "span=256", 2.0, 0);
        assert_int_equal(tune(fx, w), 0);
        assert_launch_complete(fx);
    }
    assert_schedule(&fx->result.refine.shares[0].contender, "group=linear,span=256,item=linear,assign=stealing");
    assert_winner(&fx->result, "group=linear,item=linear,assign=stealing");
    /* the winner here costs twice the rig's, so a 16th of the share holds 0.5 ms of its time */
    assert_int_equal(fx->result.groups_analysis, fx->fake.groups / GT_REFINE_SHARE / (4 * GT_REFINE_PROBE_PARTS));
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
    /* Workgroups four times as costly: a 32nd of the share holds 0.5 ms, and is the piece. */
    launch_hopeless_runner_up(fx, w, 4000);
    assert_int_equal(fx->result.groups_analysis, fx->fake.groups / GT_REFINE_SHARE / GT_REFINE_PROBE_PARTS_MAX);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
    assert_non_null(strstr(fx->result.reason, "so slowly that the winner ran the rest"));
    /* A piece the winner would run in less than GT_REFINE_PROBE_MIN_NS is not tried alone: a
       batch's fixed cost would weigh on it. */
    launch_hopeless_runner_up(fx, w, 10);
    assert_int_equal(fx->fake.batches, 2);
    assert_int_equal(fx->result.groups_analysis, fx->fake.groups / GT_REFINE_SHARE);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
}

/* A contender the winner costs more than GT_REFINE_HOPELESS times on its first share takes the
   winner's place at once; the old winner, hopeless in turn, leaves after its first share. */
static void test_a_far_faster_contender_replaces_the_winner_at_once(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    launch_again(fx, w, NULL, 1);
    gt_wisdom_entry e = launch_again(fx, w, "item=column", 0.3 / 0.55);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_REPLACED);
    assert_schedule(&e.schedule, RUNNER_UP);
    assert_schedule(&e.refine.contenders[0].schedule, WINNER);
    e = launch_again(fx, w, "item=column", 0.3 / 0.55);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
    assert_non_null(strstr(fx->result.reason, "and left: no faster on its first share"));
    assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
}

/* A contender 2% faster than the winner, less than the minimum gain, is neither taken nor
   dropped before the limit of refining launches (2, below the three pairs that would drop
   it): the entry settles there, the contender kept. */
static void test_an_undecided_entry_settles_at_the_limit(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    fx->cfg.refine_limit = 2;
    gt_wisdom_entry e = launch_again(fx, w, NULL, 1);
    for (unsigned k = 1; k <= 2; k++) {
        assert_int_equal(e.refine.state, GT_REFINE_REFINING);
        e = launch_again(fx, w, "item=column", 0.49 / 0.55);
        assert_int_equal(fx->result.refine.nshares, 1);
    }
    assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
    assert_true(fx->result.refine.settled_now);
    assert_int_equal(e.refine.ncontenders, 1);
    assert_schedule(&e.schedule, WINNER);
}

/* A contender faster on its first share and slower on the next two leaves, no gain in sight
   after three pairs, and the entry settles. Then the winner's cost drifts: two launches are noted, the third
   reopens the entry, and with no contender left the next launch analyses again. */
static void test_a_drifting_winner_reopens_the_entry(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    gt_wisdom *w = rig->w;
    gt_wisdom_entry e = launch_again(fx, w, NULL, 1);
    e = launch_again(fx, w, "item=column", 0.475 / 0.55); /* 0.95 times the winner */
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_COMPARED);
    for (unsigned k = 1; k < GT_REFINE_SIGHT_PAIRS; k++) { /* 1.1 times the winner */
        assert_int_equal(e.refine.state, GT_REFINE_REFINING);
        e = launch_again(fx, w, NULL, 1);
    }
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DROPPED);
    assert_true(isnan(fx->result.refine.shares[0].p));
    assert_non_null(strstr(fx->result.reason, "and left: no gain of 3% in sight over 3 pairs"));
    assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
    e = launch_again(fx, w, NULL, 1); /* the first settled launch sets the settled cost */
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_NONE);
    assert_true(e.refine.settled_cost > 0);
    assert_true(fx->result.wisdom_changed);
    e = launch_again(fx, w, "item=tiled:4x4", 1.4); /* within the drift: nothing to keep */
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_NONE);
    assert_false(fx->result.wisdom_changed);
    for (unsigned k = 1; k < GT_REFINE_DRIFT_LAUNCHES; k++) {
        e = launch_again(fx, w, "item=tiled:4x4", 1.6);
        assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_DRIFTED);
        assert_int_equal(e.refine.drifted, k);
        assert_true(fx->result.wisdom_changed);
    }
    e = launch_again(fx, w, "item=tiled:4x4", 1.6);
    assert_int_equal(fx->result.refine.event, GT_REFINE_EVENT_REOPENED);
    assert_true(fx->result.wisdom_changed);
    assert_int_equal(e.refine.state, GT_REFINE_REOPENED);
    launch_again(fx, w, "item=tiled:4x4", 1.6);
    assert_int_not_equal(fx->result.source, GT_SOURCE_WISDOM);
    assert_true(fx->result.groups_analysis > 0);
}

/* A test on the refine rig: a wisdom file of its own and a fixture on the square grid. */
#define REFINE_TEST(f) cmocka_unit_test_setup_teardown(f, refine_rig_setup, refine_rig_teardown)

/* The default costs twenty times the column item order (ten in
   test_a_slow_default_does_not_spend_the_launchs_time, whose analysis now reaches the group
   axis), and the zigzag group order saves a fifth more: one more launch on a fresh fake, the
   wisdom carried over. */
static gt_wisdom_entry launch_slow_default(fixture *fx, gt_wisdom *w)
{
    refresh(fx);
    fake_executor_factor(&fx->fake, "item=column", 0.05, 0);
    fake_executor_factor(&fx->fake, "group=zigzag", 0.8, 0);
    fake_executor_factor(&fx->fake, "span=16", 0.8, 0);
    assert_int_equal(tune(fx, w), 0);
    assert_launch_complete(fx);
    gt_wisdom_entry e;
    assert_true(gt_wisdom_get(w, 0, NULL, &e));
    return e;
}

static bool has_candidate_with(const gt_tune_result *r, gt_axis phase)
{
    for (size_t i = 1; i < r->ncandidates; i++)
        if (r->candidates[i].phase == (unsigned)phase)
            return true;
    return false;
}

/* A chunk of 2 only pays once the item order is column: the assignment axis, decided last
   under the orders chosen, finds it. Two group orders leave it time in the first launch, and
   nothing is left to resume. (With every group order, the group axis's long samples spend what
   the falling time limit leaves in this model, and the assignment waits for the next launch's
   resumed analysis.) */
static void test_the_assignment_is_chosen_under_the_orders(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    for (int strategy = 0; strategy < 2; strategy++) {
        gt_wisdom_clear(rig->w);
        fx->cfg.strategy = (gt_strategy)strategy;
        fx->cfg.space.group_styles = 1u << GT_ORDER_LINEAR | 1u << GT_ORDER_ZIGZAG;
        refresh(fx);
        fake_executor_factor(&fx->fake, "item=column", 0.5, 0);
        fake_executor_factor(&fx->fake, "item=column,assign=dynamic:2", 0.6, 0);
        assert_int_equal(tune(fx, rig->w), 0);
        assert_true(fx->result.groups_analysis <= budget_groups(fx));
        assert_launch_complete(fx);
        assert_int_equal(fx->result.unexplored, 0);
        const gt_candidate *chunk = candidate_of(&fx->result, "group=linear,item=column,assign=dynamic:2");
        assert_int_equal(chunk->phase, GT_AXIS_ASSIGN);
        assert_true(chunk->nsamples > 0);
        assert_winner(&fx->result, "group=linear,item=column,assign=dynamic:2");
    }
}

/* The slow default's samples spend the first launch's time limit before the spans had a look
   (the group axis's share gave the zigzag order one): the entry remembers the axes left
   unexplored, and the next launch's analysis resumes from the winner over them alone (the
   winner is its candidate 0, and calibration's schedule), at the winner's speed, where a span of
   16 wins. */
static void test_an_analysis_cut_short_resumes_in_the_next_launch(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    fx->cfg.sample_ns = 10000; /* 20 of the default's workgroups, 400 of the winner's */
    gt_wisdom_entry e = launch_slow_default(fx, rig->w);
    assert_winner(&fx->result, "group=zigzag,item=column,assign=stealing");
    assert_false(fx->result.resumed);
    unsigned first = fx->result.unexplored;
    assert_true(first & (1u << GT_AXIS_SPAN)); /* no span had a look, nor an assignment */
    assert_true(first & (1u << GT_AXIS_ASSIGN));
    assert_false(first & (1u << GT_AXIS_GROUP));
    assert_int_equal(e.refine.unexplored, first);
    assert_int_equal(e.refine.resumes, 0);
    assert_int_equal(e.refine.state, GT_REFINE_REFINING);

    e = launch_slow_default(fx, rig->w);
    assert_true(fx->result.resumed);
    assert_schedule(&fx->result.candidates[0].schedule, "group=zigzag,item=column,assign=stealing");
    assert_string_equal(fx->result.candidates[0].style, "wisdom");
    assert_true(has_candidate_with(&fx->result, GT_AXIS_SPAN));
    assert_false(has_candidate_with(&fx->result, GT_AXIS_GROUP));
    assert_winner(&fx->result, "group=zigzag,span=16,item=column,assign=stealing");
    assert_int_equal(fx->result.source, GT_SOURCE_ANALYSIS);
    assert_non_null(strstr(fx->result.reason, "won the resumed analysis"));
    assert_schedule(&e.schedule, "group=zigzag,span=16,item=column,assign=stealing");
    assert_int_equal(e.refine.resumes, 1);
    /* the gain is over the default still: the resumed analysis's over the old winner, chained */
    assert_true(e.gain > 10);

    /* it reached every axis it resumed: the next launch does not resume (the limit of resumes
       is test_refine's) */
    assert_int_equal(e.refine.unexplored, 0);
    e = launch_slow_default(fx, rig->w);
    assert_false(fx->result.resumed);
    assert_int_equal(e.refine.resumes, 1);
}

/* With refinement off, an analysis cut short is final: the wisdom's winner runs alone. */
static void test_without_refinement_nothing_resumes(void **state)
{
    refine_rig *rig = *state;
    fixture *fx = &rig->fx;
    fx->cfg.refine = false;
    gt_wisdom_entry e = launch_slow_default(fx, rig->w);
    assert_int_equal(e.refine.unexplored, 0);
    assert_int_equal(e.refine.state, GT_REFINE_SETTLED);
    launch_slow_default(fx, rig->w);
    assert_false(fx->result.resumed);
    assert_int_equal(fx->result.source, GT_SOURCE_WISDOM);
    assert_int_equal(fx->result.groups_analysis, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_candidate_wins),
        cmocka_unit_test(test_nested_finds_the_best_too),
        cmocka_unit_test(test_budget_is_never_exceeded),
        cmocka_unit_test(test_equal_costs_end_analysis_early),
        cmocka_unit_test(test_a_kernel_that_refuses_spans_gets_none),
        cmocka_unit_test(test_drift_does_not_pick_a_winner),
        cmocka_unit_test(test_small_gain_keeps_the_default),
        cmocka_unit_test(test_one_workgroup_does_no_analysis),
        cmocka_unit_test(test_short_launch_is_not_analysed),
        cmocka_unit_test(test_forced_schedule_runs_whole_launch),
        cmocka_unit_test(test_tuning_off_runs_the_default),
        cmocka_unit_test(test_ipc_metric_uses_the_cycle_counters),
        cmocka_unit_test(test_no_counters_fall_back_to_time),
        cmocka_unit_test(test_executor_failure_is_reported),
        cmocka_unit_test(test_bad_config_is_refused),
        cmocka_unit_test(test_wisdom_hit_skips_analysis),
        cmocka_unit_test(test_retune_ignores_and_replaces_the_wisdom),
        cmocka_unit_test(test_corrupt_wisdom_is_survived),
        cmocka_unit_test(test_disturbed_samples_are_left_out_and_measured_again),
        cmocka_unit_test(test_without_probes_disturbed_samples_count),
        cmocka_unit_test(test_page_faults_of_each_phase_are_summed),
        cmocka_unit_test(test_one_waiting_worker_of_many_disturbs_a_sample),
        cmocka_unit_test(test_a_tenant_on_every_sample_is_steady_contention),
        cmocka_unit_test(test_steady_contention_counts_in_the_time_limit),
        cmocka_unit_test(test_samples_start_spread_over_the_walk),
        cmocka_unit_test(test_sized_samples_take_the_asked_time),
        cmocka_unit_test(test_a_slow_first_batch_does_not_stretch_the_samples),
        cmocka_unit_test(test_a_first_batch_a_little_slow_does_not_stretch_the_samples),
        cmocka_unit_test(test_calibration_ends_near_the_asked_length),
        cmocka_unit_test(test_a_disturbed_calibration_stretch_runs_again),
        cmocka_unit_test(test_a_slow_default_does_not_spend_the_launchs_time),
        cmocka_unit_test(test_a_tie_goes_to_the_first_listed),
        cmocka_unit_test(test_spans_do_not_tie),
        cmocka_unit_test(test_a_hopeless_look_leaves_the_race),
        cmocka_unit_test(test_a_span_chosen_under_another_order_is_checked),
        cmocka_unit_test(test_an_item_order_chosen_under_another_order_is_checked),
        cmocka_unit_test(test_an_item_order_chosen_at_another_span_is_checked),
        cmocka_unit_test(test_the_start_item_order_is_checked_at_the_widest_span),
        cmocka_unit_test(test_close_spans_get_a_second_sample),
        cmocka_unit_test(test_the_column_walk_finds_what_neither_half_shows),
        cmocka_unit_test(test_the_column_walk_is_sampled_as_a_group_order),
        cmocka_unit_test(test_a_far_column_order_takes_its_walk_out),
        cmocka_unit_test(test_the_incumbent_takes_an_axis_after_the_looks),
        cmocka_unit_test(test_a_looks_first_quarter_is_its_warm_up),
        cmocka_unit_test(test_a_check_takes_over_only_by_a_clear_gain),
        cmocka_unit_test(test_spans_reach_a_row_at_the_incumbents_speed),
        cmocka_unit_test(test_the_confirmation_keeps_the_incumbent_without_a_shown_gain),
        cmocka_unit_test(test_the_confirmation_replaces_the_incumbent_on_a_shown_gain),
        cmocka_unit_test(test_a_pick_above_the_start_keeps_the_start),
        REFINE_TEST(test_a_refining_launch_runs_a_contender_on_a_share),
        REFINE_TEST(test_a_refining_launch_runs_the_share_last),
        REFINE_TEST(test_a_refining_launch_runs_two_contenders_on_a_share_each),
        REFINE_TEST(test_a_pair_against_a_replaced_winner_is_not_kept),
        REFINE_TEST(test_a_faster_contender_replaces_the_winner),
        REFINE_TEST(test_an_undecided_entry_settles_at_the_limit),
        REFINE_TEST(test_a_slower_contender_leaves_after_one_share),
        REFINE_TEST(test_a_hopeless_first_share_is_cut_short),
        REFINE_TEST(test_a_far_faster_contender_replaces_the_winner_at_once),
        REFINE_TEST(test_a_drifting_winner_reopens_the_entry),
        REFINE_TEST(test_an_analysis_cut_short_resumes_in_the_next_launch),
        REFINE_TEST(test_without_refinement_nothing_resumes),
        REFINE_TEST(test_the_assignment_is_chosen_under_the_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
