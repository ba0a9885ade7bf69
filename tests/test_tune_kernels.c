/* test_tune_kernels.c: the tuner on real kernels and the real pool: analysis samples and the
 * remainder together run every work-item exactly once, with the counters on, and the seed
 * kernels still match their references after a tuned launch. No timing is asserted: which
 * schedule wins depends on the machine; that every workgroup runs once does not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/counters.h"
#include "engine/module.h"
#include "engine/pool.h"
#include "engine/pool_executor.h"
#include "kernels/seedbench.h"
#include "tuner/tune.h"

#include <gridtune/kernel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GT_KERNEL(count_items, uint32_t *, hits)
{
    size_t id = gt_global_id(0) + gt_global_size(0) * (gt_global_id(1) + gt_global_size(1) * gt_global_id(2));
    __atomic_fetch_add(&hits[id], 1, __ATOMIC_RELAXED);
}

typedef struct rig {
    gt_counters *counters;
    gt_pool *pool;
} rig;

static int rig_setup(void **state)
{
    static rig r;
    char err[256];
    if (gt_counters_create(NULL, 0, 2, &r.counters, err, sizeof err) != 0 ||
        gt_pool_create(&(gt_pool_config){.workers = 2, .counters = r.counters}, &r.pool, err, sizeof err) != 0) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    *state = &r;
    return 0;
}

static int rig_teardown(void **state)
{
    rig *r = *state;
    gt_pool_destroy(r->pool);
    gt_counters_destroy(r->counters);
    return 0;
}

/* A config under which even these small launches are analysed: short samples, a generous
   budget, and every candidate measured (no early end), so many batches run. */
static gt_tune_config eager_config(gt_strategy strategy)
{
    gt_tune_config cfg = gt_tune_config_default();
    cfg.strategy = strategy;
    cfg.sample_ns = 2000;
    cfg.budget = 0.3;
    cfg.min_gain = 0.0;
    return cfg;
}

static void count_once(rig *r, const gt_range *range, gt_strategy strategy)
{
    size_t n = range->global[0] * (range->dims > 1 ? range->global[1] : 1) * (range->dims > 2 ? range->global[2] : 1);
    uint32_t *hits = calloc(n, sizeof *hits);
    assert_non_null(hits);
    void *args[] = {&hits};
    gt_pool_executor pe;
    gt_executor exec;
    gt_pool_executor_init(&pe, r->pool, r->counters, NULL, &gt_kernel_desc_count_items, args, range, &exec);
    gt_tune_config cfg = eager_config(strategy);
    gt_tune_launch launch = {.kernel = "count_items", .range = *range};
    gt_tune_result res;
    char err[256];
    assert_int_equal(gt_tune_run(&cfg, &launch, &exec, NULL, &res, err, sizeof err), 0);
    /* The launch was analysed: calibration plus samples of more than one candidate. */
    assert_true(res.ncandidates > 1);
    assert_true(res.groups_analysis > 0);
    assert_true(res.groups_analysis <= (uint64_t)(cfg.budget * (double)res.groups_total));
    for (size_t i = 0; i < n; i++)
        if (hits[i] != 1)
            fail_msg("work-item %zu ran %u times (%s, %u-D)", i, hits[i], gt_strategy_name(strategy), range->dims);
    /* The counters of every sample were read: with TASK-CLOCK, or real events, they grow. */
    const gt_counter_status *cs = gt_counters_status(r->counters);
    if (cs->nused > 0) {
        int64_t sum = 0;
        for (size_t i = 0; i < res.ncandidates; i++)
            for (size_t k = 0; k < res.candidates[i].nsamples; k++)
                sum += res.candidates[i].samples[k].counters[0];
        assert_true(sum > 0);
    }
    gt_tune_result_free(&res);
    free(hits);
}

static void test_every_item_runs_once_2d(void **state)
{
    const gt_range range = {.dims = 2, .global = {512, 384, 1}, .local = {8, 8, 1}};
    count_once(*state, &range, GT_STRATEGY_RACING);
    count_once(*state, &range, GT_STRATEGY_NESTED);
}

static void test_every_item_runs_once_1d_and_3d(void **state)
{
    const gt_range line = {.dims = 1, .global = {1 << 18, 1, 1}, .local = {16, 1, 1}};
    const gt_range cube = {.dims = 3, .global = {64, 48, 32}, .local = {4, 4, 2}};
    count_once(*state, &line, GT_STRATEGY_RACING);
    count_once(*state, &cube, GT_STRATEGY_RACING);
}

static void test_seed_kernels_match_references_after_tuning(void **state)
{
    rig *r = *state;
    char err[512];
    gt_module *m;
    assert_int_equal(gt_module_open(GT_SEEDS_MODULE_PATH, &m, err, sizeof err), 0);
    const char *names[] = {"transpose", "copy_cols", "integral_rows"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const gt_seed_bench *b = gt_seed_bench_find(names[i]);
        gt_seed_case *c;
        assert_int_equal(gt_seed_case_create(b, 512, &c, err, sizeof err), 0);
        const gt_kernel_desc *k = gt_module_find(m, b->kernel);
        void *slots[GT_SEED_MAX_ARGS];
        gt_args_bind(c->args, c->nargs, slots);
        gt_pool_executor pe;
        gt_executor exec;
        gt_pool_executor_init(&pe, r->pool, r->counters, NULL, k, slots, &c->range, &exec);
        gt_tune_config cfg = eager_config(GT_STRATEGY_RACING);
        gt_tune_launch launch = {.kernel = b->kernel, .range = c->range};
        gt_tune_result res;
        gt_seed_case_poison_output(c);
        assert_int_equal(gt_tune_run(&cfg, &launch, &exec, NULL, &res, err, sizeof err), 0);
        assert_true(res.groups_analysis > 0);
        if (gt_seed_case_verify(c, err, sizeof err) != 0)
            fail_msg("%s after a tuned launch: %s", names[i], err);
        gt_tune_result_free(&res);
        gt_seed_case_destroy(c);
    }
    gt_module_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_item_runs_once_2d),
        cmocka_unit_test(test_every_item_runs_once_1d_and_3d),
        cmocka_unit_test(test_seed_kernels_match_references_after_tuning),
    };
    return cmocka_run_group_tests(tests, rig_setup, rig_teardown);
}
