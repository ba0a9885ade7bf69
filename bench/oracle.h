/* oracle.h: the oracle of the drivers that judge the tuner's picks (tune_bench.c,
 * probe_bench.c): the schedules a run's tuned launches picked or measured, each timed forced on
 * the whole launch in rounds whose order rotates (kernels/contest.h), and the best of them, the
 * one with the lowest median, whose cost is then timed again apart from the runs that chose it
 * (GT_BENCH_ORACLE_RETIMED). A driver says how one schedule runs; building the set, capping it,
 * the rounds and the ranking are here. Functions that fail print their sentence (say). */
#ifndef GT_BENCH_ORACLE_H
#define GT_BENCH_ORACLE_H

#include "kernels/contest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The lowest of many noisy medians is lower than its schedule's cost: with 40 schedules whose
   whole launches cost about the same, the best by its median of 3 rounds took 1-24% longer in
   the other 2 rounds of 5, over the same ratio of the median schedule (tune runs of 2026-11-28,
   bench/results/oracle-retimed-2026-11-28/bias.py). So the schedules with the lowest medians, this
   many, run again side by side for as many rounds, and their costs are the medians of those
   runs alone, which chose nothing; the best stays the one the first rounds chose. The rounds
   again run minutes later, in a phase of their own (matmul_tiled's three lowest took 1.24-1.29
   times as long again, reduce's 0.82-0.86 times), so every kept schedule (the default, the
   picks) runs in them too: every cost the drivers' figures use comes from the same rounds. */
#define GT_BENCH_ORACLE_RETIMED 3

/* What the oracle knows of one schedule besides the schedule itself (in the set, same index). */
typedef struct gt_bench_oracle_entry {
    bool keep;       /* a launch picked it, or the driver wants it timed: a cap never drops it */
    double analysis; /* the lowest analysis median (cost per work-item) seen for it; NaN: none */
    gt_bench_times times;   /* the rounds that rank the schedules */
    gt_bench_times retimed; /* the rounds after them, for the best few and the kept (n == 0: not run) */
} gt_bench_oracle_entry;

/* Zero-initialise it; the owner frees it with gt_bench_oracle_free. */
typedef struct gt_bench_oracle {
    gt_contest_oracle set;          /* the schedules, in the order they were first added */
    gt_bench_oracle_entry *entries; /* entries[i] is set's schedule i */
    size_t cap;                     /* room in entries */
    size_t dropped;                 /* schedules gt_bench_oracle_cap left out */
    size_t best, worst;             /* by times' median, once gt_bench_oracle_time has run */
} gt_bench_oracle;

/* Adds s unless it is there; either way keep is or-ed into its entry and analysis (NaN: not
 * measured) lowers its analysis median. 0, or -1 after saying why (out of memory). */
int gt_bench_oracle_add(gt_bench_oracle *o, const gt_schedule *s, bool keep, double analysis);
/* The same for a schedule written as text (any form the parser takes); what names the launch
 * it came from in the sentence when the text does not parse. */
int gt_bench_oracle_add_text(gt_bench_oracle *o, const char *text, bool keep, double analysis, const char *what);

size_t gt_bench_oracle_count(const gt_bench_oracle *o);
/* Schedule i's canonical text, living until the oracle is changed or freed. */
const char *gt_bench_oracle_text(const gt_bench_oracle *o, size_t i);
/* The index of s, or of the schedule written as text; -1 when it is not in the oracle. */
long gt_bench_oracle_find(const gt_bench_oracle *o, const gt_schedule *s);
long gt_bench_oracle_find_text(const gt_bench_oracle *o, const char *text);

/* Leaves at most max schedules: every kept one (even when they alone are more than max), then
 * those with the lowest analysis medians, unmeasured ones last and earlier additions first
 * among equals. The order of those left stays the order of addition. 0, or -1 after saying why
 * (out of memory; the oracle is then unchanged). */
int gt_bench_oracle_cap(gt_bench_oracle *o, size_t max);

/* Runs schedule i of the oracle ctx's driver holds, forced on the whole launch, and gives its
 * time in *ns. 0, or -1 after saying why. */
typedef int gt_bench_oracle_run(void *ctx, const gt_bench_oracle *o, size_t i, uint64_t *ns);

/* Times every schedule reps times (1 to GT_BENCH_MAX_REPS), once: in round r of reps each runs
 * once, starting a (r-1)/reps share of the way into the list (gt_contest_turn), so drift hits
 * all alike. Then summarises each schedule's times and sets best and worst. With more than one
 * schedule, the GT_BENCH_ORACLE_RETIMED with the lowest medians and every kept one then run reps
 * more rounds the same way, into their retimed. name says whose oracle it is in the progress
 * lines on stderr. 0, or -1 after saying why. */
int gt_bench_oracle_time(gt_bench_oracle *o, unsigned reps, const char *name, gt_bench_oracle_run *run, void *ctx);

/* Schedule i's cost: the median of its re-timed runs when it has them, else of its runs. */
uint64_t gt_bench_oracle_median_ns(const gt_bench_oracle *o, size_t i);

void gt_bench_oracle_free(gt_bench_oracle *o);

#endif
