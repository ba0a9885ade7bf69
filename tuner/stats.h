/* stats.h: robust summaries of a candidate's samples.
 * Analysis compares candidates by the median cost per work-item and uses the min and max as
 * the spread: a few samples on a noisy machine make means and deviations untrustworthy. */
#ifndef GT_STATS_H
#define GT_STATS_H

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

#endif
