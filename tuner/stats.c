/* stats.c: median, min and max of a handful of samples: the one median in gridtune, which the
 * tuner's analysis and the benchmarks' summaries share; and the Mann-Whitney rank test by which
 * a challenger's samples are shown faster than the incumbent's, and its paired twin, the
 * Wilcoxon signed-rank test, for costs measured two at a time in the same launch. */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The finite values of v[0..n), sorted, in a new array of *k; NULL when there are none or
   out of memory. */
static double *sorted_finite(const double *v, size_t n, size_t *k)
{
    double *kept = n ? malloc(n * sizeof *kept) : NULL;
    *k = 0;
    for (size_t i = 0; kept && i < n; i++)
        if (isfinite(v[i]))
            kept[(*k)++] = v[i];
    if (*k == 0) {
        free(kept);
        return NULL;
    }
    qsort(kept, *k, sizeof *kept, compare_double);
    return kept;
}

void gt_stats_compute(const double *v, size_t n, gt_stats *out)
{
    size_t k;
    double *kept = sorted_finite(v, n, &k);
    out->n = 0;
    out->median = out->min = out->max = NAN;
    if (!kept)
        return;
    size_t m = k / 2;
    out->n = k;
    out->median = k % 2 ? kept[m] : (kept[m - 1] + kept[m]) / 2;
    out->min = kept[0];
    out->max = kept[k - 1];
    free(kept);
}

double gt_stats_median(const double *v, size_t n)
{
    gt_stats s;
    gt_stats_compute(v, n, &s);
    return s.median;
}

double gt_stats_quantile(const double *v, size_t n, double p)
{
    size_t k;
    double *kept = p >= 0 && p <= 1 ? sorted_finite(v, n, &k) : NULL;
    double q = kept ? kept[(size_t)(p * (double)(k - 1) + 0.5)] : NAN;
    free(kept);
    return q;
}

/* ---- the rank test ------------------------------------------------------------------- */

typedef struct ranked {
    double v;
    bool from_a;
} ranked;

static int compare_ranked(const void *a, const void *b)
{
    return compare_double(&((const ranked *)a)->v, &((const ranked *)b)->v);
}

/* P(U >= u) when all C(m + n, m) orders of m values of a and n of b are equally likely and
 * none is tied. count[k], the number of orders with U = k, follows the recurrence
 * f(m, n, k) = f(m - 1, n, k) + f(m, n - 1, k - m) (the largest value is an a, or a b above
 * all m a's), whose generating function is the Gaussian binomial
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). It is built one factor at a time in one row of
 * m*n + 1 counts: on the stack, with no allocation. Some intermediate coefficients are
 * negative, but unsigned arithmetic is exact modulo 2^64, and every final count, at most
 * C(m + n, m), fits below it (GT_RANK_TEST_EXACT_MAX). */
static double exact_upper_tail(size_t m, size_t n, size_t u)
{
    enum { MAX_U = (GT_RANK_TEST_EXACT_MAX / 2) * (GT_RANK_TEST_EXACT_MAX / 2) };
    uint64_t count[MAX_U + 1] = {1};
    size_t top = m * n;
    for (size_t i = 1; i <= m; i++) {
        for (size_t k = top; k >= n + i; k--) /* times (1 - q^(n+i)) */
            count[k] -= count[k - (n + i)];
        for (size_t k = i; k <= top; k++) /* divided by (1 - q^i) */
            count[k] += count[k - i];
    }
    uint64_t tail = 0, total = 0;
    for (size_t k = 0; k <= top; k++) {
        total += count[k];
        if (k >= u)
            tail += count[k];
    }
    return (double)tail / (double)total;
}

/* P(U >= u) by the normal approximation, taken as P(Z >= u - 1/2): the half step is the
 * continuity correction for a U that moves in steps. U's variance shrinks with the ties
 * (tie_sum is sum(t^3 - t) over groups of t equal values); with every value equal, U cannot
 * move off its mean and p is 1. */
static double normal_upper_tail(size_t na, size_t nb, double u, double tie_sum)
{
    double n = (double)(na + nb), mean = (double)na * (double)nb / 2;
    double var = (double)na * (double)nb / 12 * ((n + 1) - tie_sum / (n * (n - 1)));
    if (!(var > 0))
        return 1;
    double z = (u - mean - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2));
}

static size_t count_finite(const double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(v[i]) != 0;
    return k;
}

void gt_rank_test_less(const double *a, size_t na, const double *b, size_t nb, double margin, gt_rank_test *out)
{
    *out = (gt_rank_test){.na = count_finite(a, na), .nb = count_finite(b, nb), .u = 0, .p = 1, .exact = false};
    size_t n = out->na + out->nb;
    if (!out->na || !out->nb || !isfinite(margin) || !(margin > -1))
        return;
    ranked *all = malloc(n * sizeof *all);
    if (!all)
        return;
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
        if (isfinite(a[i]))
            all[k++] = (ranked){a[i], true};
    for (size_t j = 0; j < nb; j++)
        if (isfinite(b[j]))
            all[k++] = (ranked){b[j] / (1 + margin), false};
    qsort(all, n, sizeof *all, compare_ranked);

    /* Walk groups of equal values upwards: each a in a group is below every b above the
     * group, and half below each b in it. */
    double u = 0, tie_sum = 0;
    size_t b_upto = 0;
    bool tied = false;
    for (size_t i = 0, j; i < n; i = j) {
        size_t ga = 0, gb = 0;
        for (j = i; j < n && all[j].v == all[i].v; j++) {
            if (all[j].from_a)
                ga++;
            else
                gb++;
        }
        b_upto += gb;
        u += (double)ga * (double)(out->nb - b_upto) + 0.5 * (double)ga * (double)gb;
        double t = (double)(j - i);
        tie_sum += t * t * t - t;
        tied |= j - i > 1;
    }
    free(all);

    out->u = u;
    out->exact = !tied && n <= GT_RANK_TEST_EXACT_MAX;
    out->p = out->exact ? exact_upper_tail(out->na, out->nb, (size_t)u)
                        : normal_upper_tail(out->na, out->nb, u, tie_sum);
}

/* ---- the signed-rank test ------------------------------------------------------------- */

typedef struct signed_diff {
    double mag;
    bool a_won;
} signed_diff;

static int compare_signed_diff(const void *a, const void *b)
{
    return compare_double(&((const signed_diff *)a)->mag, &((const signed_diff *)b)->mag);
}

/* P(W2 >= w2) when each of n pairs adds its score to W2 with probability 1/2: the scores are
   twice the ranks (whole numbers with mean ranks of ties too), and count[k] is the number of
   the 2^n sign assignments whose sum is k, built one pair at a time. */
static double signed_exact_upper_tail(const unsigned *score, size_t n, unsigned w2)
{
    enum { MAX_SUM = GT_SIGNED_RANK_EXACT_MAX * (GT_SIGNED_RANK_EXACT_MAX + 1) };
    uint64_t count[MAX_SUM + 1] = {1};
    unsigned top = 0;
    for (size_t i = 0; i < n; i++) {
        top += score[i];
        for (unsigned k = top; k >= score[i]; k--)
            count[k] += count[k - score[i]];
    }
    uint64_t tail = 0;
    for (unsigned k = w2; k <= top; k++)
        tail += count[k];
    return (double)tail / ldexp(1, (int)n);
}

/* P(W >= w) by the normal approximation with the tie correction and a half-step continuity
   correction; tie_sum is sum(t^3 - t) over groups of t equal magnitudes. */
static double signed_normal_upper_tail(size_t n, double w, double tie_sum)
{
    double m = (double)n, mean = m * (m + 1) / 4;
    double var = m * (m + 1) * (2 * m + 1) / 24 - tie_sum / 48;
    if (!(var > 0))
        return 1;
    return 0.5 * erfc((w - mean - 0.5) / sqrt(var) / sqrt(2));
}

void gt_signed_rank_test_less(const double *a, const double *b, size_t n, double margin, gt_signed_rank_test *out)
{
    *out = (gt_signed_rank_test){.n = 0, .w = 0, .p = 1, .exact = false};
    if (!isfinite(margin) || !(margin > -1) || n == 0)
        return;
    signed_diff *d = malloc(n * sizeof *d);
    unsigned *score = malloc(n * sizeof *score);
    if (!d || !score) {
        free(d);
        free(score);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double v = log(a[i] * (1 + margin) / b[i]);
        if (isfinite(a[i]) && isfinite(b[i]) && a[i] > 0 && b[i] > 0 && isfinite(v) && v != 0)
            d[k++] = (signed_diff){fabs(v), v < 0};
    }
    qsort(d, k, sizeof *d, compare_signed_diff);
    /* Ranks 1..k by magnitude; a group of equal magnitudes at ranks i+1..j gets their mean,
       (i + 1 + j) / 2, whose double i + 1 + j is a whole number. */
    unsigned w2 = 0;
    double tie_sum = 0;
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i; j < k && d[j].mag == d[i].mag; j++)
            ;
        for (size_t t = i; t < j; t++) {
            score[t] = (unsigned)(i + 1 + j);
            w2 += d[t].a_won ? score[t] : 0;
        }
        double t = (double)(j - i);
        tie_sum += t * t * t - t;
    }
    free(d);
    out->n = k;
    out->w = w2 / 2.0;
    if (k > 0) {
        out->exact = k <= GT_SIGNED_RANK_EXACT_MAX;
        out->p = out->exact ? signed_exact_upper_tail(score, k, w2) : signed_normal_upper_tail(k, out->w, tie_sum);
    }
    free(score);
}
