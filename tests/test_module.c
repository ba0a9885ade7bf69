/* test_module.c: loading kernel modules, the signature records GT_KERNEL leaves in them, and
 * the argument checks a launch goes through. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/module.h"
#include "daemon/pool.h"

#include <errno.h>
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
    assert_int_equal(gt_module_count(m), 3);
    assert_non_null(gt_module_find(m, "scale"));
    assert_non_null(gt_module_find(m, "nothing"));
    assert_non_null(gt_module_find(m, "twelve"));
    assert_null(gt_module_find(m, "scal"));
    assert_null(gt_module_kernel(m, 3));
}

static void assert_param(const gt_param_desc *p, const char *name, const char *type, gt_param_kind kind,
                         uint32_t size)
{
    assert_string_equal(p->name, name);
    assert_string_equal(p->type, type);
    assert_int_equal(p->kind, kind);
    assert_int_equal(p->size, size);
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
        cmocka_unit_test(records_twelve_parameters),
        cmocka_unit_test(argument_mismatches_are_named),
        cmocka_unit_test(loaded_kernel_runs_with_bound_arguments),
        cmocka_unit_test(bad_modules_are_refused),
        cmocka_unit_test(buffers_are_checked_against_declared_extents),
        cmocka_unit_test(stale_descriptors_are_refused),
    };
    return cmocka_run_group_tests(tests, open_test_module, close_test_module);
}
