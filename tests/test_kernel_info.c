/* test_kernel_info.c: kernels described as data (daemon/kernel_info.c), the form in which
 * gridtuned learns a kernel from the module loader without opening the module: a description
 * reads back as the module's own record, its extents check as the module's do, and every kind
 * of malformed description is refused with a sentence saying what is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/kernel_info.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef GT_TEST_KERNELS_MODULE
#error "GT_TEST_KERNELS_MODULE must name the test kernels' module"
#endif

static gt_module *open_module(void)
{
    gt_module *m;
    char err[512];
    if (gt_module_open(GT_TEST_KERNELS_MODULE, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    return m;
}

/* Kernel name of the module, described and read back. */
static void read_back(gt_module *m, const char *name, gt_kernel_info *info)
{
    cJSON *json = gt_kernel_info_describe(m, gt_module_find(m, name));
    char err[512];
    assert_non_null(json);
    if (gt_kernel_info_read(json, info, err, sizeof err) != 0)
        fail_msg("%s's description does not read back: %s", name, err);
    cJSON_Delete(json);
}

static void test_description_reads_back_as_the_record(void **state)
{
    (void)state;
    gt_module *m = open_module();
    const char *names[] = {"scale", "nothing", "twelve", "window", "group_sum"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        const gt_kernel_desc *k = gt_module_find(m, names[n]);
        gt_kernel_info info;
        read_back(m, names[n], &info);
        assert_string_equal(info.desc.name, k->name);
        assert_int_equal(info.desc.flags, k->flags);
        assert_int_equal(info.desc.local_bytes, k->local_bytes);
        assert_int_equal(info.desc.nparams, k->nparams);
        assert_null(info.desc.run);
        for (uint32_t i = 0; i < k->nparams; i++) {
            assert_string_equal(info.params[i].name, k->params[i].name);
            assert_string_equal(info.params[i].type, k->params[i].type);
            assert_int_equal(info.params[i].kind, k->params[i].kind);
            assert_int_equal(info.params[i].size, k->params[i].size);
            assert_int_equal(info.extent[i], gt_module_extent(m, k, i));
        }
        gt_kernel_info_free(&info);
    }
    gt_module_close(m);
}

/* scale declares 4 bytes per item of dst and 8 of src: the description refuses what the
 * module refuses, with the same sentence, and passes what it passes. When both buffers are
 * short, the description names the first parameter (the module, the first record it holds). */
static void test_extents_check_as_the_module(void **state)
{
    (void)state;
    gt_module *m = open_module();
    const gt_kernel_desc *k = gt_module_find(m, "scale");
    gt_kernel_info info;
    read_back(m, "scale", &info);
    assert_int_equal(info.extent[0], 4);
    assert_int_equal(info.extent[1], 8);
    const size_t cases[][3] = {{256, 512, 0}, {255, 512, 0}, {256, 511, 0}, {1 << 20, 1 << 20, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char want[512] = "", got[512] = "";
        int a = gt_extents_check(m, k, 64, cases[c], want, sizeof want);
        int b = gt_kernel_info_check_extents(&info, 64, cases[c], got, sizeof got);
        assert_int_equal(a, b);
        assert_string_equal(got, want);
    }
    char err[512];
    assert_int_equal(gt_kernel_info_check_extents(&info, 64, (const size_t[]){0, 0, 0}, err, sizeof err), -EINVAL);
    assert_string_equal(err, "argument 0 (dst) of scale: the buffer has 0 bytes, but 64 work-items of 4 bytes each "
                             "need 256");
    assert_int_equal(gt_kernel_info_check_extents(&info, UINT64_MAX / 2, cases[3], err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "more than 2^64"));
    gt_kernel_info_free(&info);
    gt_module_close(m);
}

/* The protocol's params: name, type, kind and size, as kernel_load has always answered. */
static void test_params_for_the_protocol(void **state)
{
    (void)state;
    gt_module *m = open_module();
    gt_kernel_info info;
    read_back(m, "scale", &info);
    cJSON *params = gt_kernel_info_params(&info);
    char *text = cJSON_PrintUnformatted(params);
    assert_string_equal(text, "[{\"name\":\"dst\",\"type\":\"float *\",\"kind\":\"buffer\",\"size\":8},"
                              "{\"name\":\"src\",\"type\":\"const float *\",\"kind\":\"buffer_ro\",\"size\":8},"
                              "{\"name\":\"factor\",\"type\":\"float\",\"kind\":\"scalar\",\"size\":4}]");
    cJSON_free(text);
    cJSON_Delete(params);
    gt_kernel_info_free(&info);
    gt_module_close(m);
}

#define P_OK "{\"name\":\"n\",\"type\":\"int32_t\",\"kind\":\"scalar\",\"size\":4}"

static void test_malformed_descriptions_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *json, *says;
    } cases[] = {
        {"[]", "not an object"},
        {"{\"flags\":0,\"local_bytes\":0,\"params\":[]}", "\"name\" must be a string"},
        {"{\"name\":\"\",\"flags\":0,\"local_bytes\":0,\"params\":[]}", "\"name\" must be a string"},
        {"{\"name\":7,\"flags\":0,\"local_bytes\":0,\"params\":[]}", "\"name\" must be a string"},
        {"{\"name\":\"k\",\"params\":[]}", "\"flags\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":-1,\"params\":[]}", "\"flags\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":0.5,\"params\":[]}", "\"flags\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":4,\"local_bytes\":0,\"params\":[]}", "flags 0x4 this gridtune does not know"},
        {"{\"name\":\"k\",\"flags\":0,\"params\":[]}", "\"local_bytes\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":3,\"local_bytes\":-4,\"params\":[]}", "\"local_bytes\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":3,\"local_bytes\":262145,\"params\":[]}", "262145 bytes of local memory"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":64,\"params\":[]}", "only a workgroup kernel has local memory"},
        {"{\"name\":\"k\",\"flags\":2,\"local_bytes\":0,\"params\":[]}", "a workgroup kernel must refuse spans"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0}", "\"params\" must be an array"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":{}}", "\"params\" must be an array"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[7]}", "a parameter must be an object"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[" P_OK ",{\"type\":\"int\",\"kind\":\"scalar\",\"size\":4}]}",
         "\"name\" must be a string"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"kind\":\"scalar\",\"size\":4}]}",
         "\"type\" must be a string"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"type\":\"int\",\"kind\":\"pointer\",\"size\":4}]}",
         "\"kind\" must be scalar, buffer or buffer_ro"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"type\":\"int\",\"kind\":\"scalar\"}]}",
         "\"size\" must be an integer from 0 to 64"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"type\":\"int\",\"kind\":\"scalar\",\"size\":65}]}",
         "\"size\" must be an integer from 0 to 64"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"type\":\"int\",\"kind\":\"scalar\",\"size\":0}]}",
         "is a 0-byte scalar"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"n\",\"type\":\"int\",\"kind\":\"scalar\",\"size\":4,"
         "\"extent\":4}]}",
         "a scalar parameter has an extent"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"p\",\"type\":\"float *\",\"kind\":\"buffer\",\"size\":8,"
         "\"extent\":1e300}]}",
         "\"extent\" must be an integer"},
        {"{\"name\":\"k\",\"flags\":0,\"local_bytes\":0,\"params\":[{\"name\":\"p\",\"type\":\"float *\",\"kind\":\"buffer\",\"size\":8,"
         "\"extent\":\"4\"}]}",
         "\"extent\" must be an integer"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cJSON *json = cJSON_Parse(cases[c].json);
        assert_non_null(json);
        gt_kernel_info info;
        char err[512] = "";
        int rc = gt_kernel_info_read(json, &info, err, sizeof err);
        cJSON_Delete(json);
        if (rc != -EINVAL || !strstr(err, cases[c].says))
            fail_msg("%s: %d, \"%s\"; expected -EINVAL saying \"%s\"", cases[c].json, rc, err, cases[c].says);
    }
}

/* Names and types of up to 255 bytes, and up to 64 parameters; no more of either. */
static void test_limits(void **state)
{
    (void)state;
    char name[GT_KERNEL_INFO_TEXT_MAX + 1];
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    cJSON *json = cJSON_Parse("{\"flags\":0,\"local_bytes\":0,\"params\":[]}");
    cJSON_AddStringToObject(json, "name", name);
    gt_kernel_info info;
    char err[512];
    assert_int_equal(gt_kernel_info_read(json, &info, err, sizeof err), -EINVAL);
    name[sizeof name - 2] = '\0';
    cJSON_ReplaceItemInObject(json, "name", cJSON_CreateString(name));
    assert_int_equal(gt_kernel_info_read(json, &info, err, sizeof err), 0);
    gt_kernel_info_free(&info);
    cJSON *params = cJSON_GetObjectItem(json, "params");
    for (int i = 0; i < GT_MODULE_MAX_PARAMS; i++)
        cJSON_AddItemToArray(params, cJSON_Parse(P_OK));
    assert_int_equal(gt_kernel_info_read(json, &info, err, sizeof err), 0);
    assert_int_equal(info.desc.nparams, GT_MODULE_MAX_PARAMS);
    gt_kernel_info_free(&info);
    cJSON_AddItemToArray(params, cJSON_Parse(P_OK));
    assert_int_equal(gt_kernel_info_read(json, &info, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "at most 64 parameters"));
    cJSON_Delete(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_description_reads_back_as_the_record),
        cmocka_unit_test(test_extents_check_as_the_module),
        cmocka_unit_test(test_params_for_the_protocol),
        cmocka_unit_test(test_malformed_descriptions_are_refused),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
