/* contest.h: contenders timed side by side, as the gridtune command's bench subcommand and the
 * benchmark drivers (bench/) run them: each contender's timed runs and their summary (median,
 * min, max; medians from tuner/stats.h), the ranking that names the best and the worst, the
 * rotation that gives every contender early, middle and late places across the rounds, and
 * the oracle's set: the distinct schedules the oracle times. */
#ifndef GT_CONTEST_H
#define GT_CONTEST_H

#include "tuner/schedule.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
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

/* The schedules the oracle must time, each once, in the order they were first added. Schedules
 * are the same when their canonical texts are (tuner/schedule.h). Zero-initialise it; the owner
 * frees it with gt_contest_oracle_free. The drivers keep each schedule's times in arrays of
 * their own, indexed as here. */
typedef struct gt_contest_oracle_entry {
    gt_schedule schedule;
    char text[GT_SCHEDULE_TEXT_MAX]; /* canonical */
} gt_contest_oracle_entry;

typedef struct gt_contest_oracle {
    gt_contest_oracle_entry *entries;
    size_t n, cap;
} gt_contest_oracle;

/* Adds s unless it is there already. Returns 0, or -ENOMEM. */
int gt_contest_oracle_add(gt_contest_oracle *o, const gt_schedule *s);
/* Adds the schedule written as text (any form the parser takes) unless it is there already.
 * Returns 0, -EINVAL with the parser's sentence in err, or -ENOMEM. */
int gt_contest_oracle_add_text(gt_contest_oracle *o, const char *text, char *err, size_t errlen);
size_t gt_contest_oracle_count(const gt_contest_oracle *o);
/* Schedule i (below the count), which lives until the oracle is freed. */
const gt_contest_oracle_entry *gt_contest_oracle_get(const gt_contest_oracle *o, size_t i);
/* The index of s, or of the schedule written as text; -1 when it is not in the set (or the text
 * does not parse). */
long gt_contest_oracle_find(const gt_contest_oracle *o, const gt_schedule *s);
long gt_contest_oracle_find_text(const gt_contest_oracle *o, const char *text);
void gt_contest_oracle_free(gt_contest_oracle *o);

#endif
