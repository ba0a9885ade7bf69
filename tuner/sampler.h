/* sampler.h: the analysis's side of the grid: stretches, the budget, and measured samples.
 *
 * A candidate's sample is a stretch of its own walk over the whole grid (stretch.h): its group
 * order over spans of its own width, from a position spread over the walk, leaving out
 * workgroups already run, handed out by its own assignment to every worker. The samples of one
 * round start at the same share of their walks, and successive rounds at shares spread over
 * the walk (a van der Corput sequence), so that samples cover the launch rather than its
 * start. Calibration runs the default schedule on growing stretches from the grid's start
 * until one takes a measurable time; it gives the default's time per workgroup and a batch's
 * fixed cost. A candidate's first sample (its look) is sized by the default's speed; the later
 * ones by its own, to take cfg->sample_ns. Every sample is real work, marked done in a bitmap
 * that the remainder later skips, and counted against the budget. */
#ifndef GT_SAMPLER_H
#define GT_SAMPLER_H

#include "tune.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a sample's cost is computed: counter num over counter den (IPC's cycles over
 * instructions), counter num per work-item, or wall time per work-item when num is -1. */
typedef struct gt_metric_plan {
    gt_metric metric;
    int num, den;
} gt_metric_plan;

/* A batch's cost per work-item under the plan; NaN when it ran no item or its denominator
 * counter read 0. */
double gt_metric_cost(const gt_metric_plan *m, const gt_exec_result *er, uint64_t items);

typedef struct gt_sampler gt_sampler;

/* Checks the launch is large enough, calibrates and sizes the samples. When the launch is too
 * small to pay for analysis, the sampler is not ready and r says why (source default).
 * r->winner becomes candidate 0 of r: the default schedule, or the wisdom's winner when the
 * analysis resumes (r->resumed); calibration runs it and every axis starts from it. Returns 0, or a negative errno with a
 * sentence (an executor failure, -ENOMEM); free the sampler in every case. */
int gt_sampler_create(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec,
                      const gt_metric_plan *metric, gt_tune_result *r, gt_sampler **out, char *err, size_t errlen);
void gt_sampler_destroy(gt_sampler *s);

bool gt_sampler_ready(const gt_sampler *s);
/* The bitmap of workgroups already run, or NULL when none was. */
const uint8_t *gt_sampler_done(const gt_sampler *s);
/* Samples of the default's size the budget still holds, beyond the reserve: its workgroups,
 * and its time at the asked-for sample length. */
size_t gt_sampler_slots_left(const gt_sampler *s);
/* The analysis's time limit: the budget's share of the launch's time, estimated from the
 * fastest candidate's workgroups so far (their median wall time), less the confirmation's
 * reserve unless confirm; INFINITY while no sample counted. Samples stop at it as at the end
 * of the budget's workgroups, so a slow default does not spend the launch's time. */
double gt_sampler_time_limit(const gt_sampler *s, bool confirm);
/* Keeps share (0..1) of the budget still left for the confirming samples: other samples stop
 * short of it, and confirming samples are sized to share it out over `samples` of them. */
void gt_sampler_reserve(gt_sampler *s, double share, unsigned samples);
/* While owed, samples run past the time limit, within the budget's workgroups (short of the
 * reserve), as confirming samples do: for a sample without which a decision would stand on
 * another order's measurements. */
void gt_sampler_owe(gt_sampler *s, bool owed);
/* The shapes candidates are generated for: the workgroup in items, the grid in workgroups,
 * and the workgroups of a sample of the default's size. */
const uint32_t *gt_sampler_item_shape(const gt_sampler *s);
const uint32_t *gt_sampler_grid(const gt_sampler *s);
uint64_t gt_sampler_sample_groups(const gt_sampler *s);
/* Samples of a candidate on the group axis, or one that moves the group order on another axis
 * (the column walk), take this many times the asked-for time (looks this many times the
 * default's size): group orders show their whole-launch behaviour only over longer stretches.
 * Samples of 250 us judged copy_cols' column order worse than linear in 2 of 3 analyses,
 * samples of 1 ms better in 3 of 3, as whole launches do
 * (bench/results/sample-length-group-orders-2026-11-26). Sized as the item axis's, the walk's
 * glances over transpose (96-146 workgroups) cost 4.5-8.1 ns per work-item where its looks
 * cost 1.5-2.2 (bench/results/walk-stretch-2026-11-29/). */
#define GT_GROUP_SAMPLE_STRETCH 4
/* The stretch of a candidate's samples: the above for a stretched one, 1 for the others. */
unsigned gt_sample_stretch(const gt_candidate *c);
/* The workgroups the next sized sample of candidate index would hold (its own speed; the
 * default's size before its look). */
uint64_t gt_sampler_groups_of(const gt_sampler *s, size_t index);
unsigned gt_sampler_workers(const gt_sampler *s);
/* A new round number: the samples of one round start at the same share of their walks. */
unsigned gt_sampler_next_round(gt_sampler *s);

/* A cost per work-item GT_TUNE_HOPELESS times the lowest median of any candidate still in the
 * race or more: a candidate that shows it cannot win. False while none was measured. */
bool gt_cost_hopeless(const gt_tune_result *r, double cost);

/* The index in r->candidates of the candidate with this schedule, added when new, as tried on
 * axis phase (a gt_axis), its samples stretched when asked. */
int gt_sampler_candidate(gt_sampler *s, const gt_space_entry *e, unsigned phase, bool stretched, size_t *index);
/* Runs one sample of candidate `index` in round `round`: its look when it has no used sample
 * yet, else one sized to cfg->sample_ns; a confirming sample when confirm is set. A sample the
 * probes mark disturbed is measured again on the next stretch, a few times at most and while
 * the budget lasts; the disturbed ones stay recorded, unused. The budget's time limit
 * (gt_sampler_time_limit) holds back every sample but a confirming one. Returns the samples run (1 and
 * the re-measures), -ENOSPC when the budget or the workgroups are used up (nothing ran), or
 * the executor's error. */
int gt_sampler_run(gt_sampler *s, size_t index, unsigned round, bool confirm, char *err, size_t errlen);

#endif
