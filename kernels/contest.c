/* contest.c: the timed runs of contenders, their summaries and ranking, and the rotation of
 * their order from round to round (contest.h). */
#include "contest.h"

#include "tuner/stats.h"

/* Times in ns are whole numbers far below 2^53, so their doubles are exact and the median of
 * two middle ones, cast back, is their integer mean. */
void gt_bench_times_summarise(gt_bench_times *t)
{
    double v[GT_BENCH_MAX_REPS];
    for (unsigned i = 0; i < t->n; i++)
        v[i] = (double)t->ns[i];
    gt_stats s;
    gt_stats_compute(v, t->n, &s);
    if (s.n == 0) {
        t->median_ns = t->min_ns = t->max_ns = 0;
        return;
    }
    t->min_ns = (uint64_t)s.min;
    t->max_ns = (uint64_t)s.max;
    t->median_ns = (uint64_t)s.median;
}

void gt_bench_times_rank(gt_bench_times *first, size_t stride, size_t n, size_t *best, size_t *worst)
{
    *best = *worst = 0;
    for (size_t i = 0; i < n; i++) {
        gt_bench_times *t = (gt_bench_times *)((char *)first + i * stride);
        gt_bench_times_summarise(t);
        if (t->median_ns < ((gt_bench_times *)((char *)first + *best * stride))->median_ns)
            *best = i;
        if (t->median_ns > ((gt_bench_times *)((char *)first + *worst * stride))->median_ns)
            *worst = i;
    }
}

void gt_bench_times_json(cJSON *obj, const gt_bench_times *t)
{
    cJSON_AddNumberToObject(obj, "median_ns", (double)t->median_ns);
    cJSON_AddNumberToObject(obj, "min_ns", (double)t->min_ns);
    cJSON_AddNumberToObject(obj, "max_ns", (double)t->max_ns);
    cJSON *runs = cJSON_AddArrayToObject(obj, "runs_ns");
    for (unsigned k = 0; k < t->n; k++)
        cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)t->ns[k]));
}

size_t gt_contest_turn(unsigned round, unsigned rounds, size_t count, size_t k)
{
    size_t shift = (size_t)(round - 1) * count / rounds;
    return (k + shift) % count;
}
