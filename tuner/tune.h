/* tune.h: one launch through the tuner: plan, analyse, dispatch, record.
 *
 * Plan: a forced schedule, a wisdom hit, or a launch too small to pay for analysis run the
 * whole grid with one schedule. Otherwise analysis runs a minority of the workgroups (the
 * budget) as measured samples of candidate schedules, picks the winner, and the remainder
 * runs every workgroup not yet run with it, so each workgroup runs exactly once. The winner
 * goes into the wisdom. The tuner drives execution only through a gt_executor. */
#ifndef GT_TUNE_H
#define GT_TUNE_H

#include "executor.h"
#include "schedule.h"
#include "space.h"
#include "stats.h"

#include <gridtune/range.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_wisdom gt_wisdom;
typedef struct gt_wisdom_key gt_wisdom_key;

/* A candidate that costs more than this many times the best is not worth more of the launch:
   its look ends its race, and it is no refinement contender. */
#define GT_TUNE_HOPELESS 2.0

typedef enum gt_tune_mode {
    GT_TUNE_AUTO,   /* wisdom if it has the launch, else analysis */
    GT_TUNE_OFF,    /* the default schedule (or the forced one), no analysis */
    GT_TUNE_RETUNE, /* analysis even when the wisdom has the launch; the new winner replaces it */
} gt_tune_mode;

typedef enum gt_strategy {
    GT_STRATEGY_RACING, /* successive halving: every candidate sampled, the better half again, ... */
    GT_STRATEGY_NESTED, /* the ARM seed's loop: styles outside, the parameter series inside */
} gt_strategy;

/* What a candidate is judged by; every metric is a cost, lower is better. */
typedef enum gt_metric {
    GT_METRIC_TIME,   /* wall nanoseconds per work-item */
    GT_METRIC_IPC,    /* cycles per instruction (the inverse of IPC) */
    GT_METRIC_L1,     /* L1 data-cache misses per work-item */
    GT_METRIC_L2,     /* L2 data-cache misses per work-item */
    GT_METRIC_ENERGY, /* package energy per work-item, in the RAPL event's unit */
} gt_metric;

typedef struct gt_tune_config {
    gt_tune_mode mode;
    gt_strategy strategy;
    gt_metric metric;
    double budget;           /* the most workgroups analysis may run, as a fraction: (0, 0.5); and the
                                most of the launch's time, estimated at the best speed seen */
    double min_gain;         /* a challenger must beat the incumbent by this fraction */
    uint64_t sample_ns;      /* samples are sized to take about this long */
    unsigned min_samples;    /* samples a candidate needs before a winner can be clear */
    /* With probes, a sample one of whose workers waited for other tasks (runnable, off-CPU)
       for more than this share of the sample's wall time is disturbed: left out of the
       statistics and measured again. (0, 1]. */
    double disturbed_share;
    gt_space_config space;   /* the candidate space and its parameter series */
    bool refine;             /* repeated launches keep comparing the winner with contenders (refine.h) */
    unsigned refine_limit;   /* refining launches before an entry settles in any case: 1..1000 */
    bool forced;             /* run `schedule` on the whole launch, no analysis */
    gt_schedule schedule;
} gt_tune_config;

/* Every default in one place: racing, time, 8% budget, 3% gain, 250 us samples, 10% off-CPU
 * disturbs a sample. */
gt_tune_config gt_tune_config_default(void);
int gt_tune_mode_parse(const char *text, gt_tune_mode *out);
int gt_strategy_parse(const char *text, gt_strategy *out);
int gt_metric_parse(const char *text, gt_metric *out);
const char *gt_tune_mode_name(gt_tune_mode m);
const char *gt_strategy_name(gt_strategy s);
const char *gt_metric_name(gt_metric m);
const char *gt_metric_unit(gt_metric m);

/* Checks budget, gain, sample size and space; -EINVAL with a sentence naming the bad value. */
int gt_tune_config_check(const gt_tune_config *cfg, char *err, size_t errlen);

/* Which launch this is, for the wisdom key and the report. */
typedef struct gt_tune_launch {
    const char *kernel;      /* kernel name */
    const char *kernel_hash; /* hex hash of the module's code and the kernel name */
    const char *machine;     /* hex machine signature (gt_machine_signature) */
    gt_range range;
    bool workgroup;       /* a GT_KERNEL_GROUP kernel (regions and local memory), else one per item */
    uint32_t local_bytes; /* its local memory per workgroup */
} gt_tune_launch;

typedef enum gt_decision_source {
    GT_SOURCE_ANALYSIS,
    GT_SOURCE_WISDOM,
    GT_SOURCE_FORCED,
    GT_SOURCE_DEFAULT,
} gt_decision_source;
const char *gt_decision_source_name(gt_decision_source s);

typedef enum gt_sample_kind {
    GT_SAMPLE_CALIBRATION, /* the default on growing stretches, to size the others; not used */
    GT_SAMPLE_LOOK,        /* a candidate's first sample, sized by the default's speed */
    GT_SAMPLE_SIZED,       /* sized by the candidate's own speed to take cfg->sample_ns */
    GT_SAMPLE_CONFIRM,     /* the top two measured again, paired, before the decision */
    GT_SAMPLE_GLANCE,      /* a look that ended after its first quarter, which cost GT_TUNE_HOPELESS
                              times the best median so far (a stretched look's: after its first
                              or second, see sampler.c) */
    GT_SAMPLE_WARM_UP,     /* a stretched look's first quarter, run alone: not counted (sampler.c) */
} gt_sample_kind;
const char *gt_sample_kind_name(gt_sample_kind k);

typedef struct gt_sample {
    gt_sample_kind kind;
    uint64_t start;     /* the position in the candidate's walk the stretch started at (stretch.h) */
    uint32_t runs;      /* the runs (calls of the workgroup function) it was made of */
    unsigned round;   /* the analysis round it ran in; a round's samples start at the same share of their walks */
    uint64_t groups;
    uint64_t items;
    uint64_t wall_ns;
    double cost;      /* the metric per work-item for this sample */
    bool used;        /* counted in the statistics; calibration and disturbed samples are not */
    bool disturbed;   /* probes saw a worker wait for more than cfg->disturbed_share of it */
    bool probed;      /* probe holds the probes' figures for this sample */
    gt_probe_figures probe;   /* summed over the workers */
    uint64_t worst_offcpu_ns; /* the longest any one worker waited for other tasks */
    int64_t counters[GT_COUNTERS_MAX];
} gt_sample;

typedef struct gt_candidate {
    gt_schedule schedule;
    char style[GT_STYLE_NAME_MAX]; /* the axis and style it varies, e.g. "item=tiled" */
    unsigned phase;                /* index of the space axis it was tried in */
    bool stretched;                /* moves the group order, or a group-axis check: longer samples (sampler.h) */
    size_t nsamples;
    gt_sample *samples;
    /* Over the used samples (NaN when there are none). */
    double median, min, max;
    bool eliminated; /* dropped by the race before analysis ended */
} gt_candidate;

/* The last step of analysis: the incumbent and its best challenger measured again, paired on
 * fresh stretches, and compared by the rank test with the minimum gain as the margin. */
typedef struct gt_confirmation {
    bool ran;
    size_t incumbent, challenger; /* indices into the result's candidates */
    gt_rank_test test;            /* the challenger's confirming costs against the incumbent's */
    bool replaced;                /* the test showed the gain: the challenger won */
    bool out_of_reach;            /* stopped before its last pair: no costs still to come could show the gain */
} gt_confirmation;

/* Contenders that run a share each in one refining launch: two give each launch two pairs,
   so that an entry rules out its contenders in half the launches, at the same cost per pair. */
#define GT_REFINE_PER_LAUNCH 2

/* A contender's share of a refining launch. */
typedef struct gt_refine_share {
    gt_schedule contender;
    double cost;    /* its cost per work-item on its share */
    bool cut_short; /* its first piece was so slow that the winner ran the rest of the share */
    double p;       /* the rank test that decided its pair, NaN if none */
    int event;      /* gt_refine_event of its pair; none when another contender took over first */
    unsigned pairs; /* its pairs with the winner, this share's included, when the event was decided */
} gt_refine_share;

/* What a launch did for the refinement of its wisdom entry (refine.h). */
typedef struct gt_refine_outcome {
    bool ran;              /* the launch was a refining or a settled one with refinement on */
    int state;             /* the entry's gt_refine_state after the launch */
    bool settled_now;      /* this launch settled the entry */
    unsigned launch;       /* refining launches so far, this one included */
    unsigned nshares;      /* contenders that ran a share of this launch */
    gt_refine_share shares[GT_REFINE_PER_LAUNCH];
    double incumbent_cost; /* the winner's cost per work-item in this launch */
    int event;             /* gt_refine_event: the settled launch's drift rule; in a refining
                              launch the weightiest of the shares' (replaced, dropped, compared) */
} gt_refine_outcome;

typedef struct gt_tune_result {
    gt_decision_source source;
    char reason[512];   /* why this schedule: one sentence */
    gt_schedule winner;
    gt_metric metric;   /* the metric actually used (time when the asked one was not counted) */
    char metric_note[160]; /* why the asked metric was replaced, or "" */
    char wisdom_note[160]; /* why the decision could not be remembered, or "" */
    gt_candidate *candidates;
    size_t ncandidates;
    uint64_t groups_total;
    uint64_t groups_analysis;
    uint64_t groups_remainder;
    uint64_t items_per_group;
    gt_confirmation confirmation;
    /* An analysis that resumed from the wisdom's winner (candidate 0 is then that winner, not
       the default), over the axes an earlier analysis of the entry left unexplored. */
    bool resumed;
    /* The axes (bit 1 << gt_axis) this analysis left unexplored: a pass over the axis sampled
       no candidate but the incumbent, the time limit or the budget having ended first. */
    unsigned unexplored;
    gt_refine_outcome refine;
    bool wisdom_changed; /* the launch changed its entry: a decision, a refining launch's pair, a settled
                            launch's cost or drift count; worth saving */
    unsigned disturbed_samples; /* analysis samples the probes marked disturbed */
    unsigned remeasured;        /* of those, how many were measured again on fresh workgroups */
    bool steady_contention;     /* so many were disturbed that the disturbed ones count too */
    uint64_t analysis_ns;
    /* The analysis's time limit when it ended: the budget's share of the launch's time at the
       best speed measured (NaN without analysis, INFINITY when no sample counted) */
    double analysis_limit_ns;
    uint64_t remainder_ns;
    uint64_t total_ns;
    int64_t remainder_counters[GT_COUNTERS_MAX];
    /* With probes (remainder_probed), the user-mode page faults the workers took in each
       phase: the analysis's every batch (calibration and disturbed samples included) and the
       remainder. A buffer's first launch takes its first-touch faults in them. */
    bool remainder_probed;
    uint64_t analysis_page_faults;
    uint64_t remainder_page_faults;
    /* default's cost / winner's cost - 1, from the analysis samples or the wisdom entry;
       NaN when neither measured it. */
    double estimated_gain;
} gt_tune_result;

/* The configuration gt_tune_run follows with exec: cfg without what exec cannot run (the span
 * axis, for a kernel that refuses spans). A report of the launch shows this one. */
gt_tune_config gt_tune_config_for(const gt_tune_config *cfg, const gt_executor *exec);

/* The wisdom's key for launch run by workers workers, as gt_tune_run looks it up. */
void gt_tune_wisdom_key(const gt_tune_launch *launch, unsigned workers, gt_wisdom_key *key);

/* Runs the launch through exec. wisdom may be NULL (nothing remembered). On success the
 * result is filled; the caller frees it with gt_tune_result_free, also after a failure.
 * Returns 0, or a negative errno with a sentence in err: a failed executor batch stops the
 * launch, and the workgroups already run are accounted in the result. */
int gt_tune_run(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec,
                gt_wisdom *wisdom, gt_tune_result *result, char *err, size_t errlen);
void gt_tune_result_free(gt_tune_result *result);
/* The samples that count towards a candidate's median (calibration's and disturbed ones do
 * not), and over all of a result's candidates. */
size_t gt_candidate_samples_used(const gt_candidate *c);
size_t gt_tune_samples_used(const gt_tune_result *r);

#endif
