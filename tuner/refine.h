/* refine.h: launches that keep learning.
 *
 * Analysis decides from a minority of one launch. A program that launches the same kernel
 * again (time steps, frames, iterations) gives more: every launch is a measurement of whole
 * stretches of the grid. While an entry is refining, a launch with its key runs one contender
 * on a share of the launch (a stretch of its own walk, GT_REFINE_SHARE of the workgroups) and
 * the winner on the rest (the rest first), and records both costs per work-item as a pair.
 *
 * Which contenders: a refining launch runs GT_REFINE_PER_LAUNCH (tune.h) on a share each. Those
 * without a pair go first; after that the launches go to the leaders, the contenders whose
 * costs over the winner's are lowest (median of their pairs), so that they gather the pairs a
 * test needs within a few launches instead of all of them a few each. A contender no faster
 * than the winner on its first share leaves at once (a test would need five more launches to
 * show a gain it did not show once), and one whose first share the winner's costs
 * GT_REFINE_HOPELESS times takes its place at once. A first
 * share runs a 32nd, 16th, 8th or 4th of itself first (the smallest that takes the winner
 * GT_REFINE_PROBE_MIN_NS at least): a contender that costs
 * GT_REFINE_HOPELESS times the winner's cost there leaves the rest of the share to the winner,
 * and the contender (no faster, with that piece's cost) leaves. One whose
 * median from GT_REFINE_SIGHT_PAIRS pairs on is not below the winner's by the minimum gain leaves
 * too: the test could hardly show a gain its pairs do not show. Otherwise,
 * once a contender has GT_REFINE_MIN_PAIRS pairs, the paired signed-rank test (stats.h) on
 * them decides: pairs share their launch, so a launch that ran slower as a whole (here
 * launches of one schedule moved by up to 30%) weighs on both sides alike. A contender faster
 * than the winner by the minimum gain becomes the winner (every pair cleared; the old winner,
 * which the test ruled out, does not return, while one replaced on a single share far ahead
 * stays a contender); one shown slower leaves.
 *
 * The contenders are the winner with its item order, its group order and its assignment, in
 * turn, replaced by the best other setting the analysis measured (on the order axes, the best
 * of another kind of order: of each of GT_REFINE_ITEM_KINDS other kinds for the item order):
 * the choices samples judge least well, each measured under the other axes' earlier settings;
 * and, when the kernel takes
 * spans, the winner with the widest span, a row of the grid (wider than a sample can judge: it
 * holds a few spans per worker; under another group order than the linear one, a 16th of a row,
 * gt_space_row_span), within GT_REFINE_SHARE_SPANS spans per share, and span 1 when
 * the winner's lies between (samples of the column order misorder spans the other way); a
 * span contender keeps the winner's grab (a chunk below the winner's span grows to it). A
 * contender that took over by moving the span or the chunk along its series brings the next
 * step the same way, and the other contenders then make their moves from the new winner.
 *
 * Analysis decides on a minority of the first launch, under a time limit; when that ends an
 * axis before each of its candidates had a sample (a slow default spends it on the first
 * axes), the entry remembers the unexplored axes, and the next launch's analysis resumes from
 * the winner over them (GT_REFINE_RESUMES times at most). It samples at the winner's speed,
 * so the same limit holds more samples. Its winner and contenders replace the entry's.
 *
 * The entry settles when no contender is left or after the configured limit of refining
 * launches; a settled entry runs the winner alone. When a settled winner's whole-launch cost
 * drifts above its first settled launch's by GT_REFINE_DRIFT for GT_REFINE_DRIFT_LAUNCHES
 * launches in a row, the entry reopens: refining again with its contenders, or analysis again
 * when none is left. A refining launch costs a share of each contender's difference from the
 * winner, and contenders slower than the winner leave after one share; nothing once settled.
 * This file keeps the rules; tune.c runs the launches. */
#ifndef GT_REFINE_H
#define GT_REFINE_H

#include "tune.h"
#include "wisdom.h"

#include <stddef.h>

/* A contender runs one workgroup in this many of a refining launch. */
#define GT_REFINE_SHARE 4
/* Pairs a contender needs before the signed-rank test may decide: five is the fewest whose
   one-sided p can fall below 0.05 (1/32). */
#define GT_REFINE_MIN_PAIRS 5
/* From this many pairs on, a contender whose median cost is not below the winner's by the
   minimum gain leaves: a test could hardly show a gain its pairs do not show. */
#define GT_REFINE_SIGHT_PAIRS 3
/* Item orders of other kinds than the winner's that become contenders, the best of each
   kind, the second only within GT_REFINE_HOPELESS of the winner's cost: under some group
   orders the samples rank linear, column and tiled items unlike the launches
   (bench/results/other-kind-2026-11-27/). */
#define GT_REFINE_ITEM_KINDS 2
/* The widest span refinement tries leaves a contender's share at least this many spans. */
#define GT_REFINE_SHARE_SPANS 16
/* A contender whose first share the winner's costs this many times takes its place at once;
   one whose first piece of a share costs this many times the winner's leaves at once. */
#define GT_REFINE_HOPELESS 1.5
/* A contender's first share runs a piece of itself first (tune.c), which shows a hopeless
   contender before it costs the launch a whole share: the smallest of a
   GT_REFINE_PROBE_PARTS_MAX-th, twice that, ... up to a GT_REFINE_PROBE_PARTS-th of the share
   that holds GT_REFINE_PROBE_MIN_NS of the winner's time. */
#define GT_REFINE_PROBE_PARTS 4
#define GT_REFINE_PROBE_PARTS_MAX 32
/* ... when the winner would run that piece in this long at least: a batch costs 20-50 us to
   start here whatever its size, which a shorter piece would count against the contender (at
   0.5 ms, 4-10%, far below GT_REFINE_HOPELESS; at 1 ms, copy_cols' and transpose's launches
   with a cut piece took 1.35 and 1.32 times their later launches, at 0.5 ms 1.26 and 1.10,
   bench/results/probe-half-2026-11-27/). */
#define GT_REFINE_PROBE_MIN_NS 5e5
/* A settled winner drifted when a launch costs this much more than its first settled launch:
   launches of the same schedule moved by up to 30% here (copy_cols, 45 to 59 ms). */
#define GT_REFINE_DRIFT 0.5
#define GT_REFINE_DRIFT_LAUNCHES 3

typedef enum gt_refine_event {
    GT_REFINE_EVENT_NONE,     /* a settled launch within its cost */
    GT_REFINE_EVENT_COMPARED, /* a pair was recorded, nothing decided yet */
    GT_REFINE_EVENT_REPLACED, /* the contender beat the winner and took its place */
    GT_REFINE_EVENT_DROPPED,  /* the winner beat the contender, which left */
    GT_REFINE_EVENT_DRIFTED,  /* a settled launch cost more than its settled cost by the drift */
    GT_REFINE_EVENT_REOPENED, /* drifted for long enough: refining again */
} gt_refine_event;
const char *gt_refine_event_name(gt_refine_event e);

/* The contenders and the state of a freshly analysed entry, whose launch had this grid of
 * workgroups: refining when refinement is on and there is a contender or an analysis to
 * resume, else settled. before is the entry when r is a resumed analysis (NULL otherwise; its
 * refine is not rf): its resumes count on, and its contenders stay, with their pairs, when the
 * winner did not change, and follow the new winner, without them, when it did. */
void gt_refine_start(const gt_tune_config *cfg, const gt_tune_result *r, const uint32_t grid[3],
                     const gt_wisdom_entry *before, gt_wisdom_refine *rf);
/* The entry's analysis left axes unexplored, fewer than GT_REFINE_RESUMES resumes ago. */
bool gt_refine_can_resume(const gt_wisdom_refine *rf);
/* This launch resumes the entry's analysis over its unexplored axes, starting from the winner:
 * refinement is on, the entry is not settled and can resume. */
bool gt_refine_resumes(const gt_tune_config *cfg, const gt_wisdom_entry *e);
/* The launch runs a contender on a share: refinement is on and the entry has one to run. */
bool gt_refine_active(const gt_tune_config *cfg, const gt_wisdom_entry *e);
/* The entry reopened with no contender left: the launch analyses again. */
bool gt_refine_needs_analysis(const gt_tune_config *cfg, const gt_wisdom_entry *e);
/* The contenders this refining launch runs on shares, at most GT_REFINE_PER_LAUNCH (tune.h),
 * as indices into picked: those without a pair first, in their order, then the leaders (the
 * lowest median cost over the winner's in their pairs). Returns how many. */
size_t gt_refine_pick(const gt_wisdom_refine *rf, size_t picked[GT_REFINE_PER_LAUNCH]);
/* Records a refining launch's pair for contender c and applies the rules; *p is the deciding
 * test's p-value (NaN when none ran). grid is the launch's in workgroups, which bounds the
 * next step of a series. The entry's winner and contenders may change: c may leave (those
 * after it move down one), or take the winner's place (every pair is cleared then). */
gt_refine_event gt_refine_record(const gt_tune_config *cfg, gt_wisdom_entry *e, const uint32_t grid[3], size_t c,
                                 double contender_cost, double incumbent_cost, double *p);
/* Ends a refining launch: counts it, and settles the entry when no contender is left or the
 * refine limit is reached; returns whether it settled now. */
bool gt_refine_end_launch(const gt_tune_config *cfg, gt_wisdom_entry *e);
/* A settled launch's whole-launch cost per work-item: the drift rule. */
gt_refine_event gt_refine_check_drift(const gt_tune_config *cfg, gt_wisdom_entry *e, double cost);

#endif
