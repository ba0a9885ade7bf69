/* test_stats.c: the tuner's statistics (tuner/stats.c).
 * The summaries leave out NaNs and infinities and take the usual median. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "tuner/stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- summaries ------------------------------------------------------------------------ */

static void test_stats_leave_out_nans_and_infinities(void **state)
{
    (void)state;
    const double v[] = {5, 1, NAN, 3, INFINITY, 100, -INFINITY};
    gt_stats st;
    gt_stats_compute(v, ARRAY_LEN(v), &st);
    assert_int_equal(st.n, 4);
    assert_true(st.median == 4); /* the mean of 3 and 5 */
    assert_true(st.min == 1 && st.max == 100);
}

static void test_stats_median_of_an_odd_count_is_the_middle_value(void **state)
{
    (void)state;
    double v[] = {9, 2, 7, 1, 8};
    assert_true(gt_stats_median(v, ARRAY_LEN(v)) == 7);
    const double before[] = {9, 2, 7, 1, 8};
    assert_memory_equal(v, before, sizeof v);
}

static void test_stats_of_nothing_are_nan(void **state)
{
    (void)state;
    const double nans[] = {NAN, INFINITY, NAN};
    gt_stats st;
    gt_stats_compute(nans, 0, &st);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.median) && isnan(st.min) && isnan(st.max));
    gt_stats_compute(nans, ARRAY_LEN(nans), &st);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.median));
    assert_true(isnan(gt_stats_median(nans, ARRAY_LEN(nans))));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_leave_out_nans_and_infinities),
        cmocka_unit_test(test_stats_median_of_an_odd_count_is_the_middle_value),
        cmocka_unit_test(test_stats_of_nothing_are_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
