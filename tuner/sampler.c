/* sampler.c: calibration, stretches and their sizes, the budget, and recording samples. */
#include "sampler.h"

#include "grid.h"
#include "stats.h"
#include "stretch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calibration runs at most this many stretches (the warm-up included), each at most this factor
   larger than the last. */
#define CALIBRATION_STEPS 6
#define CALIBRATION_GROWTH 8
/* Once its slope is believed, calibration's next stretch is sized to take this share of a
   sample (above the half that ends calibration, with room for a slope 1.5x too low), and at
   least CALIBRATION_SPREAD times the last one: the slope between two stretches of near sizes
   is noise (transpose's 256 and 429 workgroups gave 0.21 us for 0.35, a fixed part of 59 us,
   and samples of 0.6-3.6 ms, and the analysis kept the default in 3 of 24 cold launches). */
#define CALIBRATION_AIM 0.75
#define CALIBRATION_SPREAD 4
/* Calibration may use at most this fraction (one over it) of the budget. */
#define CALIBRATION_SHARE 8
/* Calibration's slope (the cost of one more workgroup) counts only above this share of the
   average cost of a workgroup in the same stretch. */
#define SLOPE_TRUSTED 0.1
/* A batch's fixed cost may be at most this share of a sample. */
#define FIXED_SHARE 0.1
/* The budget is cut into at most this many samples, whatever calibration measured: one
   preempted calibration stretch must not shrink the samples into noise. */
#define MAX_SLOTS 200
/* Nor may it stretch a sample beyond this multiple of the asked-for sample time. */
#define MAX_SAMPLE_STRETCH 8
/* A launch must hold this many samples in its budget to be analysed at all. */
#define MIN_SLOTS 4
/* A candidate's own speed may size its samples at most this many times smaller or larger than
   the default's: one odd look must not make a sample of a few workgroups or of the budget. */
#define SIZE_RANGE 16
/* A look runs its first 1/GLANCE_PARTS alone, which ends the look when it shows the candidate
   hopeless. */
#define GLANCE_PARTS 4
/* A disturbed sample is measured again on fresh workgroups at most this many times in a row,
   while the budget lasts; a machine that disturbs every sample must not eat the budget. */
#define REMEASURE_MAX 3
/* Once more than this share of at least STEADY_MIN_SAMPLES samples was disturbed, the
   contention is the machine's steady state, which the remainder will run under too: from then
   on every sample counts, the disturbed ones included, and none is measured again. Measured
   here: a process spinning on a worker's CPU disturbs about 15% of the samples, one spinning
   2 ms in every 20 ms about 2%, a quiet machine about 1%. */
#define STEADY_SHARE 0.10
#define STEADY_MIN_SAMPLES 20

struct gt_sampler {
    const gt_tune_config *cfg;
    const gt_executor *exec;
    gt_metric_plan metric;
    gt_tune_result *r;
    uint32_t grid[3];
    uint32_t item_shape[3];
    uint64_t budget_groups; /* the most workgroups analysis may run */
    uint8_t *done;
    bool any_done;
    bool ready;
    bool owed;              /* samples run past the time limit (gt_sampler_owe) */
    gt_walks *walks;
    double sample_ns;       /* what a sample should take: cfg->sample_ns, or more for a costly batch */
    double fixed_ns;        /* a batch's cost beyond its workgroups, from calibration */
    uint64_t sample_groups; /* a sample of the default's size */
    uint64_t reserved;      /* workgroups of the budget kept for the confirming samples */
    double reserve_share;   /* the share of the budget (workgroups and time) kept for them */
    uint64_t disturbed_ns;  /* the wall time of disturbed samples: other tasks', not the analysis's */
    uint64_t confirm_groups; /* a confirming sample's workgroups */
    unsigned round;
    size_t probed_samples;      /* samples that came with probe figures */
};

static const char *const kind_names[] = {"calibration", "look", "sized", "confirm", "glance", "warm-up"};

/* Whether a sample of this kind may count for its candidate: calibration only sizes the
   samples, and a warm-up pays what a whole launch pays once. */
static bool kind_counts(gt_sample_kind kind)
{
    return kind != GT_SAMPLE_CALIBRATION && kind != GT_SAMPLE_WARM_UP;
}

const char *gt_sample_kind_name(gt_sample_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "unknown";
}

double gt_metric_cost(const gt_metric_plan *m, const gt_exec_result *er, uint64_t items)
{
    if (m->num < 0)
        return items ? (double)er->wall_ns / (double)items : NAN;
    double den = m->den >= 0 ? (double)er->counters[m->den] : (double)items;
    return den > 0 ? (double)er->counters[m->num] / den : NAN;
}

static void summarise(gt_candidate *c)
{
    double *costs = malloc((c->nsamples ? c->nsamples : 1) * sizeof *costs);
    if (!costs)
        return;
    for (size_t i = 0; i < c->nsamples; i++)
        costs[i] = c->samples[i].used ? c->samples[i].cost : NAN;
    gt_stats st;
    gt_stats_compute(costs, c->nsamples, &st);
    free(costs);
    c->median = st.median;
    c->min = st.min;
    c->max = st.max;
}

/* A worker waited for other tasks (runnable, off-CPU) for more than the allowed share of the
   batch's wall time: the sample measured the machine's other tenants, not the candidate. One
   worker is enough, whatever the worker count, since the batch may wait for its share. */
static bool is_disturbed(const gt_sampler *s, const gt_exec_result *er)
{
    return er->probed && (double)er->worst_offcpu_ns > s->cfg->disturbed_share * (double)er->wall_ns;
}

/* Contention turned out steady: the disturbed samples kept out so far count after all, their
   costs and their time. Left out of the time, they let one cold launch of copy_rows on a
   machine that stalled every sample for milliseconds analyse for 295 ms, 16 times its limit,
   while its remainder ran in 158. */
static void check_steady_contention(gt_sampler *s)
{
    gt_tune_result *r = s->r;
    if (r->steady_contention || s->probed_samples < STEADY_MIN_SAMPLES ||
        (double)r->disturbed_samples <= STEADY_SHARE * (double)s->probed_samples)
        return;
    r->steady_contention = true;
    s->disturbed_ns = 0; /* their time counts too, as the remainder's will */
    for (size_t i = 0; i < r->ncandidates; i++) {
        gt_candidate *c = &r->candidates[i];
        for (size_t k = 0; k < c->nsamples; k++)
            c->samples[k].used |=
                kind_counts(c->samples[k].kind) && c->samples[k].disturbed && isfinite(c->samples[k].cost);
        summarise(c);
    }
}

/* A batch's wall time less its fixed cost, which may take at most half of it. */
static double work_ns(const gt_sampler *s, uint64_t wall_ns)
{
    return fmax((double)wall_ns - s->fixed_ns, (double)wall_ns / 2);
}

/* The sample's metric per work-item. In time, less the fixed cost of each of its batches (at
   most half the batch's wall time), as the remainder, one long batch, will run the work:
   samples of different lengths (a look at the default's size, the group axis's longer
   stretches, a confirmation's) compare on their work alone. Without it a tenant's fixed theft
   per batch, spread over a longer sample, made a group order that does nothing look faster.
   The counted metrics are taken as counted: calibration measures the fixed cost in time only. */
static double sample_cost(const gt_sampler *s, const gt_exec_result *er, double work_ns, uint64_t items)
{
    if (s->metric.num >= 0 || items == 0)
        return gt_metric_cost(&s->metric, er, items);
    return work_ns / (double)items;
}

/* What a stretch ran: its batches' results summed, and the work (wall time less each batch's
   fixed cost) they held. */
typedef struct ran {
    gt_exec_result er;
    double work_ns;
    uint64_t start;
    uint32_t runs;
} ran;

/* Adds what ran (runs starting at start, work_ns of it work) to total. */
static void add_ran(ran *total, const gt_exec_result *er, double work_ns, uint64_t start, uint32_t runs)
{
    gt_exec_result *t = &total->er;
    if (total->runs == 0)
        total->start = start;
    total->runs += runs;
    total->work_ns += work_ns;
    t->wall_ns += er->wall_ns;
    t->groups += er->groups;
    for (unsigned i = 0; i < GT_COUNTERS_MAX; i++)
        t->counters[i] += er->counters[i];
    t->probed = t->probed || er->probed;
    t->probe.involuntary_switches += er->probe.involuntary_switches;
    t->probe.offcpu_ns += er->probe.offcpu_ns;
    t->probe.migrations += er->probe.migrations;
    t->probe.page_faults += er->probe.page_faults;
    t->worst_offcpu_ns = t->worst_offcpu_ns > er->worst_offcpu_ns ? t->worst_offcpu_ns : er->worst_offcpu_ns;
}

/* Records what ran as the candidate's next sample (room for it, and for a warm-up before it,
   was made by run_batch). */
static void record(gt_sampler *s, size_t index, const ran *rn, unsigned round, gt_sample_kind kind)
{
    gt_candidate *c = &s->r->candidates[index];
    const gt_exec_result *er = &rn->er;
    gt_sample *smp = &c->samples[c->nsamples++];
    memset(smp, 0, sizeof *smp);
    smp->kind = kind;
    smp->start = rn->start;
    smp->runs = rn->runs;
    smp->round = round;
    smp->groups = er->groups;
    smp->items = er->groups * s->r->items_per_group;
    smp->wall_ns = er->wall_ns;
    smp->cost = sample_cost(s, er, rn->work_ns, smp->items);
    smp->probed = er->probed;
    smp->probe = er->probe;
    smp->worst_offcpu_ns = er->worst_offcpu_ns;
    smp->disturbed = is_disturbed(s, er);
    s->r->disturbed_samples += smp->disturbed;
    s->disturbed_ns += smp->disturbed && !s->r->steady_contention ? er->wall_ns : 0;
    smp->used = kind_counts(kind) && isfinite(smp->cost) && !(smp->disturbed && !s->r->steady_contention);
    s->probed_samples += smp->probed;
    memcpy(smp->counters, er->counters, sizeof smp->counters);
    summarise(c);
    check_steady_contention(s);
}

/* Runs candidate `index` on the stretch of its walk from position *start that holds want
   workgroups, adds it to rn and moves *start past it. -ENOSPC when no workgroup is left. */
static int run_batch(gt_sampler *s, size_t index, uint64_t *start, uint64_t want, ran *rn, char *err,
                     size_t errlen)
{
    gt_candidate *c = &s->r->candidates[index];
    gt_sample *grown = realloc(c->samples, (c->nsamples + 2) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "out of memory recording a sample");
        return -ENOMEM;
    }
    c->samples = grown;
    gt_stretch st;
    int rc = gt_stretch_take(s->walks, &c->schedule, *start, want, s->done, &st);
    if (rc < 0) {
        gt_stretch_free(&st);
        snprintf(err, errlen, "cannot walk the grid with a candidate's group order: %s",
                 rc == -ENOMEM ? "out of memory" : "bad order or span");
        return rc;
    }
    if (st.nruns == 0) {
        gt_stretch_free(&st);
        return -ENOSPC;
    }
    gt_exec_batch b = {.schedule = c->schedule, .runs = st.runs, .nruns = st.nruns};
    gt_exec_result er = {0};
    rc = s->exec->run(s->exec->ctx, &b, &er, err, errlen);
    if (rc == 0) {
        gt_stretch_mark(&st, s->done);
        s->any_done = true;
        s->r->groups_analysis += er.groups;
        s->r->analysis_ns += er.wall_ns;
        s->r->analysis_page_faults += er.probed ? er.probe.page_faults : 0;
        add_ran(rn, &er, work_ns(s, er.wall_ns), st.start, st.nruns);
        *start = st.next;
    }
    gt_stretch_free(&st);
    return rc;
}

/* Runs candidate `index` on the stretch of its walk from position start that holds want
   workgroups, and records the sample. -ENOSPC when no workgroup is left. */
static int run_stretch(gt_sampler *s, size_t index, uint64_t start, uint64_t want, unsigned round,
                       gt_sample_kind kind, uint64_t *next, char *err, size_t errlen)
{
    ran rn = {0};
    int rc = run_batch(s, index, &start, want, &rn, err, errlen);
    if (rc == 0) {
        record(s, index, &rn, round, kind);
        if (next)
            *next = start;
    }
    return rc;
}

int gt_sampler_candidate(gt_sampler *s, const gt_space_entry *e, unsigned phase, bool stretched, size_t *index)
{
    gt_tune_result *r = s->r;
    for (size_t i = 0; i < r->ncandidates; i++) {
        if (gt_schedule_equal(&r->candidates[i].schedule, &e->schedule)) {
            *index = i;
            return 0;
        }
    }
    gt_candidate *grown = realloc(r->candidates, (r->ncandidates + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    r->candidates = grown;
    gt_candidate *c = &r->candidates[r->ncandidates];
    memset(c, 0, sizeof *c);
    c->schedule = e->schedule;
    snprintf(c->style, sizeof c->style, "%s", e->style);
    c->phase = phase;
    c->stretched = stretched;
    c->median = c->min = c->max = NAN;
    *index = r->ncandidates++;
    return 0;
}

/* ---- calibration ------------------------------------------------------------------------- */

static bool too_small(gt_sampler *s, double ns_per_group, uint64_t min_groups, double min_sample_ns)
{
    uint64_t left = s->budget_groups - s->r->groups_analysis;
    if (left >= MIN_SLOTS * min_groups)
        return false;
    /* A resumed analysis that does not pay leaves the wisdom's winner to run the launch. */
    s->r->source = s->r->resumed ? GT_SOURCE_WISDOM : GT_SOURCE_DEFAULT;
    const char *kept = s->r->resumed ? "the wisdom's winner, the launch being " : "";
    if (isnan(ns_per_group))
        snprintf(s->r->reason, sizeof s->r->reason,
                 "%stoo small to pay for analysis: a %.0f%% budget of %llu workgroups holds fewer than %d samples "
                 "of one workgroup per worker",
                 kept, s->cfg->budget * 100, (unsigned long long)s->r->groups_total, MIN_SLOTS);
    else
        snprintf(s->r->reason, sizeof s->r->reason,
                 "%stoo small to pay for analysis: the launch takes about %.3f ms, and a %.0f%% budget holds fewer "
                 "than %d samples of %.0f us",
                 kept, ns_per_group * (double)s->r->groups_total / 1e6, s->cfg->budget * 100, MIN_SLOTS,
                 min_sample_ns / 1e3);
    return true;
}

/* Runs the default schedule on growing stretches from the start of its walk until one takes
   half a sample's time, two at least after the first. A batch has a fixed cost (waking the
   workers) besides its workgroups, so the cost of one workgroup is the slope between the last
   two stretches, and the fixed part is what is left: samples are then sized so that the fixed
   part stays below a tenth of them. The first stretch is a warm-up whose time sizes nothing
   unless no stretch follows it: the launch's first batch pays for a pool woken from a long
   sleep and for cold caches, 100-270 us here for 4 workgroups whatever the kernel (copy_rows'
   next 32 took 10-19 us), and a slope from it made a fixed part of 100-370 us, which sized the
   samples of half of conv11's cold analyses and all of matmul_tiled's at 4-8 times the asked
   length (10 looks in the analysis against 43-53; bench/results/calibration-warm-up-2026-11-27/).
   The slope is believed only once the last stretch's workgroups (slope times their number)
   take at least half of it; until then the next stretch is aimed by the last one's average
   cost per workgroup, which the fixed part makes an overestimate, so it errs short. */
static int calibrate(gt_sampler *s, double *ns_per_group, double *fixed_ns, char *err, size_t errlen)
{
    uint64_t target = 2ull * s->exec->workers, start = 0;
    double prev_t = NAN, prev_n = NAN;
    *ns_per_group = *fixed_ns = NAN;
    unsigned again = 0;
    for (int step = 0; step < CALIBRATION_STEPS;) {
        uint64_t spent = s->r->groups_analysis, cap = s->budget_groups / CALIBRATION_SHARE;
        if (spent + target > cap)
            target = cap > spent ? cap - spent : 0;
        if (target == 0 || (step > 0 && (double)target <= prev_n))
            break;
        int rc = run_stretch(s, 0, start, target, gt_sampler_next_round(s), GT_SAMPLE_CALIBRATION, &start, err,
                             errlen);
        if (rc == -ENOSPC)
            break;
        if (rc < 0)
            return rc;
        const gt_candidate *def = &s->r->candidates[0];
        const gt_sample *last = &def->samples[def->nsamples - 1];
        /* A stretch other tasks took time from measured them: the same number of workgroups
           runs again, and only undisturbed stretches make the slope. copy_cols' first two
           stretches lost 1.2 and 0.9 ms to another task, the slope and fixed part they made sized
           samples of 1.4-2.5 ms, and the analysis's time ran out with the default alone
           measured: the launch ran it, 8.8x the best schedule. */
        if (last->disturbed && again < REMEASURE_MAX) {
            again++;
            continue;
        }
        step++;
        double t = (double)last->wall_ns, n = (double)last->groups;
        /* no slope from the warm-up: its average stands only if nothing follows it */
        double slope = step > 2 && n > prev_n ? (t - prev_t) / (n - prev_n) : 0;
        /* A slope far below the average is noise (a preempted stretch), not a fixed cost:
           trusting it would size samples by a cost per workgroup the kernel does not have. */
        if (slope < SLOPE_TRUSTED * t / n)
            slope = 0;
        *ns_per_group = slope > 0 ? slope : t / n;
        *fixed_ns = slope > 0 && t > slope * n ? t - slope * n : 0;
        prev_t = t;
        prev_n = n;
        if (step == 1) { /* the warm-up's next stretch grows by the factor alone */
            target *= CALIBRATION_GROWTH;
            continue;
        }
        bool believed = slope > 0 && slope * n * 2 >= t;
        if (t * 2 >= (double)s->cfg->sample_ns && believed)
            break; /* two stretches at least: the slope needs them, and samples' sizes need it */
        /* Growing by the factor alone overshot: transpose's stretches of 256 workgroups took
           89 us, and the next 2048 took 700 us of the slow default's time, where 250 was asked. */
        double rate = believed ? slope : t / n;
        double aim = fmax(ceil(CALIBRATION_AIM * (double)s->cfg->sample_ns / rate), CALIBRATION_SPREAD * n);
        target = aim < (double)(target * CALIBRATION_GROWTH) ? (uint64_t)aim : target * CALIBRATION_GROWTH;
    }
    return 0;
}

/* The fewest workgroups a sample of schedule c may have: a span or a chunk for every worker. */
static uint64_t least_groups(const gt_sampler *s, const gt_schedule *c)
{
    uint64_t unit = c->span;
    if (gt_assign_has_chunk(c->assign.kind) && c->assign.chunk > unit)
        unit = c->assign.chunk;
    return unit * s->exec->workers;
}

int gt_sampler_create(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec,
                      const gt_metric_plan *metric, gt_tune_result *r, gt_sampler **out, char *err, size_t errlen)
{
    gt_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory starting the analysis");
        return -ENOMEM;
    }
    *out = s;
    s->cfg = cfg;
    s->exec = exec;
    s->metric = *metric;
    s->r = r;
    gt_range_groups(&launch->range, s->grid);
    gt_range nr = gt_range_normalized(&launch->range);
    for (int d = 0; d < 3; d++)
        s->item_shape[d] = (uint32_t)nr.local[d];
    s->budget_groups = (uint64_t)(cfg->budget * (double)r->groups_total);
    s->done = calloc((r->groups_total + 7) / 8, 1);
    s->walks = gt_walks_create(s->grid);
    gt_space_entry def = {.schedule = r->winner};
    snprintf(def.style, sizeof def.style, "%s", r->resumed ? "wisdom" : "default");
    size_t def_index;
    if (!s->done || !s->walks || gt_sampler_candidate(s, &def, 0, false, &def_index) < 0) {
        snprintf(err, errlen, "out of memory starting the analysis");
        return -ENOMEM;
    }
    if (too_small(s, NAN, exec->workers, NAN))
        return 0;
    double ns_per_group, fixed_ns;
    int rc = calibrate(s, &ns_per_group, &fixed_ns, err, errlen);
    if (rc < 0)
        return rc;
    bool known = isfinite(ns_per_group) && ns_per_group > 0;
    s->fixed_ns = known ? fixed_ns : 0;
    s->sample_ns = fmin(fmax((double)cfg->sample_ns, s->fixed_ns / FIXED_SHARE),
                        (double)cfg->sample_ns * MAX_SAMPLE_STRETCH);
    uint64_t target = known ? (uint64_t)ceil((s->sample_ns - s->fixed_ns) / ns_per_group) : exec->workers;
    uint64_t min_groups = known ? (uint64_t)ceil(s->sample_ns / 4 / ns_per_group) : exec->workers;
    if (min_groups < exec->workers)
        min_groups = exec->workers;
    if (too_small(s, ns_per_group, min_groups, s->sample_ns / 4))
        return 0;
    uint64_t left = s->budget_groups - r->groups_analysis;
    if (target < left / MAX_SLOTS)
        target = left / MAX_SLOTS;
    if (target > left / MIN_SLOTS)
        target = left / MIN_SLOTS;
    if (target < min_groups)
        target = min_groups;
    s->sample_groups = target;
    s->ready = true;
    return 0;
}

void gt_sampler_destroy(gt_sampler *s)
{
    if (!s)
        return;
    gt_walks_destroy(s->walks);
    free(s->done);
    free(s);
}

bool gt_sampler_ready(const gt_sampler *s) { return s && s->ready; }
const uint8_t *gt_sampler_done(const gt_sampler *s) { return s && s->any_done ? s->done : NULL; }
const uint32_t *gt_sampler_item_shape(const gt_sampler *s) { return s->item_shape; }
const uint32_t *gt_sampler_grid(const gt_sampler *s) { return s->grid; }
uint64_t gt_sampler_sample_groups(const gt_sampler *s) { return s->sample_groups; }
unsigned gt_sampler_workers(const gt_sampler *s) { return s->exec->workers; }
unsigned gt_sampler_next_round(gt_sampler *s) { return s->round++; }

/* The budget's workgroups a sample may still use: the reserve is the confirmation's. */
static uint64_t groups_left(const gt_sampler *s, bool confirm)
{
    uint64_t left = s->budget_groups - s->r->groups_analysis;
    return confirm || left > s->reserved ? left - (confirm ? 0 : s->reserved) : 0;
}

/* A workgroup's wall time in the candidate's used samples, the median; less the batch's fixed
   cost (at most half a sample's time) when asked. NaN without a used sample. */
static double median_group_ns(const gt_sampler *s, const gt_candidate *c, bool less_fixed)
{
    double *rates = malloc((c->nsamples ? c->nsamples : 1) * sizeof *rates);
    size_t n = 0;
    for (size_t i = 0; rates && i < c->nsamples; i++) {
        const gt_sample *smp = &c->samples[i];
        double wall = (double)smp->wall_ns;
        if (smp->used && smp->groups)
            rates[n++] = (less_fixed ? work_ns(s, smp->wall_ns) : wall) / (double)smp->groups;
    }
    double rate = n ? gt_stats_median(rates, n) : NAN;
    free(rates);
    return rate;
}

/* The wall time of one workgroup in the fastest candidate measured so far; NaN before any
   used sample. */
static double best_group_ns(const gt_sampler *s)
{
    double best = NAN;
    for (size_t i = 0; i < s->r->ncandidates; i++) {
        double rate = median_group_ns(s, &s->r->candidates[i], false);
        if (rate > 0 && !(rate >= best))
            best = rate;
    }
    return best;
}

/* The analysis's time limit: the budget's share of the launch's time at the best speed seen
   so far, less the confirmation's reserve unless confirming; INFINITY before any speed is
   known. A default far slower than the best candidate would otherwise spend most of the
   launch's time on analysis (copy_cols: a 10% workgroup budget took 14 to 45 ms of a launch
   the winner runs in 33). */
double gt_sampler_time_limit(const gt_sampler *s, bool confirm)
{
    double best = best_group_ns(s);
    if (!(best > 0))
        return INFINITY;
    return s->cfg->budget * (double)s->r->groups_total * best * (confirm ? 1 : 1 - s->reserve_share);
}

/* Disturbed samples' time is left out: other tasks took it, and would take it from the
   remainder as well. */
static double time_left(const gt_sampler *s)
{
    return gt_sampler_time_limit(s, false) - (double)(s->r->analysis_ns - s->disturbed_ns);
}

size_t gt_sampler_slots_left(const gt_sampler *s)
{
    if (!s->ready)
        return 0;
    size_t slots = (size_t)(groups_left(s, false) / s->sample_groups);
    double by_time = time_left(s) / s->sample_ns;
    if (by_time < (double)slots)
        slots = by_time > 0 ? (size_t)by_time : 0;
    return slots;
}

void gt_sampler_reserve(gt_sampler *s, double share, unsigned samples)
{
    s->reserve_share = share;
    s->reserved = (uint64_t)(share * (double)groups_left(s, true));
    s->confirm_groups = samples ? s->reserved / samples : 0;
}

/* Nothing left for another sample: no workgroup, or no time. A confirming sample is owed
   whatever the time, within the reserve's workgroups: the limit falls as faster candidates
   turn up, so the samples before it can leave no time for the test that guards the decision
   (copy_cols ran 0 to 2 of its 8 confirming samples). */
static bool spent(const gt_sampler *s, bool confirm)
{
    return groups_left(s, confirm) == 0 || (!confirm && !s->owed && time_left(s) <= 0);
}

void gt_sampler_owe(gt_sampler *s, bool owed) { s->owed = owed; }

/* ---- sampling ---------------------------------------------------------------------------- */

unsigned gt_sample_stretch(const gt_candidate *c)
{
    return c->stretched ? GT_GROUP_SAMPLE_STRETCH : 1;
}

/* The workgroups the candidate's next sample should hold: a look takes a sample of the
   default's size; after it, the candidate's own time per workgroup (the median over its used
   samples, less the batch's fixed cost) sizes its samples to take s->sample_ns. Both are
   stretched for a stretched candidate. */
static uint64_t sample_size(const gt_sampler *s, const gt_candidate *c, bool *look)
{
    double rate = median_group_ns(s, c, true);
    double stretch = gt_sample_stretch(c);
    *look = !(rate > 0);
    if (*look)
        return (uint64_t)(stretch * (double)s->sample_groups);
    double groups = ceil((stretch * s->sample_ns - s->fixed_ns) / rate);
    groups = fmin(fmax(groups, (double)s->sample_groups / SIZE_RANGE),
                  stretch * (double)s->sample_groups * SIZE_RANGE);
    return (uint64_t)groups;
}

uint64_t gt_sampler_groups_of(const gt_sampler *s, size_t index)
{
    bool look;
    return index < s->r->ncandidates ? sample_size(s, &s->r->candidates[index], &look) : s->sample_groups;
}

bool gt_cost_hopeless(const gt_tune_result *r, double cost)
{
    double best = NAN;
    for (size_t i = 0; i < r->ncandidates; i++)
        if (!r->candidates[i].eliminated && (isnan(best) || r->candidates[i].median < best))
            best = r->candidates[i].median;
    return cost > GT_TUNE_HOPELESS * best; /* NaN compares false */
}

/* What ran of a look shows the candidate hopeless: undisturbed, it cost GT_TUNE_HOPELESS times
   the best median so far, the cost first divided by `parts` (see run_sample). */
static bool hopeless_part(const gt_sampler *s, const ran *rn, double parts)
{
    double cost = sample_cost(s, &rn->er, rn->work_ns, rn->er.groups * s->r->items_per_group);
    bool disturbed = is_disturbed(s, &rn->er) && !s->r->steady_contention;
    return !disturbed && gt_cost_hopeless(s->r, cost / parts);
}

/* Records a look's warm-up (when it had one) and then what ran after it, the look; when
   nothing ran after it, the warm-up itself is the look. */
static void record_after_warm_up(gt_sampler *s, size_t index, const ran *warm_up, const ran *rn, unsigned round,
                                 gt_sample_kind kind)
{
    if (warm_up->runs && rn->runs)
        record(s, index, warm_up, round, GT_SAMPLE_WARM_UP);
    record(s, index, rn->runs ? rn : warm_up, round, kind);
}

/* Runs one sample of the candidate from the round's share of its walk. A look's size is the
   default's, so a candidate twenty times slower took twenty samples' time over it: copy_rows'
   look at the column item order took 4-8 ms of an analysis limited to 7, and left the span
   axis, which pays 1.6-2.4x on the launch, without a sample. A look therefore runs its first
   quarter alone: when that shows the candidate hopeless, the look ends there (a sample of kind
   glance); otherwise the rest follows and the batches make one look.

   A stretched look's quarter is a sample of the default's size, too short to show a group
   order's cost: over transpose the column walk's stretched glances cost 4.0-6.9 ns per
   work-item where its whole looks cost 1.1-2.6, since its first stretch is the expensive one.
   Its glance alone ends it only when the whole look would be hopeless even if its other
   quarters cost nothing (GLANCE_PARTS times the line). Above the line but below that, the
   second quarter runs alone too, and ends the look when it is above the line by itself: over
   copy_rows the walk costs 7-8 times the best from its first stretch on, and its whole look
   took 7.2 ms of a 10.2 ms analysis, which then kept the default at 2.7x the best
   (bench/results/stepped-glance-2026-11-29/). A stretched look that goes on counts only what
   ran after its first quarter, which is recorded as its warm-up: the first stretch of a new
   group order pays for caches and the TLB once, as the whole launch does, and transpose's
   column walk (1.0 ns per work-item on the whole launch) had whole first looks of 1.7-3.8 in
   the cold launches that lost it (bench/results/warm-up-2026-11-29/). */
static int run_sample(gt_sampler *s, size_t index, unsigned round, bool confirm, char *err, size_t errlen)
{
    const gt_candidate *c = &s->r->candidates[index];
    bool look;
    uint64_t want = sample_size(s, c, &look), least = least_groups(s, &c->schedule);
    uint64_t left = groups_left(s, confirm);
    if (confirm && s->confirm_groups && want > s->confirm_groups)
        want = s->confirm_groups; /* the reserve holds every confirming sample */
    if (want < least)
        want = least;
    if (want > left)
        want = left;
    if (want < least)
        return -ENOSPC;
    /* Whole spans (or chunks) for every worker: none waits on another's last. A sized sample
       takes the nearer whole number, so that it takes the asked time within half a unit: down
       only, a span of 64 over two workers made a sample of 200 workgroups 128 (0.64 of it). */
    uint64_t whole = want - want % least;
    if (!look && !confirm && want - whole > least / 2 && whole + least <= left)
        whole += least;
    want = whole;
    uint64_t start = (uint64_t)(gt_walk_share(round) * (double)gt_walk_positions(s->grid, c->schedule.span));
    gt_sample_kind kind = confirm ? GT_SAMPLE_CONFIRM : look ? GT_SAMPLE_LOOK : GT_SAMPLE_SIZED;
    uint64_t glance = kind == GT_SAMPLE_LOOK ? want / GLANCE_PARTS - want / GLANCE_PARTS % least : 0;
    if (glance < least)
        return run_stretch(s, index, start, want, round, kind, NULL, err, errlen);
    ran rn = {0};
    int rc = run_batch(s, index, &start, glance, &rn, err, errlen);
    if (rc < 0)
        return rc;
    if (hopeless_part(s, &rn, c->stretched ? GLANCE_PARTS : 1)) {
        record(s, index, &rn, round, GT_SAMPLE_GLANCE);
        return 0;
    }
    uint64_t taken = glance;
    bool beyond = c->stretched && hopeless_part(s, &rn, 1);
    ran warm_up = {0};
    if (c->stretched) {
        warm_up = rn;
        rn = (ran){0};
    }
    if (beyond) {
        ran next = {0};
        rc = run_batch(s, index, &start, glance, &next, err, errlen);
        bool ends = rc == 0 && hopeless_part(s, &next, 1);
        add_ran(&rn, &next.er, next.work_ns, next.start, next.runs);
        if (rc < 0 || ends) {
            record_after_warm_up(s, index, &warm_up, &rn, round, ends ? GT_SAMPLE_GLANCE : kind);
            return rc == -ENOSPC ? 0 : rc;
        }
        taken += glance;
    }
    rc = run_batch(s, index, &start, want - taken, &rn, err, errlen);
    record_after_warm_up(s, index, &warm_up, &rn, round, kind);
    return rc == -ENOSPC ? 0 : rc;
}

/* The candidate's last sample was disturbed and is kept out, so it is worth measuring again. */
static bool last_disturbed(const gt_sampler *s, size_t index)
{
    const gt_candidate *c = &s->r->candidates[index];
    return c->nsamples && c->samples[c->nsamples - 1].disturbed && !s->r->steady_contention;
}

int gt_sampler_run(gt_sampler *s, size_t index, unsigned round, bool confirm, char *err, size_t errlen)
{
    if (!s->ready || spent(s, confirm))
        return -ENOSPC;
    int rc = run_sample(s, index, round, confirm, err, errlen), runs = 1;
    for (; rc == 0 && runs <= REMEASURE_MAX && last_disturbed(s, index) && !spent(s, confirm); runs++) {
        rc = run_sample(s, index, round, confirm, err, errlen);
        if (rc == -ENOSPC)
            return runs; /* no workgroup left after all: the disturbed sample stays unused */
        s->r->remeasured += rc == 0;
    }
    return rc < 0 ? rc : runs;
}
