/* sampler.c: calibration, the sample boxes, the budget, and recording measured samples. */
#include "sampler.h"

#include "grid.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calibration grows its box at most this many times, by at most this factor each time. */
#define CALIBRATION_STEPS 5
#define CALIBRATION_GROWTH 8
/* Calibration may use at most this fraction (one over it) of the budget. */
#define CALIBRATION_SHARE 8
/* A batch's fixed cost may be at most this share of a sample. */
#define FIXED_SHARE 0.1
/* The budget is cut into at most this many samples, whatever calibration measured: one
   preempted calibration box must not shrink the samples into noise. */
#define MAX_SLOTS 200
/* Nor may it stretch a sample beyond this multiple of the asked-for sample time. */
#define MAX_SAMPLE_STRETCH 8
/* A launch must hold this many samples in its budget to be analysed at all. */
#define MIN_SLOTS 4
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
/* Boxes are at most this many workgroups tall: enough for tiled and Hilbert group orders to
   differ from the linear one, short enough to keep the row-major neighbourhood of samples. */
#define BOX_MAX_HEIGHT 8

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
    uint32_t box[3];
    uint32_t boxes[3]; /* full boxes per dimension */
    uint64_t next_box; /* row-major over the box grid */
    unsigned round;
    size_t calibration_samples; /* the default's first samples, which only size the others */
    size_t probed_samples;      /* samples that came with probe figures */
};

static uint64_t volume(const uint32_t s[3])
{
    return (uint64_t)s[0] * s[1] * s[2];
}

static bool is_done(const gt_sampler *s, uint32_t g)
{
    return s->done[g / 8] >> (g % 8) & 1;
}

/* Calls f on each workgroup of the box at origin; stops early when f returns false. */
static bool box_all(gt_sampler *s, const uint32_t origin[3], const uint32_t extent[3],
                    bool (*f)(gt_sampler *, uint32_t))
{
    for (uint32_t z = 0; z < extent[2]; z++)
        for (uint32_t y = 0; y < extent[1]; y++)
            for (uint32_t x = 0; x < extent[0]; x++)
                if (!f(s, gt_grid_linear(s->grid, origin[0] + x, origin[1] + y, origin[2] + z)))
                    return false;
    return true;
}

static bool mark_done(gt_sampler *s, uint32_t g)
{
    s->done[g / 8] |= (uint8_t)(1u << (g % 8));
    return true;
}

static bool is_free(gt_sampler *s, uint32_t g)
{
    return !is_done(s, g);
}

/* A box of about `target` workgroups: a run of a 1-D grid; otherwise up to BOX_MAX_HEIGHT
   rows, as wide as needed, widening to whole rows and then growing taller. */
static void box_for(const uint32_t grid[3], uint64_t target, uint32_t box[3])
{
    if (target < 1)
        target = 1;
    box[2] = 1;
    if (grid[1] == 1 && grid[2] == 1) {
        box[0] = (uint32_t)(target < grid[0] ? target : grid[0]);
        box[1] = 1;
        return;
    }
    uint64_t h = 1;
    while ((h + 1) * (h + 1) <= target && h < BOX_MAX_HEIGHT)
        h++;
    if (h > grid[1])
        h = grid[1];
    uint64_t w = (target + h - 1) / h;
    if (w > grid[0]) {
        w = grid[0];
        h = (target + w - 1) / w;
        if (h > grid[1])
            h = grid[1];
    }
    box[0] = (uint32_t)w;
    box[1] = (uint32_t)h;
}

static double sample_cost(const gt_metric_plan *m, const gt_exec_result *er, uint64_t items)
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

/* Contention turned out steady: the disturbed samples kept out so far count after all. */
static void check_steady_contention(gt_sampler *s)
{
    gt_tune_result *r = s->r;
    if (r->steady_contention || s->probed_samples < STEADY_MIN_SAMPLES ||
        (double)r->disturbed_samples <= STEADY_SHARE * (double)s->probed_samples)
        return;
    r->steady_contention = true;
    for (size_t i = 0; i < r->ncandidates; i++) {
        gt_candidate *c = &r->candidates[i];
        for (size_t k = i == 0 ? s->calibration_samples : 0; k < c->nsamples; k++)
            c->samples[k].used |= c->samples[k].disturbed && isfinite(c->samples[k].cost);
        summarise(c);
    }
}

/* Runs candidate `index` on the box at origin and records the sample. */
static int run_box(gt_sampler *s, size_t index, const uint32_t origin[3], const uint32_t extent[3], unsigned round,
                   bool used, char *err, size_t errlen)
{
    gt_candidate *c = &s->r->candidates[index];
    gt_sample *grown = realloc(c->samples, (c->nsamples + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "out of memory recording a sample");
        return -ENOMEM;
    }
    c->samples = grown;
    gt_exec_batch b = {.schedule = c->schedule};
    memcpy(b.box_origin, origin, sizeof b.box_origin);
    memcpy(b.box_extent, extent, sizeof b.box_extent);
    gt_exec_result er = {0};
    int rc = s->exec->run(s->exec->ctx, &b, &er, err, errlen);
    if (rc < 0)
        return rc;
    box_all(s, origin, extent, mark_done);
    s->any_done = true;
    s->r->groups_analysis += er.groups;
    s->r->analysis_ns += er.wall_ns;
    s->r->analysis_page_faults += er.probed ? er.probe.page_faults : 0;

    gt_sample *smp = &c->samples[c->nsamples++];
    memset(smp, 0, sizeof *smp);
    memcpy(smp->box_origin, origin, sizeof smp->box_origin);
    memcpy(smp->box_extent, extent, sizeof smp->box_extent);
    smp->round = round;
    smp->groups = er.groups;
    smp->items = er.groups * s->r->items_per_group;
    smp->wall_ns = er.wall_ns;
    smp->cost = sample_cost(&s->metric, &er, smp->items);
    smp->probed = er.probed;
    smp->probe = er.probe;
    smp->worst_offcpu_ns = er.worst_offcpu_ns;
    smp->disturbed = is_disturbed(s, &er);
    s->r->disturbed_samples += smp->disturbed;
    smp->used = used && isfinite(smp->cost) && !(smp->disturbed && !s->r->steady_contention);
    if (!used)
        s->calibration_samples++;
    s->probed_samples += smp->probed;
    memcpy(smp->counters, er.counters, sizeof smp->counters);
    summarise(c);
    check_steady_contention(s);
    return 0;
}

int gt_sampler_candidate(gt_sampler *s, const gt_space_entry *e, unsigned phase, size_t *index)
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
    s->r->source = GT_SOURCE_DEFAULT;
    if (isnan(ns_per_group))
        snprintf(s->r->reason, sizeof s->r->reason,
                 "too small to pay for analysis: a %.0f%% budget of %llu workgroups holds fewer than %d samples "
                 "of one workgroup per worker",
                 s->cfg->budget * 100, (unsigned long long)s->r->groups_total, MIN_SLOTS);
    else
        snprintf(s->r->reason, sizeof s->r->reason,
                 "too small to pay for analysis: the launch takes about %.3f ms, and a %.0f%% budget holds fewer "
                 "than %d samples of %.0f us",
                 ns_per_group * (double)s->r->groups_total / 1e6, s->cfg->budget * 100, MIN_SLOTS,
                 min_sample_ns / 1e3);
    return true;
}

/* Runs the default schedule on growing boxes at the start of the grid, along its outermost
   dimension, until a box takes half a sample's time. A batch has a fixed cost (waking the
   workers) besides its workgroups, so the cost of one workgroup is the slope between the last
   two boxes, and the fixed part is what is left: samples are then sized so that the fixed
   part stays below a tenth of them. */
static int calibrate(gt_sampler *s, double *ns_per_group, double *fixed_ns, char *err, size_t errlen)
{
    bool one_d = s->grid[1] == 1 && s->grid[2] == 1;
    uint32_t origin[3] = {0, 0, 0};
    uint64_t target = 2ull * s->exec->workers;
    double prev_t = NAN, prev_n = NAN;
    *ns_per_group = *fixed_ns = NAN;
    for (int step = 0; step < CALIBRATION_STEPS; step++) {
        uint64_t spent = s->r->groups_analysis, cap = s->budget_groups / CALIBRATION_SHARE;
        if (spent + target > cap)
            target = cap > spent ? cap - spent : 0;
        uint32_t box[3];
        box_for(s->grid, target, box);
        if (volume(box) == 0 || origin[0] + box[0] > s->grid[0] || origin[1] + box[1] > s->grid[1] ||
            target == 0 || (step > 0 && (double)volume(box) <= prev_n))
            break;
        int rc = run_box(s, 0, origin, box, gt_sampler_next_round(s), false, err, errlen);
        if (rc < 0)
            return rc;
        const gt_candidate *def = &s->r->candidates[0];
        double t = (double)def->samples[def->nsamples - 1].wall_ns, n = (double)volume(box);
        double slope = step > 0 ? (t - prev_t) / (n - prev_n) : 0;
        *ns_per_group = slope > 0 ? slope : t / n;
        *fixed_ns = slope > 0 && t > slope * n ? t - slope * n : 0;
        prev_t = t;
        prev_n = n;
        if (t * 2 >= (double)s->cfg->sample_ns)
            break;
        target *= CALIBRATION_GROWTH;
        *(one_d ? &origin[0] : &origin[1]) += one_d ? box[0] : box[1];
    }
    return 0;
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
    gt_space_entry def = {.schedule = gt_schedule_default, .style = "default"};
    size_t def_index;
    if (!s->done || gt_sampler_candidate(s, &def, 0, &def_index) < 0) {
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
    double sample_ns = fmin(fmax((double)cfg->sample_ns, known ? fixed_ns / FIXED_SHARE : 0),
                            (double)cfg->sample_ns * MAX_SAMPLE_STRETCH);
    uint64_t target = known ? (uint64_t)ceil(sample_ns / ns_per_group) : exec->workers;
    uint64_t min_groups = known ? (uint64_t)ceil(sample_ns / 4 / ns_per_group) : exec->workers;
    if (min_groups < exec->workers)
        min_groups = exec->workers;
    if (too_small(s, ns_per_group, min_groups, sample_ns / 4))
        return 0;
    uint64_t left = s->budget_groups - r->groups_analysis;
    if (target < left / MAX_SLOTS)
        target = left / MAX_SLOTS;
    if (target > left / MIN_SLOTS)
        target = left / MIN_SLOTS;
    if (target < min_groups)
        target = min_groups;
    box_for(s->grid, target, s->box);
    for (int d = 0; d < 3; d++)
        s->boxes[d] = s->grid[d] / s->box[d];
    s->ready = true;
    return 0;
}

void gt_sampler_destroy(gt_sampler *s)
{
    if (!s)
        return;
    free(s->done);
    free(s);
}

bool gt_sampler_ready(const gt_sampler *s) { return s && s->ready; }
const uint8_t *gt_sampler_done(const gt_sampler *s) { return s && s->any_done ? s->done : NULL; }
const uint32_t *gt_sampler_item_shape(const gt_sampler *s) { return s->item_shape; }
const uint32_t *gt_sampler_box(const gt_sampler *s) { return s->box; }
unsigned gt_sampler_workers(const gt_sampler *s) { return s->exec->workers; }
unsigned gt_sampler_next_round(gt_sampler *s) { return s->round++; }

size_t gt_sampler_slots_left(const gt_sampler *s)
{
    uint64_t left = s->budget_groups - s->r->groups_analysis;
    return s->ready ? (size_t)(left / volume(s->box)) : 0;
}

/* Runs one sample on the next free box; -ENOSPC when none is left. */
static int run_next_box(gt_sampler *s, size_t index, unsigned round, char *err, size_t errlen)
{
    uint64_t nboxes = volume(s->boxes);
    for (; s->next_box < nboxes; s->next_box++) {
        uint32_t b[3], origin[3];
        gt_grid_coords(s->boxes, (uint32_t)s->next_box, b);
        for (int d = 0; d < 3; d++)
            origin[d] = b[d] * s->box[d];
        if (!box_all(s, origin, s->box, is_free))
            continue; /* overlaps the calibration */
        s->next_box++;
        return run_box(s, index, origin, s->box, round, true, err, errlen);
    }
    return -ENOSPC;
}

/* The candidate's last sample was disturbed and is kept out, so it is worth measuring again. */
static bool last_disturbed(const gt_sampler *s, size_t index)
{
    const gt_candidate *c = &s->r->candidates[index];
    return c->nsamples && c->samples[c->nsamples - 1].disturbed && !s->r->steady_contention;
}

int gt_sampler_run(gt_sampler *s, size_t index, unsigned round, char *err, size_t errlen)
{
    if (gt_sampler_slots_left(s) == 0)
        return -ENOSPC;
    int rc = run_next_box(s, index, round, err, errlen), runs = 1;
    for (; rc == 0 && runs <= REMEASURE_MAX && last_disturbed(s, index) && gt_sampler_slots_left(s) > 0; runs++) {
        rc = run_next_box(s, index, round, err, errlen);
        if (rc == -ENOSPC)
            return runs; /* no free box after all: the disturbed sample stays unused */
        s->r->remeasured += rc == 0;
    }
    return rc < 0 ? rc : runs;
}
