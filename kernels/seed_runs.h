/* seed_runs.h: what every program that times the seed benchmarks shares, the gridtune
 * command's bench subcommand and the benchmark drivers (bench/) alike: the limits, the list
 * of benchmarks chosen and the JSON file the results go to; the contest between contenders
 * (their timed runs, summaries and rotation) is contest.h. Functions that can fail print their
 * sentence with say() (say.h). */
#ifndef GT_SEED_RUNS_H
#define GT_SEED_RUNS_H

#include "contest.h"
#include "seedbench.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The most benchmarks chosen at once (the set has ten). */
#define GT_BENCH_MAX_BENCHES 16

/* Fills list with all the benchmarks, in table order. */
void gt_bench_add_all(const gt_seed_bench **list, unsigned *n);

static inline double gt_bench_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* Prints root to path and frees root. Returns 0, or -1 after printing why. */
int gt_bench_json_write(cJSON *root, const char *path);

#endif
