/* contest.h: contenders timed side by side, as the gridtune command's bench subcommand and the
 * benchmark drivers (bench/) run them: each contender's timed runs and their summary (median,
 * min, max; medians from tuner/stats.h), the ranking that names the best and the worst, and
 * the rotation that gives every contender early, middle and late places across the rounds. */
#ifndef GT_CONTEST_H
#define GT_CONTEST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The most timed runs per contender a driver keeps. */
#define GT_BENCH_MAX_REPS 100

/* The timed runs of one contender and their summary. */
typedef struct gt_bench_times {
    uint64_t ns[GT_BENCH_MAX_REPS];
    unsigned n;
    uint64_t median_ns, min_ns, max_ns;
} gt_bench_times;

/* Sets median (the mean of the middle two for an even count), min and max from ns[0..n). */
void gt_bench_times_summarise(gt_bench_times *t);
/* Summarises the times of n contenders, which lie stride bytes apart from first (the times
 * member of the first of an array of structs), and gives the indices of the lowest and the
 * highest median (the first of equals). */
void gt_bench_times_rank(gt_bench_times *first, size_t stride, size_t n, size_t *best, size_t *worst);
/* Adds median_ns, min_ns, max_ns and runs_ns to obj. */
void gt_bench_times_json(cJSON *obj, const gt_bench_times *t);

/* The contender that runs k-th (0 to count - 1) in round `round` (1 to rounds) of count
 * contenders. Round r starts a (r-1)/rounds share of the way into the list, so every contender
 * takes early, middle and late places across the rounds, and drift hits all alike. */
size_t gt_contest_turn(unsigned round, unsigned rounds, size_t count, size_t k);

#endif
