/* stats.c: median, min and max of a handful of samples: the one median in gridtune, which the
 * tuner's analysis and the benchmarks' summaries share. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gt_stats_compute(const double *v, size_t n, gt_stats *out)
{
    out->n = 0;
    out->median = out->min = out->max = NAN;
    double *kept = n ? malloc(n * sizeof *kept) : NULL;
    if (!kept)
        return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            kept[k++] = v[i];
    if (k > 0) {
        qsort(kept, k, sizeof *kept, compare_double);
        size_t m = k / 2;
        out->n = k;
        out->median = k % 2 ? kept[m] : (kept[m - 1] + kept[m]) / 2;
        out->min = kept[0];
        out->max = kept[k - 1];
    }
    free(kept);
}

double gt_stats_median(const double *v, size_t n)
{
    gt_stats s;
    gt_stats_compute(v, n, &s);
    return s.median;
}
