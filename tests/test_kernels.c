/* test_kernels.c: the seed kernels and their host side.
 * Loads the seeds module as a client would, checks its signatures against the benchmarks'
 * argument lists, then runs every kernel through the real pool under a spread of schedules
 * and worker counts. The output is poisoned before each run, so a workgroup that was skipped
 * or run twice into the wrong place shows up in verification. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/module.h"
#include "engine/pool.h"
#include "kernels/seedbench.h"
#include "tuner/grid.h"
#include "tuner/schedule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 5 x 5 workgroups of 16 x 16 (5 groups in 1-D): neither 2x2 tiles nor 2 or 3 workers divide
 * the grid evenly. */
#define TEST_N 80
#define NWORKER_COUNTS 3
#define NSEEDS 10

typedef struct fixture {
    gt_module *module;
    gt_pool *pools[NWORKER_COUNTS]; /* 1, 2 and 3 workers */
} fixture;

static const char *const schedules[] = {
    "group=linear,item=linear,assign=dynamic:1",
    "group=hilbert,item=tiled:4x4,assign=block",
    "group=column,item=column,assign=cyclic:2",
    "group=strided:2/1,item=zigzag,assign=stealing",
    "group=tiled:2x2,item=strided:4/2,assign=dynamic:3",
    "group=morton,item=hilbert,assign=block",
    "group=linear,span=4,item=linear,assign=dynamic:1",
    "group=hilbert,span=3,item=tiled:4x4,assign=block",
    "group=column,span=2,item=column,assign=cyclic:2",
    "group=zigzag,span=5,item=tiled:3x2,assign=stealing",
    "group=tiled:2x2,span=8,item=strided:4/2,assign=dynamic:3",
    "group=morton,span=64,item=hilbert,assign=block",
    "group=grouped:3,span=2,item=grouped:4,assign=dynamic:2",
};

static int group_setup(void **state)
{
    static fixture f;
    char err[256] = "";
    if (gt_module_open(GT_SEEDS_MODULE_PATH, &f.module, err, sizeof err) != 0) {
        print_error("cannot open %s: %s\n", GT_SEEDS_MODULE_PATH, err);
        return -1;
    }
    for (unsigned i = 0; i < NWORKER_COUNTS; i++) {
        gt_pool_config cfg = {.workers = i + 1, .no_pin = false};
        if (gt_pool_create(&cfg, &f.pools[i], err, sizeof err) != 0) {
            print_error("cannot create a pool of %u workers: %s\n", i + 1, err);
            return -1;
        }
    }
    *state = &f;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *f = *state;
    for (unsigned i = 0; i < NWORKER_COUNTS; i++)
        gt_pool_destroy(f->pools[i]);
    gt_module_close(f->module);
    return 0;
}

static const gt_kernel_desc *kernel_of(const fixture *f, const gt_seed_bench *b)
{
    const gt_kernel_desc *k = gt_module_find(f->module, b->kernel);
    assert_non_null(k);
    return k;
}

static gt_seed_case *case_make(const char *bench, size_t n)
{
    const gt_seed_bench *b = gt_seed_bench_find(bench);
    assert_non_null(b);
    gt_seed_case *c = NULL;
    char err[256] = "";
    n = (n + b->min_n - 1) / b->min_n * b->min_n; /* stencil5's wide workgroups need 256 */
    int rc = gt_seed_case_create(b, n, &c, err, sizeof err);
    if (rc != 0)
        fail_msg("%s at size %zu: %s", bench, n, err);
    return c;
}

/* One launch of the whole grid, checked to have run every workgroup once. */
static void case_run(gt_pool *pool, const gt_kernel_desc *k, gt_seed_case *c, const gt_schedule *s)
{
    void *slots[GT_SEED_MAX_ARGS];
    gt_args_bind(c->args, c->nargs, slots);
    gt_batch batch = {.run = k->run, .args = slots, .range = c->range, .schedule = *s, .skip = NULL};
    static gt_batch_result result;
    char err[256] = "";
    if (gt_pool_run(pool, &batch, &result, err, sizeof err) != 0)
        fail_msg("%s: gt_pool_run failed: %s", c->bench->name, err);
    assert_int_equal(result.groups, gt_range_group_count(&c->range));
}

/* ---- the module ---------------------------------------------------------------------------- */

static void test_module_lists_every_seed_kernel(void **state)
{
    const fixture *f = *state;
    assert_int_equal(gt_module_count(f->module), NSEEDS);
    size_t nbenches;
    const gt_seed_bench *b = gt_seed_benches(&nbenches);
    assert_int_equal(nbenches, NSEEDS);
    for (size_t i = 0; i < nbenches; i++)
        assert_non_null(gt_module_find(f->module, b[i].kernel));
}

/* 'w' a writable buffer, 'r' a read-only buffer, 's' a 4-byte scalar. */
static const struct {
    const char *kernel;
    const char *kinds;
} signatures[NSEEDS] = {
    {"integral_rows", "wrs"}, {"integral_cols", "wrs"}, {"conv11", "wrrs"},   {"matmul", "wrrs"},
    {"copy_rows", "wrs"},     {"copy_cols", "wrs"},     {"transpose", "wrs"},
    {"matmul_tiled", "wrrs"}, {"reduce", "wrs"},        {"stencil5", "wrs"},
};

static void check_param(const gt_kernel_desc *k, uint32_t i, char kind)
{
    const gt_param_desc *p = &k->params[i];
    gt_param_kind want = kind == 'w' ? GT_PARAM_BUFFER : kind == 'r' ? GT_PARAM_BUFFER_RO : GT_PARAM_SCALAR;
    if (p->kind != want)
        fail_msg("%s parameter %u (%s): kind %d, expected %d", k->name, i, p->name, (int)p->kind, (int)want);
    if (kind == 's')
        assert_int_equal(p->size, 4);
}

static void test_seed_kernels_have_the_expected_parameter_kinds(void **state)
{
    const fixture *f = *state;
    for (size_t i = 0; i < NSEEDS; i++) {
        const gt_kernel_desc *k = gt_module_find(f->module, signatures[i].kernel);
        assert_non_null(k);
        assert_int_equal(k->nparams, strlen(signatures[i].kinds));
        for (uint32_t p = 0; p < k->nparams; p++)
            check_param(k, p, signatures[i].kinds[p]);
    }
}

static void test_transpose_takes_dst_src_and_n(void **state)
{
    const fixture *f = *state;
    const gt_kernel_desc *k = gt_module_find(f->module, "transpose");
    assert_non_null(k);
    assert_int_equal(k->nparams, 3);
    assert_int_equal(k->params[0].kind, GT_PARAM_BUFFER);
    assert_int_equal(k->params[1].kind, GT_PARAM_BUFFER_RO);
    assert_int_equal(k->params[2].kind, GT_PARAM_SCALAR);
    assert_int_equal(k->params[2].size, 4);
    assert_string_equal(k->params[2].type, "int32_t");
}

/* Signature, extents and preconditions: the benchmarks' launches are legal. */
static void test_every_benchmark_passes_the_launch_checks(void **state)
{
    const fixture *f = *state;
    size_t nbenches;
    const gt_seed_bench *b = gt_seed_benches(&nbenches);
    for (size_t i = 0; i < nbenches; i++) {
        gt_seed_case *c = case_make(b[i].name, TEST_N);
        char err[1024] = "";
        int rc = gt_seed_case_check(c, f->module, kernel_of(f, &b[i]), err, sizeof err);
        gt_seed_case_destroy(c);
        if (rc != 0)
            fail_msg("%s: %s", b[i].name, err);
    }
}

/* One way to get a seed launch wrong; each is applied to a case that passes. */
typedef struct mistake {
    const char *what;
    void (*apply)(gt_seed_case *c);
} mistake;

static void n_one_row_more(gt_seed_case *c)
{
    c->args[c->nbuffers].v.i32 += 16;
}

static void n_one_row_less(gt_seed_case *c)
{
    c->args[c->nbuffers].v.i32 -= 16;
}

static void n_negative(gt_seed_case *c)
{
    c->args[c->nbuffers].v.i32 = -c->args[c->nbuffers].v.i32;
}

static void n_huge(gt_seed_case *c)
{
    c->args[c->nbuffers].v.i32 = 100000000;
}

/* The same items, laid out in one dimension fewer or more: x * n and y * n then reach rows
 * that are not there. */
static void range_flattened_or_stacked(gt_seed_case *c)
{
    if (c->range.dims == 2)
        c->range = (gt_range){.dims = 1, .global = {c->n * c->n, 1, 1}, .local = {16, 1, 1}};
    else
        c->range = (gt_range){.dims = 2, .global = {c->n, c->n, 1}, .local = {16, 16, 1}};
}

static void range_made_3d(gt_seed_case *c)
{
    c->range.dims = 3;
    c->range.global[2] = 2;
    c->range.local[2] = 1;
}

static void range_wider_than_n(gt_seed_case *c)
{
    c->range.global[0] += 16;
}

static void buffer_short(gt_seed_case *c, unsigned i)
{
    if (i < c->nbuffers)
        c->buffer_bytes[i] -= 4;
}

static void output_short(gt_seed_case *c)
{
    buffer_short(c, 0);
}

static void first_input_short(gt_seed_case *c)
{
    buffer_short(c, 1);
}

static void second_input_short(gt_seed_case *c)
{
    buffer_short(c, c->nbuffers > 2 ? 2 : 1);
}

static const mistake mistakes[] = {
    {"n one row more", n_one_row_more},
    {"n one row less", n_one_row_less},
    {"n negative", n_negative},
    {"n = 100000000", n_huge},
    {"the range flattened or stacked", range_flattened_or_stacked},
    {"a 3-D range", range_made_3d},
    {"the range wider than n", range_wider_than_n},
    {"the output one element short", output_short},
    {"the first input one element short", first_input_short},
    {"the last input one element short", second_input_short},
};

/* Every mistake, on every seed kernel, is refused before anything runs: none can take a kernel
 * out of its buffers. */
static void test_every_seed_kernel_refuses_launches_out_of_bounds(void **state)
{
    const fixture *f = *state;
    size_t nbenches;
    const gt_seed_bench *b = gt_seed_benches(&nbenches);
    for (size_t i = 0; i < nbenches; i++)
        for (size_t m = 0; m < sizeof mistakes / sizeof mistakes[0]; m++) {
            gt_seed_case *c = case_make(b[i].name, TEST_N);
            mistakes[m].apply(c);
            char err[1024] = "";
            int rc = gt_seed_case_check(c, f->module, kernel_of(f, &b[i]), err, sizeof err);
            gt_seed_case_destroy(c);
            if (rc != -EINVAL)
                fail_msg("%s with %s: the launch checks returned %d; expected a refusal", b[i].name,
                         mistakes[m].what, rc);
            if (!strstr(err, "precondition") && !strstr(err, "work-items of"))
                fail_msg("%s with %s: %s", b[i].name, mistakes[m].what, err);
        }
}

/* ---- kernels against references ------------------------------------------------------------ */

static void check_under_schedules_at(const fixture *f, const char *bench, size_t n)
{
    gt_seed_case *c = case_make(bench, n);
    const gt_kernel_desc *k = kernel_of(f, c->bench);
    for (size_t s = 0; s < sizeof schedules / sizeof schedules[0]; s++) {
        gt_schedule sched;
        char err[256] = "";
        if (gt_schedule_parse(schedules[s], &sched, err, sizeof err) != 0)
            fail_msg("cannot parse %s: %s", schedules[s], err);
        for (unsigned w = 0; w < NWORKER_COUNTS; w++) {
            gt_seed_case_poison_output(c);
            case_run(f->pools[w], k, c, &sched);
            if (gt_seed_case_verify(c, err, sizeof err) != 0)
                fail_msg("%s with %u workers: %s", schedules[s], w + 1, err);
        }
    }
    gt_seed_case_destroy(c);
}

static void check_under_schedules(const fixture *f, const char *bench)
{
    check_under_schedules_at(f, bench, TEST_N);
}

static void test_integral_rows_matches_reference(void **state)
{
    check_under_schedules(*state, "integral_rows");
}

static void test_integral_cols_matches_reference(void **state)
{
    check_under_schedules(*state, "integral_cols");
}

static void test_conv11_matches_reference(void **state)
{
    check_under_schedules(*state, "conv11");
}

static void test_matmul_matches_reference(void **state)
{
    check_under_schedules(*state, "matmul");
}

static void test_copy_rows_matches_reference(void **state)
{
    check_under_schedules(*state, "copy_rows");
}

static void test_copy_cols_matches_reference(void **state)
{
    check_under_schedules(*state, "copy_cols");
}

static void test_transpose_matches_reference(void **state)
{
    check_under_schedules(*state, "transpose");
}

static void test_matmul_tiled_matches_reference(void **state)
{
    check_under_schedules(*state, "matmul_tiled");
}

static void test_reduce_matches_reference(void **state)
{
    check_under_schedules(*state, "reduce");
}

/* An item's share of 17 elements: two steps of its eight running sums and one left over (at
 * TEST_N, 5: the leftover loop alone). */
static void test_reduce_matches_reference_with_long_shares(void **state)
{
    check_under_schedules_at(*state, "reduce", 272);
}

static void test_stencil5_matches_reference(void **state)
{
    check_under_schedules(*state, "stencil5");
}

/* ---- the host side ------------------------------------------------------------------------- */

static void test_verify_reports_an_unwritten_output(void **state)
{
    (void)state;
    gt_seed_case *c = case_make("conv11", TEST_N);
    char err[256] = "";
    gt_seed_case_poison_output(c);
    assert_int_equal(gt_seed_case_verify(c, err, sizeof err), -1);
    assert_non_null(strstr(err, "(x 0, y 0)"));
    assert_non_null(strstr(err, "never written"));
    gt_seed_case_destroy(c);
}

static void test_verify_names_the_one_wrong_element(void **state)
{
    const fixture *f = *state;
    gt_seed_case *c = case_make("matmul", TEST_N);
    case_run(f->pools[0], kernel_of(f, c->bench), c, &gt_schedule_default);
    char err[256] = "";
    assert_int_equal(gt_seed_case_verify(c, err, sizeof err), 0);
    float *out = c->buffers[c->output];
    out[3 * TEST_N + 7] += 0.5f;
    assert_int_equal(gt_seed_case_verify(c, err, sizeof err), -1);
    assert_non_null(strstr(err, "(x 7, y 3)"));
    gt_seed_case_destroy(c);
}

static void test_size_not_a_multiple_of_min_n_is_rejected(void **state)
{
    (void)state;
    const gt_seed_bench *b = gt_seed_bench_find("transpose");
    assert_non_null(b);
    gt_seed_case stale, *c = &stale; /* must be cleared on failure */
    char err[256] = "";
    assert_int_equal(gt_seed_case_create(b, 100, &c, err, sizeof err), -EINVAL);
    assert_null(c);
    assert_non_null(strstr(err, "100"));
    assert_non_null(strstr(err, "multiple of 16"));
}

static void test_bench_find_knows_only_their_names(void **state)
{
    (void)state;
    size_t nbenches;
    const gt_seed_bench *b = gt_seed_benches(&nbenches);
    for (size_t i = 0; i < nbenches; i++)
        assert_ptr_equal(gt_seed_bench_find(signatures[i].kernel), &b[i]);
    assert_null(gt_seed_bench_find("matmul2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_lists_every_seed_kernel),
        cmocka_unit_test(test_seed_kernels_have_the_expected_parameter_kinds),
        cmocka_unit_test(test_transpose_takes_dst_src_and_n),
        cmocka_unit_test(test_every_benchmark_passes_the_launch_checks),
        cmocka_unit_test(test_every_seed_kernel_refuses_launches_out_of_bounds),
        cmocka_unit_test(test_integral_rows_matches_reference),
        cmocka_unit_test(test_integral_cols_matches_reference),
        cmocka_unit_test(test_conv11_matches_reference),
        cmocka_unit_test(test_matmul_matches_reference),
        cmocka_unit_test(test_copy_rows_matches_reference),
        cmocka_unit_test(test_copy_cols_matches_reference),
        cmocka_unit_test(test_transpose_matches_reference),
        cmocka_unit_test(test_matmul_tiled_matches_reference),
        cmocka_unit_test(test_reduce_matches_reference),
        cmocka_unit_test(test_reduce_matches_reference_with_long_shares),
        cmocka_unit_test(test_stencil5_matches_reference),
        cmocka_unit_test(test_verify_reports_an_unwritten_output),
        cmocka_unit_test(test_verify_names_the_one_wrong_element),
        cmocka_unit_test(test_size_not_a_multiple_of_min_n_is_rejected),
        cmocka_unit_test(test_bench_find_knows_only_their_names),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
