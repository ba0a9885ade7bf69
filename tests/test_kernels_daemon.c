/* test_kernels_daemon.c: the seed kernels' launch preconditions (GT_REQUIRE in kernels/seeds.c)
 * in a real gridtuned. The launches the audit of issue 14 found passed every earlier check and
 * then took a kernel out of bounds, killing the daemon; each must now be refused with the
 * precondition's text, and the daemon must go on serving: after each, a correct transpose runs
 * and every element of its output is checked. Run twice: with executor processes and in-process. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"

#include "protocol/protocol.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#ifndef GT_SEEDS_MODULE_PATH
#error "GT_SEEDS_MODULE_PATH must name the seed kernels' module"
#endif

#define MAX_BUFFERS 3
#define GOOD_N 64

static daemon_fixture fx;

/* Launches kernel of the seeds module over range with fresh buffers of these sizes, then n;
 * the launch's return code (its wait's when it was queued). gt_last_error(c) says why. */
static int launch_seed(gt_client *c, const char *kernel, const gt_range *range, const size_t *bytes, unsigned nbufs,
                       int32_t n)
{
    gt_kernel *k;
    gt_buffer *bufs[MAX_BUFFERS] = {0};
    gt_arg args[MAX_BUFFERS + 1];
    assert_int_equal(gt_kernel_load(c, GT_SEEDS_MODULE_PATH, kernel, &k), 0);
    for (unsigned i = 0; i < nbufs; i++) {
        assert_int_equal(gt_buffer_create(c, bytes[i], &bufs[i]), 0);
        args[i] = gt_arg_buffer(bufs[i]);
    }
    args[nbufs] = gt_arg_i32(n);
    gt_event ev;
    int rc = gt_launch(c, k, range, args, nbufs + 1, NULL, &ev);
    if (rc == 0)
        rc = gt_wait(c, ev);
    for (unsigned i = 0; i < nbufs; i++)
        gt_buffer_release(bufs[i]);
    gt_kernel_release(k);
    return rc;
}

/* A fresh client transposes a GOOD_N x GOOD_N matrix, every element checked. */
static void assert_still_serving(void)
{
    gt_client *c = daemon_fixture_connect(&fx);
    gt_kernel *k;
    gt_buffer *dst, *src;
    size_t bytes = GOOD_N * GOOD_N * sizeof(float);
    assert_int_equal(gt_kernel_load(c, GT_SEEDS_MODULE_PATH, "transpose", &k), 0);
    assert_int_equal(gt_buffer_create(c, bytes, &dst), 0);
    assert_int_equal(gt_buffer_create(c, bytes, &src), 0);
    float *in = gt_buffer_data(src), *out = gt_buffer_data(dst);
    for (size_t i = 0; i < GOOD_N * GOOD_N; i++)
        in[i] = (float)i;
    gt_range range = {.dims = 2, .global = {GOOD_N, GOOD_N, 1}, .local = {16, 16, 1}};
    gt_arg args[] = {gt_arg_buffer(dst), gt_arg_buffer(src), gt_arg_i32(GOOD_N)};
    gt_event ev;
    int rc = gt_launch(c, k, &range, args, 3, NULL, &ev);
    if (rc == 0)
        rc = gt_wait(c, ev);
    if (rc != 0)
        fail_msg("a correct transpose after the bad launch failed (%d): %s", rc, gt_last_error(c));
    for (size_t y = 0; y < GOOD_N; y++)
        for (size_t x = 0; x < GOOD_N; x++)
            if (out[x * GOOD_N + y] != in[y * GOOD_N + x])
                fail_msg("transpose left dst[%zu] at %g; expected %g", x * GOOD_N + y, (double)out[x * GOOD_N + y],
                         (double)in[y * GOOD_N + x]);
    gt_buffer_release(dst);
    gt_buffer_release(src);
    gt_kernel_release(k);
    gt_disconnect(c);
}

/* The launch is refused as bad arguments, quoting the precondition and the launch's values. */
static void assert_refused(const char *kernel, const gt_range *range, const size_t *bytes, unsigned nbufs, int32_t n,
                           const char *precondition, const char *values)
{
    gt_client *c = daemon_fixture_connect(&fx);
    int rc = launch_seed(c, kernel, range, bytes, nbufs, n);
    char needle[512];
    snprintf(needle, sizeof needle, "launch: %s: the precondition `%s` does not hold", kernel, precondition);
    print_message("%s\n", gt_last_error(c));
    assert_api_error(&fx, c, rc, GT_ERR_ARGS, EINVAL, needle);
    if (!strstr(gt_last_error(c), values))
        fail_msg("the error does not give the launch's values \"%s\": %s", values, gt_last_error(c));
    gt_disconnect(c);
    assert_still_serving();
}

/* 65,536 items of 4 bytes over 256 KiB buffers pass the extents; transpose would index x * n
 * with x up to 65,535. */
static void test_transpose_over_a_1d_range_is_refused(void **state)
{
    (void)state;
    gt_range range = {.dims = 1, .global = {65536, 1, 1}, .local = {256, 1, 1}};
    size_t bytes[] = {256 << 10, 256 << 10};
    assert_refused("transpose", &range, bytes, 2, 256, "gt_work_dim() == 2",
                   "(range 65536/256, dst 262144 bytes, src 262144 bytes, n = 256)");
}

/* A 64 x 64 range with buffers to match, and n = 100000: rows 100000 floats apart. */
static void test_transpose_with_n_beyond_the_range_is_refused(void **state)
{
    (void)state;
    gt_range range = {.dims = 2, .global = {64, 64, 1}, .local = {16, 16, 1}};
    size_t bytes[] = {64 * 64 * sizeof(float), 64 * 64 * sizeof(float)};
    assert_refused("transpose", &range, bytes, 2, 100000,
                   "gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) && gt_global_size(1) == "
                   "(size_t)gt_param(n)",
                   "n = 100000");
}

/* 64 items, each walking a row of n = 100,000,000 elements: no per-item extent can say this. */
static void test_integral_rows_with_huge_n_is_refused(void **state)
{
    (void)state;
    gt_range range = {.dims = 1, .global = {64, 1, 1}, .local = {16, 1, 1}};
    size_t bytes[] = {64 * 64 * sizeof(uint32_t), 64 * 64 * sizeof(uint32_t)};
    assert_refused("integral_rows", &range, bytes, 2, 100000000,
                   "gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n)", "n = 100000000");
}

/* The range is right, but the input is one element short of n x n. */
static void test_integral_rows_with_a_short_input_is_refused(void **state)
{
    (void)state;
    gt_range range = {.dims = 1, .global = {64, 1, 1}, .local = {16, 1, 1}};
    size_t bytes[] = {64 * 64 * sizeof(uint32_t), 64 * 64 * sizeof(uint32_t) - 4};
    assert_refused("integral_rows", &range, bytes, 2, 64,
                   "(uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(in) / sizeof(uint32_t)",
                   "in 16380 bytes");
}

/* conv11 reads (n + 10) x (n + 10) floats: n x n of input passes its per-item extent. */
static void test_conv11_without_padding_is_refused(void **state)
{
    (void)state;
    gt_range range = {.dims = 2, .global = {64, 64, 1}, .local = {16, 16, 1}};
    size_t bytes[] = {64 * 64 * sizeof(float), 64 * 64 * sizeof(float), 11 * 11 * sizeof(float)};
    assert_refused("conv11", &range, bytes, 3, 64,
                   "((uint64_t)gt_param(n) + 10) * ((uint64_t)gt_param(n) + 10) <= gt_buffer_bytes(in) / sizeof(float)",
                   "in 16384 bytes");
}

static void test_daemon_stops_cleanly(void **state)
{
    (void)state;
    int status = daemon_fixture_stop(&fx);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("gridtuned ended with wait status 0x%x after SIGTERM; expected exit status 0", (unsigned)status);
    daemon_fixture_clean_up(&fx);
}

/* Preconditions are the module's code: with executor processes they are evaluated in the
 * executor (gridtuned never opens the module), in-process by gridtuned. Both refuse alike. */
static int group_setup(void **state)
{
    (void)state;
    daemon_fixture_start(&fx, NULL, NULL);
    return 0;
}

static int group_setup_in_process(void **state)
{
    (void)state;
    daemon_fixture_start(&fx, NULL, (const char *const[]){"--isolation", "none", NULL});
    return 0;
}

/* What is left when a test failed before the last one ran. */
static int group_teardown(void **state)
{
    (void)state;
    if (fx.pid > 0)
        daemon_fixture_stop(&fx);
    daemon_fixture_clean_up(&fx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose_over_a_1d_range_is_refused),
        cmocka_unit_test(test_transpose_with_n_beyond_the_range_is_refused),
        cmocka_unit_test(test_integral_rows_with_huge_n_is_refused),
        cmocka_unit_test(test_integral_rows_with_a_short_input_is_refused),
        cmocka_unit_test(test_conv11_without_padding_is_refused),
        cmocka_unit_test(test_daemon_stops_cleanly),
    };
    int failed = cmocka_run_group_tests_name("seed kernels' preconditions, executor processes", tests, group_setup,
                                             group_teardown);
    return failed + cmocka_run_group_tests_name("seed kernels' preconditions, in-process", tests,
                                                group_setup_in_process, group_teardown);
}
