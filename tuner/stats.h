/* stats.h: robust summaries of a candidate's samples, and the rank test that compares two.
 * Analysis compares candidates by the median cost per work-item and uses the min and max as
 * the spread: a few samples on a noisy machine make means and deviations untrustworthy. For the
 * same reason two candidates are compared by ranks (Mann-Whitney), never by means. */
#ifndef GT_STATS_H
#define GT_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gt_stats {
    size_t n;
    double median, min, max; /* NaN when n is 0 */
} gt_stats;

/* Summarises the finite values of v[0..n); NaNs and infinities are left out. Out of
 * memory, the summary is empty (n 0, NaNs). */
void gt_stats_compute(const double *v, size_t n, gt_stats *out);
/* The median of the finite values of v[0..n) (the mean of the middle two for an even count);
 * NaN when there are none. v is left as it is. */
double gt_stats_median(const double *v, size_t n);

/* The significance level at which a rank test's p-value shows a difference: p < 0.05. */
#define GT_RANK_TEST_ALPHA 0.05
/* The exact null distribution is used up to this many values on both sides together: its
 * counts, at most C(64, 32), fit in 64 bits. Beyond it the normal approximation is close. */
#define GT_RANK_TEST_EXACT_MAX 64

typedef struct gt_rank_test {
    size_t na, nb; /* finite values used from each side */
    double u;      /* Mann-Whitney U of a: pairs (a_i, b_j) with a_i < b_j, ties count 1/2 */
    double p;      /* one-sided p-value of "a is not smaller than b"; 1 when a side is empty */
    bool exact;    /* p from the exact null distribution, not the normal approximation */
} gt_rank_test;

/* One-sided Mann-Whitney test that the values a[0..na) are stochastically smaller than
 * b[0..nb) divided by (1 + margin): that a beats b by at least `margin` as a fraction, costs
 * being lower-is-better. NaNs and infinities are left out. A small p (below
 * GT_RANK_TEST_ALPHA) shows it; a large one shows nothing either way.
 *
 * p is exact (counted over all arrangements of the ranks) when no two values are equal and
 * na + nb <= GT_RANK_TEST_EXACT_MAX. Otherwise it is the normal approximation with the tie
 * correction of the variance and a continuity correction of 1/2. p is 1 (nothing shown) when
 * a side has no finite value, when margin is not a finite number above -1, and out of memory. */
void gt_rank_test_less(const double *a, size_t na, const double *b, size_t nb, double margin, gt_rank_test *out);

#endif
