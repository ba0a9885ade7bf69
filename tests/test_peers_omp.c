/* test_peers_omp.c: the OpenMP twins of the seed kernels and the memcpy probe.
 * Every twin runs under each OpenMP schedule kind and a few chunks on small cases whose
 * output is poisoned first, and must pass the seed benchmarks' own verification; the rest
 * checks the argument errors, the schedule actually set, and that the probe copies exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bench/peers/omp_twins.h"
#include "kernels/seedbench.h"

#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Three workgroups' worth (48 rows or items): chunk 5 leaves a short last chunk, and chunk 64
 * hands the whole loop to one thread. */
#define TEST_GROUPS 3
#define TEST_THREADS 2

static const unsigned chunks[] = {1, 5, 64};

static gt_seed_case *case_make(const char *bench)
{
    const gt_seed_bench *b = gt_seed_bench_find(bench);
    assert_non_null(b);
    gt_seed_case *c = NULL;
    char err[256] = "";
    if (gt_seed_case_create(b, TEST_GROUPS * b->min_n, &c, err, sizeof err) != 0)
        fail_msg("%s: %s", bench, err);
    return c;
}

static void check_under_schedules(const char *bench)
{
    gt_seed_case *c = case_make(bench);
    for (unsigned k = 0; k < GT_OMP_KINDS; k++)
        for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
            char err[256] = "";
            gt_seed_case_poison_output(c);
            if (gt_omp_twin_run(c, (gt_omp_kind)k, chunks[i], TEST_THREADS, err, sizeof err) != 0)
                fail_msg("%s: gt_omp_twin_run failed: %s", bench, err);
            if (gt_seed_case_verify(c, err, sizeof err) != 0)
                fail_msg("schedule(%s, %u) on %d threads: %s", gt_omp_kind_name((gt_omp_kind)k), chunks[i],
                         TEST_THREADS, err);
        }
    gt_seed_case_destroy(c);
}

/* ---- twins against references -------------------------------------------------------------- */

static void test_integral_rows_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("integral_rows");
}

static void test_integral_cols_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("integral_cols");
}

static void test_conv11_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("conv11");
}

static void test_matmul_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("matmul");
}

static void test_copy_rows_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("copy_rows");
}

static void test_copy_cols_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("copy_cols");
}

static void test_transpose_twin_matches_reference(void **state)
{
    (void)state;
    check_under_schedules("transpose");
}

/* A benchmark added to the table without a twin fails here, not in the bench driver. */
static void test_every_seed_benchmark_has_a_twin(void **state)
{
    (void)state;
    size_t nbenches;
    const gt_seed_bench *b = gt_seed_benches(&nbenches);
    for (size_t i = 0; i < nbenches; i++) {
        gt_seed_case *c = case_make(b[i].name);
        char err[256] = "";
        int rc = gt_omp_twin_run(c, GT_OMP_STATIC, 1, 1, err, sizeof err);
        gt_seed_case_destroy(c);
        if (rc != 0)
            fail_msg("%s: %s", b[i].name, err);
    }
}

/* The check above can fail: an output no twin wrote does not pass. */
static void test_poisoned_output_without_a_run_fails_verification(void **state)
{
    (void)state;
    gt_seed_case *c = case_make("matmul");
    char err[256] = "";
    gt_seed_case_poison_output(c);
    assert_int_equal(gt_seed_case_verify(c, err, sizeof err), -1);
    assert_non_null(strstr(err, "never written"));
    gt_seed_case_destroy(c);
}

/* ---- arguments ----------------------------------------------------------------------------- */

static void test_zero_chunk_is_rejected_with_a_sentence(void **state)
{
    (void)state;
    gt_seed_case *c = case_make("transpose");
    char err[256] = "";
    assert_int_equal(gt_omp_twin_run(c, GT_OMP_DYNAMIC, 0, TEST_THREADS, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "chunk 0"));
    assert_non_null(strstr(err, "expected 1 to"));
    gt_seed_case_destroy(c);
}

static void test_zero_threads_is_rejected_with_a_sentence(void **state)
{
    (void)state;
    gt_seed_case *c = case_make("transpose");
    char err[256] = "";
    assert_int_equal(gt_omp_twin_run(c, GT_OMP_STATIC, 1, 0, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "thread count 0"));
    assert_non_null(strstr(err, "expected 1 to"));
    gt_seed_case_destroy(c);
}

/* A case no twin knows, built by hand: gt_seed_case_create accepts only the table's rows. */
static void test_kernel_without_a_twin_is_refused(void **state)
{
    (void)state;
    const gt_seed_bench fake = {"histogram", "histogram256", "not a seed benchmark", 64, 16};
    gt_seed_case c = {.bench = &fake, .n = 64};
    char err[256] = "";
    assert_int_equal(gt_omp_twin_run(&c, GT_OMP_STATIC, 1, TEST_THREADS, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "histogram256"));
    assert_non_null(strstr(err, "no OpenMP twin"));
}

/* Every kind gives the same output, so only the runtime's schedule shows which one ran. */
static void test_run_sets_the_requested_schedule(void **state)
{
    (void)state;
    static const omp_sched_t want[GT_OMP_KINDS] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided};
    gt_seed_case *c = case_make("copy_rows");
    for (unsigned k = 0; k < GT_OMP_KINDS; k++) {
        char err[256] = "";
        assert_int_equal(gt_omp_twin_run(c, (gt_omp_kind)k, 7 + k, TEST_THREADS, err, sizeof err), 0);
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        /* OpenMP 4.5 lets the runtime add the monotonic modifier bit */
        assert_int_equal((int)kind & ~(int)omp_sched_monotonic, (int)want[k]);
        assert_int_equal(chunk, 7 + k);
    }
    gt_seed_case_destroy(c);
}

static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(gt_omp_kind_name(GT_OMP_STATIC), "static");
    assert_string_equal(gt_omp_kind_name(GT_OMP_DYNAMIC), "dynamic");
    assert_string_equal(gt_omp_kind_name(GT_OMP_GUIDED), "guided");
    assert_string_equal(gt_omp_kind_name((gt_omp_kind)GT_OMP_KINDS), "unknown");
}

/* ---- the memcpy probe ---------------------------------------------------------------------- */

#define GUARD 64
#define GUARD_BYTE 0x5a

/* Copies bytes with threads threads into a buffer with guard bytes after it, and checks that
 * the copy is exact and stops at bytes. */
static void check_probe(size_t bytes, unsigned threads)
{
    unsigned char *src = malloc(bytes), *dst = malloc(bytes + GUARD);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)(i * 131 + i / 251);
    memset(dst, GUARD_BYTE, bytes + GUARD);
    gt_memcpy_probe(dst, src, bytes, threads);
    assert_memory_equal(dst, src, bytes);
    for (size_t i = bytes; i < bytes + GUARD; i++)
        assert_int_equal(dst[i], GUARD_BYTE);
    free(src);
    free(dst);
}

static void test_memcpy_probe_copies_a_size_the_threads_do_not_divide(void **state)
{
    (void)state;
    check_probe(1000003, 2); /* prime: no thread count divides it */
    check_probe(1000003, 3);
}

static void test_memcpy_probe_copies_fewer_bytes_than_threads(void **state)
{
    (void)state;
    check_probe(3, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integral_rows_twin_matches_reference),
        cmocka_unit_test(test_integral_cols_twin_matches_reference),
        cmocka_unit_test(test_conv11_twin_matches_reference),
        cmocka_unit_test(test_matmul_twin_matches_reference),
        cmocka_unit_test(test_copy_rows_twin_matches_reference),
        cmocka_unit_test(test_copy_cols_twin_matches_reference),
        cmocka_unit_test(test_transpose_twin_matches_reference),
        cmocka_unit_test(test_every_seed_benchmark_has_a_twin),
        cmocka_unit_test(test_poisoned_output_without_a_run_fails_verification),
        cmocka_unit_test(test_zero_chunk_is_rejected_with_a_sentence),
        cmocka_unit_test(test_zero_threads_is_rejected_with_a_sentence),
        cmocka_unit_test(test_kernel_without_a_twin_is_refused),
        cmocka_unit_test(test_run_sets_the_requested_schedule),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_memcpy_probe_copies_a_size_the_threads_do_not_divide),
        cmocka_unit_test(test_memcpy_probe_copies_fewer_bytes_than_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
