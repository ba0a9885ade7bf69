/* test_peers_opencl.c: the OpenCL twins of the seed kernels (bench/peers/ocl_twins.c).
 * Every twin must match its benchmark's reference, host writes must reach the device and the
 * kernel's output the host, and the empty launch must be timed. Without an OpenCL platform or
 * CPU device every test is skipped, saying why; seeds.cl failing to build fails them all. Run
 * with the argument no-icd, the binary checks instead that an empty ICD vendor directory gives
 * a sentence naming the missing platform. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bench/peers/ocl_twins.h"
#include "kernels/seedbench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 5 x 5 workgroups of 16 x 16 (5 in 1-D): small, and not a power of two. */
#define TEST_N 80
#define EMPTY_REPS 16
#define MAX_BENCHES 16
#define MAX_TESTS (MAX_BENCHES + 8)

/* The device, opened once for the group; NULL with the reason when there is none. */
static gt_ocl *ocl;
static char no_ocl_reason[512];

typedef struct case_fixture {
    gt_seed_case *c;
    gt_ocl_case *oc;
} case_fixture;

/* No platform or no CPU device (-ENODEV) skips the tests; any other failure, such as seeds.cl
 * not building, is a failure of them all. */
static int group_setup(void **state)
{
    (void)state;
    int rc = gt_ocl_open(&ocl, no_ocl_reason, sizeof no_ocl_reason);
    if (rc == -ENODEV) {
        print_message("no OpenCL CPU device, skipping every test: %s\n", no_ocl_reason);
        return 0;
    }
    if (rc != 0) {
        print_error("cannot open the OpenCL peer: %s\n", no_ocl_reason);
        return -1;
    }
    print_message("OpenCL device: %s\n", gt_ocl_device_name(ocl));
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    gt_ocl_close(ocl);
    return 0;
}

/* The test's initial state names the benchmark; it becomes the case and its twin, ready to run. */
static int case_setup(void **state)
{
    case_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    const gt_seed_bench *b = gt_seed_bench_find(*state);
    *state = f;
    assert_non_null(b);
    if (!ocl)
        return 0;
    char err[512] = "";
    size_t n = (TEST_N + b->min_n - 1) / b->min_n * b->min_n; /* stencil5's wide workgroups need 256 */
    if (gt_seed_case_create(b, n, &f->c, err, sizeof err) != 0)
        fail_msg("%s", err);
    if (gt_ocl_case_open(ocl, f->c, &f->oc, err, sizeof err) != 0)
        fail_msg("%s", err);
    return 0;
}

static int case_teardown(void **state)
{
    case_fixture *f = *state;
    gt_ocl_case_close(f->oc);
    gt_seed_case_destroy(f->c);
    free(f);
    return 0;
}

static void skip_without_device(void)
{
    if (!ocl)
        skip();
}

static void run_ok(case_fixture *f)
{
    char err[512] = "";
    if (gt_ocl_case_run(f->oc, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void verify_ok(case_fixture *f)
{
    char err[512] = "";
    if (gt_seed_case_verify(f->c, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void test_twin_matches_reference(void **state)
{
    skip_without_device();
    case_fixture *f = *state;
    gt_seed_case_poison_output(f->c);
    run_ok(f);
    verify_ok(f);
}

/* The check the other tests rely on can fail: an output nobody wrote is caught. */
static void test_unrun_output_fails_verify(void **state)
{
    skip_without_device();
    case_fixture *f = *state;
    gt_seed_case_poison_output(f->c);
    char err[512] = "";
    assert_int_equal(gt_seed_case_verify(f->c, err, sizeof err), -1);
    assert_non_null(strstr(err, "never written"));
}

/* The poison written between two runs reaches the device, and the second run's output the host:
 * the output must verify again, not keep the poison or a stale copy. */
static void test_rerun_after_poison_verifies(void **state)
{
    skip_without_device();
    case_fixture *f = *state;
    run_ok(f);
    verify_ok(f);
    gt_seed_case_poison_output(f->c);
    run_ok(f);
    verify_ok(f);
}

/* An input the host changes between runs is what the second run reads: a copy's reference is its
 * input as it is now, so a device still reading the old input fails verification. */
static void test_input_written_between_runs_reaches_device(void **state)
{
    skip_without_device();
    case_fixture *f = *state;
    run_ok(f);
    verify_ok(f);
    float *src = f->c->buffers[1];
    for (size_t i = 0; i < f->c->buffer_bytes[1] / sizeof *src; i++)
        src[i] = -src[i] - 2.0f; /* never equal to the old value: inputs lie in [-1, 1) */
    run_ok(f);
    verify_ok(f);
}

static void test_empty_roundtrip_times_every_rep(void **state)
{
    (void)state;
    skip_without_device();
    uint64_t ns[EMPTY_REPS];
    memset(ns, 0, sizeof ns);
    char err[512] = "";
    if (gt_ocl_empty_roundtrip(ocl, EMPTY_REPS, ns, err, sizeof err) != 0)
        fail_msg("%s", err);
    uint64_t lo = UINT64_MAX;
    for (unsigned i = 0; i < EMPTY_REPS; i++) {
        assert_true(ns[i] > 0);
        lo = ns[i] < lo ? ns[i] : lo;
    }
    print_message("empty launch round trip: fastest of %d is %.1f us\n", EMPTY_REPS, (double)lo / 1e3);
}

static void test_device_name_names_platform_and_device(void **state)
{
    (void)state;
    skip_without_device();
    const char *name = gt_ocl_device_name(ocl);
    const char *sep = strstr(name, " / ");
    assert_non_null(sep);
    assert_true(sep > name);
    assert_true(sep[3] != '\0');
}

/* ---- no-icd: run as its own process, so the ICD loader first starts with no vendors -------- */

static char empty_vendors[] = "/tmp/gt-no-icd-XXXXXX";

static int no_icd_setup(void **state)
{
    (void)state;
    if (!mkdtemp(empty_vendors)) {
        print_error("mkdtemp %s: %s\n", empty_vendors, strerror(errno));
        return -1;
    }
    /* ocl-icd (and the Khronos loader) read these on their first call, which is still to come. */
    setenv("OCL_ICD_VENDORS", empty_vendors, 1);
    unsetenv("OCL_ICD_FILENAMES");
    unsetenv("OPENCL_VENDOR_PATH");
    return 0;
}

static int no_icd_teardown(void **state)
{
    (void)state;
    rmdir(empty_vendors);
    return 0;
}

static void test_open_without_icd_names_the_platform(void **state)
{
    (void)state;
    gt_ocl *o = NULL;
    char err[512] = "";
    int rc = gt_ocl_open(&o, err, sizeof err);
    gt_ocl_close(o);
    print_message("gt_ocl_open with no vendors: %d, %s\n", rc, err);
    assert_int_equal(rc, -ENODEV);
    assert_null(o);
    assert_non_null(strstr(err, "no OpenCL platform"));
    assert_non_null(strstr(err, "clGetPlatformIDs"));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "no-icd") == 0) {
        const struct CMUnitTest no_icd[] = {cmocka_unit_test(test_open_without_icd_names_the_platform)};
        return cmocka_run_group_tests_name("ocl_no_icd", no_icd, no_icd_setup, no_icd_teardown);
    }

    /* One reference test per seed benchmark, so a benchmark added later is covered too. */
    static struct CMUnitTest tests[MAX_TESTS];
    static char names[MAX_BENCHES][64];
    size_t nbenches = 0, ntests = 0;
    const gt_seed_bench *benches = gt_seed_benches(&nbenches);
    if (nbenches > MAX_BENCHES) {
        fprintf(stderr, "test_peers_opencl: %zu seed benchmarks, room for %d\n", nbenches, MAX_BENCHES);
        return 1;
    }
    for (size_t i = 0; i < nbenches; i++) {
        snprintf(names[i], sizeof names[i], "test_twin_matches_reference(%s)", benches[i].name);
        tests[ntests] = (struct CMUnitTest)cmocka_unit_test_prestate_setup_teardown(
            test_twin_matches_reference, case_setup, case_teardown, (void *)benches[i].name);
        tests[ntests++].name = names[i];
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test_prestate_setup_teardown(test_unrun_output_fails_verify, case_setup, case_teardown,
                                                 "transpose"),
        cmocka_unit_test_prestate_setup_teardown(test_rerun_after_poison_verifies, case_setup, case_teardown,
                                                 "conv11"),
        cmocka_unit_test_prestate_setup_teardown(test_input_written_between_runs_reaches_device, case_setup,
                                                 case_teardown, "copy_rows"),
        cmocka_unit_test(test_empty_roundtrip_times_every_rep),
        cmocka_unit_test(test_device_name_names_platform_and_device),
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        tests[ntests++] = rest[i];
    return _cmocka_run_group_tests("ocl_twins", tests, ntests, group_setup, group_teardown);
}
