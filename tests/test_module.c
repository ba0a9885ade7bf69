/* test_module.c: loading kernel modules, the signature records GT_KERNEL leaves in them, and
 * the argument checks a launch goes through: signatures, extents and preconditions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/module.h"
#include "engine/pool.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int open_test_module(void **state)
{
    gt_module *m;
    char err[512];
    if (gt_module_open(GT_TEST_KERNELS_MODULE, &m, err, sizeof err) != 0) {
        print_error("%s\n", err);
        return -1;
    }
    *state = m;
    return 0;
}

static int close_test_module(void **state)
{
    gt_module_close(*state);
    return 0;
}

static void lists_every_kernel(void **state)
{
    const gt_module *m = *state;
    assert_int_equal(gt_module_count(m), 5);
    assert_non_null(gt_module_find(m, "scale"));
    assert_non_null(gt_module_find(m, "nothing"));
    assert_non_null(gt_module_find(m, "twelve"));
    assert_non_null(gt_module_find(m, "window"));
    assert_non_null(gt_module_find(m, "group_sum"));
    assert_null(gt_module_find(m, "scal"));
    assert_null(gt_module_kernel(m, 5));
}

static void assert_param(const gt_param_desc *p, const char *name, const char *type, gt_param_kind kind,
                         uint32_t size)
{
    assert_string_equal(p->name, name);
    assert_string_equal(p->type, type);
    assert_int_equal(p->kind, kind);
    assert_int_equal(p->size, size);
}

/* A GT_KERNEL_GROUP kernel's record: a workgroup kernel, no spans, its local memory's size. */
static void records_a_workgroup_kernel(void **state)
{
    const gt_kernel_desc *k = gt_module_find(*state, "group_sum");
    assert_int_equal(k->flags, GT_KERNEL_WORKGROUP | GT_KERNEL_NO_SPANS);
    assert_int_equal(k->local_bytes, 64 * sizeof(double) + sizeof(uint32_t));
    assert_int_equal(gt_module_find(*state, "scale")->flags, 0);
    assert_int_equal(gt_module_find(*state, "scale")->local_bytes, 0);
    char err[256];
    gt_kernel_desc big = *k;
    big.local_bytes = GT_MAX_LOCAL_BYTES + 1;
    assert_int_equal(gt_kernel_desc_check(&big, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "262145 bytes of local memory; gridtune allows at most 262144 (256 KiB)"));
    big.local_bytes = GT_MAX_LOCAL_BYTES;
    assert_int_equal(gt_kernel_desc_check(&big, err, sizeof err), 0);
}

static void records_buffers_and_scalars(void **state)
{
    const gt_kernel_desc *k = gt_module_find(*state, "scale");
    assert_int_equal(k->abi_version, GT_KERNEL_ABI_VERSION);
    assert_int_equal(k->nparams, 3);
    assert_param(&k->params[0], "dst", "float *", GT_PARAM_BUFFER, sizeof(float *));
    assert_param(&k->params[1], "src", "const float *", GT_PARAM_BUFFER_RO, sizeof(float *));
    assert_param(&k->params[2], "factor", "float", GT_PARAM_SCALAR, 4);
    assert_int_equal(gt_module_find(*state, "nothing")->nparams, 0);
}

static void records_twelve_parameters(void **state)
{
    const gt_kernel_desc *k = gt_module_find(*state, "twelve");
    assert_int_equal(k->nparams, 12);
    const uint32_t sizes[12] = {1, 2, 4, 8, 4, 8, 8, 8, 1, 2, 4, 8};
    const gt_param_kind kinds[12] = {[6] = GT_PARAM_BUFFER_RO, [7] = GT_PARAM_BUFFER};
    const char *names = "abcdefghijkl";
    for (int i = 0; i < 12; i++) {
        assert_int_equal(k->params[i].size, sizes[i]);
        assert_int_equal(k->params[i].kind, kinds[i]);
        assert_int_equal(k->params[i].name[0], names[i]);
    }
    assert_string_equal(k->params[6].type, "const char *");
}

static gt_arg_value buffer(void *p)
{
    return (gt_arg_value){.is_buffer = true, .v.ptr = p};
}

static gt_arg_value f32(float f)
{
    return (gt_arg_value){.size = 4, .v.f32 = f};
}

static void assert_args_refused(const gt_kernel_desc *k, const gt_arg_value *args, unsigned n, const char *named)
{
    char err[256] = "";
    assert_int_equal(gt_args_check(k, args, n, err, sizeof err), -EINVAL);
    if (!strstr(err, named))
        fail_msg("error \"%s\" does not say \"%s\"", err, named);
}

static void argument_mismatches_are_named(void **state)
{
    const gt_kernel_desc *k = gt_module_find(*state, "scale");
    float a[4], b[4];
    char err[256];
    gt_arg_value ok[3] = {buffer(a), buffer(b), f32(2)};
    assert_int_equal(gt_args_check(k, ok, 3, err, sizeof err), 0);
    assert_args_refused(k, ok, 2, "takes 3 arguments; got 2");
    gt_arg_value scalar_for_buffer[3] = {buffer(a), f32(1), f32(2)};
    assert_args_refused(k, scalar_for_buffer, 3, "argument 1 (src) of scale: expected a read-only buffer (const float *), got a 4-byte scalar");
    gt_arg_value buffer_for_scalar[3] = {buffer(a), buffer(b), buffer(b)};
    assert_args_refused(k, buffer_for_scalar, 3, "argument 2 (factor) of scale: expected a 4-byte scalar (float), got a buffer");
    gt_arg_value wrong_size[3] = {buffer(a), buffer(b), {.size = 8, .v.f64 = 2}};
    assert_args_refused(k, wrong_size, 3, "got a 8-byte scalar");
    assert_args_refused(gt_module_find(*state, "nothing"), ok, 1, "takes 0 arguments; got 1");
}

static void loaded_kernel_runs_with_bound_arguments(void **state)
{
    const gt_kernel_desc *k = gt_module_find(*state, "scale");
    float src[64], dst[64];
    for (int i = 0; i < 64; i++)
        src[i] = (float)i;
    gt_arg_value args[3] = {buffer(dst), buffer(src), f32(0.5f)};
    void *slots[3];
    gt_args_bind(args, 3, slots);
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    gt_batch b = {.run = k->run, .args = slots, .range = {.dims = 1, .global = {64}, .local = {8}},
                  .schedule = gt_schedule_default};
    assert_int_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0);
    gt_pool_destroy(pool);
    for (int i = 0; i < 64; i++)
        assert_true(dst[i] == (float)i * 0.5f);
}

/* Kernels whose items the compiler runs in vector lanes (tests/fixtures/module_vector_items.c)
 * give, under every walk, span and workgroup shape (widths that leave a vector's remainder
 * included), what the plain loop gives, bit for bit: each item still sums in its own order. */
static void vectorised_items_compute_as_written(void **state)
{
    (void)state;
    enum { N = GT_TEST_VECTOR_ITEMS_N }; /* the fixture's size, set in tests/CMakeLists.txt */
    static float a[N * N], b[N * N], c[N * N], want[N * N];
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)(i % 7) * 0.25f - 0.5f;
        b[i] = (float)(i % 11) * 0.125f + 0.1f;
    }
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            float acc = 0.0f;
            for (int k = 0; k < N; k++)
                acc += a[y * N + k] * b[k * N + x];
            want[y * N + x] = acc;
        }
    gt_module *m;
    char err[512];
    assert_int_equal(gt_module_open(GT_TEST_MODULE_VECTOR_ITEMS, &m, err, sizeof err), 0);
    gt_pool *pool;
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    gt_arg_value args[3] = {buffer(c), buffer(a), buffer(b)};
    void *slots[3];
    gt_args_bind(args, 3, slots);
    const char *kernels[] = {"times", "times_in_region"};
    const size_t shapes[][2] = {{8, 5}, {5, 8}, {40, 1}, {20, 2}, {10, 4}};
    const char *walks[] = {"group=linear,item=linear", "group=column,span=4,item=linear", "group=linear,item=tiled:3x2",
                           "group=hilbert,item=column", "group=linear,item=zigzag"};
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        const gt_kernel_desc *k = gt_module_find(m, kernels[kk]);
        assert_non_null(k);
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (size_t w = 0; w < sizeof walks / sizeof *walks; w++) {
                char text[GT_SCHEDULE_TEXT_MAX];
                snprintf(text, sizeof text, "%s,assign=dynamic:1", walks[w]);
                gt_batch bt = {.run = k->run, .args = slots, .no_spans = k->flags & GT_KERNEL_NO_SPANS,
                               .range = {.dims = 2, .global = {N, N}, .local = {shapes[s][0], shapes[s][1]}}};
                if (gt_schedule_parse(text, &bt.schedule, err, sizeof err) != 0)
                    fail_msg("bad schedule in test: %s", err);
                if (bt.no_spans)
                    bt.schedule.span = 1;
                memset(c, 0, sizeof c);
                if (gt_pool_run(pool, &bt, NULL, err, sizeof err) != 0)
                    fail_msg("%s, %s, %zux%zu: %s", kernels[kk], text, shapes[s][0], shapes[s][1], err);
                for (int i = 0; i < N * N; i++)
                    if (c[i] != want[i])
                        fail_msg("%s, %s, %zux%zu: item (%d,%d) gave %a, the plain loop %a", kernels[kk], text,
                                 shapes[s][0], shapes[s][1], i % N, i / N, c[i], want[i]);
            }
    }
    gt_pool_destroy(pool);
    gt_module_close(m);
}

static void assert_open_refused(const char *path, int code, const char *named)
{
    gt_module *m = NULL;
    char err[512] = "";
    assert_int_equal(gt_module_open(path, &m, err, sizeof err), code);
    assert_null(m);
    if (!strstr(err, named))
        fail_msg("error \"%s\" does not say \"%s\"", err, named);
}

static void bad_modules_are_refused(void **state)
{
    (void)state;
    assert_open_refused("/nonexistent/kernels.so", -ENOENT, "/nonexistent/kernels.so");
    assert_open_refused("no-such-module.so", -ENOENT, "./no-such-module.so");
    assert_open_refused("/dev/null", -EINVAL, "/dev/null is not a regular file");
    assert_open_refused("/tmp", -EINVAL, "/tmp is not a regular file");
    assert_open_refused(GT_TEST_MODULE_PLAIN, -EINVAL, "is not a gridtune kernel module");
    assert_open_refused(GT_TEST_MODULE_EMPTY, -EINVAL, "defines no kernels");
    assert_open_refused(GT_TEST_MODULE_WIDE_SCALAR, -EINVAL, "(long double big) is a 16-byte scalar");
    assert_open_refused(GT_TEST_MODULE_BAD_EXTENT, -EINVAL, "GT_BUFFER_EXTENT(scale_by, factor, 4) must name a buffer");
    assert_open_refused(GT_TEST_MODULE_BAD_REQUIRE, -EINVAL, "GT_REQUIRE(ghost, 1) must name one of its kernels");
    assert_open_refused(GT_TEST_MODULE_BIG_LOCAL, -EINVAL,
                        "kernel hog declares 266240 bytes of local memory; gridtune allows at most 262144 (256 KiB)");
}

static void assert_extents_refused(const gt_module *m, uint64_t items, const size_t *bytes, const char *named)
{
    char err[512] = "";
    assert_int_equal(gt_extents_check(m, gt_module_find(m, "scale"), items, bytes, err, sizeof err), -EINVAL);
    if (!strstr(err, named))
        fail_msg("error \"%s\" does not say \"%s\"", err, named);
}

static void buffers_are_checked_against_declared_extents(void **state)
{
    const gt_module *m = *state;
    char err[512];
    /* scale: dst 4 bytes a work-item, src 8 (declared), factor a scalar whose "size" is ignored */
    size_t exact[3] = {64 * 4, 64 * 8, 0};
    assert_int_equal(gt_extents_check(m, gt_module_find(m, "scale"), 64, exact, err, sizeof err), 0);
    size_t short_dst[3] = {64 * 4 - 1, 64 * 8, 0};
    assert_extents_refused(m, 64, short_dst, "argument 0 (dst) of scale: the buffer has 255 bytes, but 64 work-items "
                           "of 4 bytes each need 256");
    size_t short_src[3] = {64 * 4, 64 * 4, 0};
    assert_extents_refused(m, 64, short_src, "argument 1 (src) of scale: the buffer has 256 bytes, but 64 work-items "
                           "of 8 bytes each need 512");
    assert_extents_refused(m, UINT64_MAX / 2, exact, "need more than 2^64");
    /* a kernel without declared extents is not checked */
    assert_int_equal(gt_extents_check(m, gt_module_find(m, "twelve"), 1u << 30, exact, err, sizeof err), 0);
}

/* ---- preconditions (GT_REQUIRE) ----------------------------------------------------------- */

/* A launch of window (tests/fixtures/kernels_module.c) that meets every precondition: 64 items in
 * groups of 8, reading src[4 .. 67]. */
typedef struct window_launch {
    gt_range range;
    gt_arg_value args[5];
    size_t bytes[5];
} window_launch;

static window_launch window_fitting(void)
{
    static float dst[64], src[68];
    return (window_launch){
        .range = {.dims = 1, .global = {64, 1, 1}, .local = {8, 1, 1}},
        .args = {buffer(dst), buffer(src), {.size = 4, .v.i32 = 4}, {.size = 8, .v.u64 = 64}, {.size = 8, .v.f64 = 0.5}},
        .bytes = {sizeof dst, sizeof src, 0, 0, 0},
    };
}

static int window_check(const gt_module *m, const window_launch *w, char *err, size_t errlen)
{
    return gt_preconditions_check(m, gt_module_find(m, "window"), &w->range, w->args, w->bytes, err, errlen);
}

/* The launch is refused with exactly this sentence. */
static void assert_window_refused(const gt_module *m, const window_launch *w, const char *expected)
{
    char err[1024] = "";
    assert_int_equal(window_check(m, w, err, sizeof err), -EINVAL);
    assert_string_equal(err, expected);
}

static void preconditions_that_hold_pass(void **state)
{
    window_launch w = window_fitting();
    char err[1024] = "";
    assert_int_equal(window_check(*state, &w, err, sizeof err), 0);
    /* one element more than needed, and a larger workgroup, still fit */
    w.bytes[1] += sizeof(float);
    w.range.local[0] = 16;
    assert_int_equal(window_check(*state, &w, err, sizeof err), 0);
}

static void a_failing_precondition_is_quoted_with_the_launch(void **state)
{
    window_launch w = window_fitting();
    w.range.dims = 2;
    assert_window_refused(*state, &w, "window: the precondition `gt_work_dim() == 1` does not hold (range 64x1/8x1, "
                                      "dst 256 bytes, src 272 bytes, offset = 4, count = 64, scale = 0.5)");
}

/* Each scalar is read with its declared type: a negative int32_t, a double (read as an integer
 * its bits would be positive), a uint64_t above 2^32 (truncated to 32 bits it would be 64). */
static void scalars_are_seen_with_their_types(void **state)
{
    window_launch w = window_fitting();
    w.args[2].v.i32 = -1;
    assert_window_refused(*state, &w, "window: the precondition `gt_param(offset) >= 0 && gt_param(scale) > 0.0` does "
                                      "not hold (range 64/8, dst 256 bytes, src 272 bytes, offset = -1, count = 64, "
                                      "scale = 0.5)");
    w = window_fitting();
    w.args[4].v.f64 = -0.25;
    assert_window_refused(*state, &w, "window: the precondition `gt_param(offset) >= 0 && gt_param(scale) > 0.0` does "
                                      "not hold (range 64/8, dst 256 bytes, src 272 bytes, offset = 4, count = 64, "
                                      "scale = -0.25)");
    w = window_fitting();
    w.args[3].v.u64 = (1ull << 32) + 64;
    assert_window_refused(*state, &w, "window: the precondition `gt_param(count) == gt_global_size(0)` does not hold "
                                      "(range 64/8, dst 256 bytes, src 272 bytes, offset = 4, count = 4294967360, "
                                      "scale = 0.5)");
}

/* gt_buffer_bytes gives each buffer's own size, through a helper function (the expression's
 * commas survive) and in place. */
static void buffer_sizes_are_seen(void **state)
{
    window_launch w = window_fitting();
    w.bytes[0] -= 1;
    assert_window_refused(*state, &w, "window: the precondition `fits(gt_global_size(0), gt_buffer_bytes(dst))` does "
                                      "not hold (range 64/8, dst 255 bytes, src 272 bytes, offset = 4, count = 64, "
                                      "scale = 0.5)");
    w = window_fitting();
    w.args[2].v.i32 = 5; /* reads src[5 .. 68]: one past its end */
    assert_window_refused(*state, &w, "window: the precondition `(uint64_t)gt_param(offset) + gt_global_size(0) <= "
                                      "gt_buffer_bytes(src) / sizeof(float)` does not hold (range 64/8, dst 256 "
                                      "bytes, src 272 bytes, offset = 5, count = 64, scale = 0.5)");
}

static void the_range_is_seen(void **state)
{
    window_launch w = window_fitting();
    w.range.local[0] = 4;
    assert_window_refused(*state, &w, "window: the precondition `gt_local_size(0) % 8 == 0 && gt_num_groups(0) * "
                                      "gt_local_size(0) == gt_global_size(0)` does not hold (range 64/4, dst 256 "
                                      "bytes, src 272 bytes, offset = 4, count = 64, scale = 0.5)");
}

/* Several fail: the first written is reported, whatever order the linker left them in. */
static void preconditions_are_evaluated_in_the_order_written(void **state)
{
    window_launch w = window_fitting();
    w.bytes[0] = w.bytes[1] = 0;
    w.range.local[0] = 4;
    w.args[2].v.i32 = -3;
    char err[1024] = "";
    assert_int_equal(window_check(*state, &w, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "`gt_param(offset) >= 0 && gt_param(scale) > 0.0`"));
    w.args[2].v.i32 = 4;
    assert_int_equal(window_check(*state, &w, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "`gt_local_size(0) % 8 == 0"));
    w.range.local[0] = 8;
    assert_int_equal(window_check(*state, &w, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "gt_buffer_bytes(dst)"));
}

/* scale declares none: any launch passes (its extents are another check). */
static void a_kernel_without_preconditions_passes(void **state)
{
    const gt_module *m = *state;
    gt_range range = {.dims = 3, .global = {2, 2, 2}, .local = {1, 1, 1}};
    float a[1], b[1];
    gt_arg_value args[3] = {buffer(a), buffer(b), f32(-1)};
    size_t bytes[3] = {0, 0, 0};
    char err[256] = "";
    assert_int_equal(gt_preconditions_check(m, gt_module_find(m, "scale"), &range, args, bytes, err, sizeof err), 0);
}

/* A module built before preconditions existed exports no gt_module_preconditions: it loads,
 * and its kernels have none. */
static void a_module_from_before_preconditions_loads(void **state)
{
    (void)state;
    void *h = dlopen(GT_TEST_MODULE_LEGACY, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    assert_non_null(dlsym(h, "gt_module_kernels"));
    assert_null(dlsym(h, "gt_module_preconditions"));
    dlclose(h);
    gt_module *m;
    char err[512] = "";
    if (gt_module_open(GT_TEST_MODULE_LEGACY, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    const gt_kernel_desc *k = gt_module_find(m, "double_it");
    assert_non_null(k);
    int32_t v[4];
    gt_range range = {.dims = 1, .global = {4, 1, 1}, .local = {4, 1, 1}};
    gt_arg_value args[1] = {buffer(v)};
    size_t bytes[1] = {sizeof v};
    assert_int_equal(gt_preconditions_check(m, k, &range, args, bytes, err, sizeof err), 0);
    gt_module_close(m);
}

static void stale_descriptors_are_refused(void **state)
{
    gt_kernel_desc k = *gt_module_find(*state, "scale");
    char err[256] = "";
    assert_int_equal(gt_kernel_desc_check(&k, err, sizeof err), 0);
    k.abi_version = GT_KERNEL_ABI_VERSION + 1;
    assert_int_equal(gt_kernel_desc_check(&k, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "rebuild the module"));
    k.abi_version = GT_KERNEL_ABI_VERSION;
    k.run = NULL;
    assert_int_equal(gt_kernel_desc_check(&k, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "malformed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_every_kernel),
        cmocka_unit_test(records_buffers_and_scalars),
        cmocka_unit_test(records_a_workgroup_kernel),
        cmocka_unit_test(records_twelve_parameters),
        cmocka_unit_test(argument_mismatches_are_named),
        cmocka_unit_test(loaded_kernel_runs_with_bound_arguments),
        cmocka_unit_test(vectorised_items_compute_as_written),
        cmocka_unit_test(bad_modules_are_refused),
        cmocka_unit_test(buffers_are_checked_against_declared_extents),
        cmocka_unit_test(preconditions_that_hold_pass),
        cmocka_unit_test(a_failing_precondition_is_quoted_with_the_launch),
        cmocka_unit_test(scalars_are_seen_with_their_types),
        cmocka_unit_test(buffer_sizes_are_seen),
        cmocka_unit_test(the_range_is_seen),
        cmocka_unit_test(preconditions_are_evaluated_in_the_order_written),
        cmocka_unit_test(a_kernel_without_preconditions_passes),
        cmocka_unit_test(a_module_from_before_preconditions_loads),
        cmocka_unit_test(stale_descriptors_are_refused),
    };
    return cmocka_run_group_tests(tests, open_test_module, close_test_module);
}
