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
/* The p-quantile (0 <= p <= 1) of the finite values of v[0..n) by nearest rank: the sorted
 * values' element round(p (k - 1)) of k. NaN when there are none or p is out of range. v is
 * left as it is. */
double gt_stats_quantile(const double *v, size_t n, double p);

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

/* The paired test is exact up to this many pairs: its counts, at most 2^n, fit in 64 bits. */
#define GT_SIGNED_RANK_EXACT_MAX 62

typedef struct gt_signed_rank_test {
    size_t n;      /* pairs used: both values finite and above 0, and not equal after the margin */
    double w;      /* the sum of the ranks of |d_i| over the pairs where a beat b (d_i < 0) */
    double p;      /* one-sided p-value of "a is not smaller than b"; 1 when no pair is used */
    bool exact;    /* p counted over every assignment of signs, not the normal approximation */
} gt_signed_rank_test;

/* One-sided Wilcoxon signed-rank test on pairs (a_i, b_i) measured together, e.g. two
 * schedules in the same launch: that a is smaller than b divided by (1 + margin), costs being
 * lower-is-better. It ranks the log ratios d_i = ln(a_i (1 + margin) / b_i), so that a launch
 * that ran slower as a whole weighs as much as a faster one, and pairs share what moved them
 * both. Pairs with d_i = 0 are left out, tied |d_i| get their mean rank, and p is the share of
 * the 2^n sign assignments whose w is at least as large: exact, ties included, up to
 * GT_SIGNED_RANK_EXACT_MAX pairs, the normal approximation beyond. Four pairs give at best
 * p = 1/16, five 1/32: below GT_RANK_TEST_ALPHA only from five pairs on. p is 1 when margin is
 * not a finite number above -1 and out of memory. */
void gt_signed_rank_test_less(const double *a, const double *b, size_t n, double margin, gt_signed_rank_test *out);

#endif
