/* seed_runs.h: what every program that times the seed benchmarks shares, the gridtune
 * command's bench subcommand and the benchmark drivers (bench/) alike: the limits, the list
 * of benchmarks chosen, the timed runs of a contender and their summary, and the JSON file the
 * results go to. Functions that can fail print their sentence on stderr, prefixed with prog. */
#ifndef GT_SEED_RUNS_H
#define GT_SEED_RUNS_H

#include "seedbench.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The most timed runs per contender a driver keeps. */
#define GT_BENCH_MAX_REPS 100

/* The most benchmarks chosen at once (the set has seven). */
#define GT_BENCH_MAX_BENCHES 16

/* Fills list with all the benchmarks, in table order. */
void gt_bench_add_all(const gt_seed_bench **list, unsigned *n);

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

static inline double gt_bench_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* Prints root to path and frees root. Returns 0, or -1 after printing why. */
int gt_bench_json_write(const char *prog, cJSON *root, const char *path);

#endif
