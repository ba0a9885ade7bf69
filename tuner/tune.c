/* tune.c: one launch through plan, analysis, dispatch and record.
 *
 * Analysis cuts the grid into equal boxes of workgroups (samples) and walks them in order, so
 * the samples of one round are neighbours and no candidate is handed cheaper work than the
 * others. The box size comes from a calibration run of the default schedule, so that one
 * sample takes about cfg->sample_ns. The axes of the schedule are explored one after the
 * other (space.h); in each, the current best schedule defends against the axis's variations.
 * The strategy decides how the samples of an axis are spent (strategy.c). */
#include "tune.h"

#include "grid.h"
#include "refine.h"
#include "sampler.h"
#include "strategy.h"
#include "stretch.h"
#include "wisdom.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- names and defaults ------------------------------------------------------------------ */

static const char *const mode_names[] = {"auto", "off", "retune"};
static const char *const strategy_names[] = {"racing", "nested"};
static const char *const metric_names[] = {"time", "ipc", "l1", "l2", "energy"};
static const char *const metric_units[] = {"ns per work-item", "cycles per instruction", "L1 misses per work-item",
                                           "L2 misses per work-item", "energy units per work-item"};
static const char *const source_names[] = {"analysis", "wisdom", "forced", "default"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_OF(table, v) ((unsigned)(v) < COUNT(table) ? (table)[v] : "unknown")

const char *gt_tune_mode_name(gt_tune_mode m) { return NAME_OF(mode_names, m); }
const char *gt_strategy_name(gt_strategy s) { return NAME_OF(strategy_names, s); }
const char *gt_metric_name(gt_metric m) { return NAME_OF(metric_names, m); }
const char *gt_metric_unit(gt_metric m) { return NAME_OF(metric_units, m); }
const char *gt_decision_source_name(gt_decision_source s) { return NAME_OF(source_names, s); }

static int parse_name(const char *text, const char *const *names, size_t n, int *out)
{
    for (size_t i = 0; text && i < n; i++) {
        if (strcmp(text, names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    }
    return -EINVAL;
}

int gt_tune_mode_parse(const char *text, gt_tune_mode *out)
{
    int v, rc = parse_name(text, mode_names, COUNT(mode_names), &v);
    if (rc == 0)
        *out = (gt_tune_mode)v;
    return rc;
}

int gt_strategy_parse(const char *text, gt_strategy *out)
{
    int v, rc = parse_name(text, strategy_names, COUNT(strategy_names), &v);
    if (rc == 0)
        *out = (gt_strategy)v;
    return rc;
}

int gt_metric_parse(const char *text, gt_metric *out)
{
    int v, rc = parse_name(text, metric_names, COUNT(metric_names), &v);
    if (rc == 0)
        *out = (gt_metric)v;
    return rc;
}

gt_tune_config gt_tune_config_default(void)
{
    return (gt_tune_config){
        .mode = GT_TUNE_AUTO,
        .strategy = GT_STRATEGY_RACING,
        .metric = GT_METRIC_TIME,
        .budget = 0.08, /* bench/results/budget-8pct-2026-11-27/ */
        .min_gain = 0.03,
        .sample_ns = 250000,
        .min_samples = 2,
        .disturbed_share = 0.10,
        .space = gt_space_config_default(),
        .refine = true,
        .refine_limit = 12,
        .forced = false,
        .schedule = gt_schedule_default,
    };
}

int gt_tune_config_check(const gt_tune_config *cfg, char *err, size_t errlen)
{
    if (!(cfg->budget > 0 && cfg->budget < 0.5)) {
        snprintf(err, errlen, "budget %g: expected a fraction of the workgroups above 0 and below 0.5", cfg->budget);
        return -EINVAL;
    }
    if (!(cfg->min_gain >= 0 && cfg->min_gain < 1)) {
        snprintf(err, errlen, "minimum gain %g: expected a fraction from 0 to below 1", cfg->min_gain);
        return -EINVAL;
    }
    if (cfg->sample_ns < 1000 || cfg->sample_ns > 10000000000ULL) {
        snprintf(err, errlen, "sample time %llu ns: expected 1 us to 10 s", (unsigned long long)cfg->sample_ns);
        return -EINVAL;
    }
    if (!(cfg->disturbed_share > 0 && cfg->disturbed_share <= 1)) {
        snprintf(err, errlen, "disturbed share %g: expected a fraction above 0, at most 1", cfg->disturbed_share);
        return -EINVAL;
    }
    if (cfg->min_samples < 1 || cfg->min_samples > 64) {
        snprintf(err, errlen, "minimum samples %u: expected 1 to 64", cfg->min_samples);
        return -EINVAL;
    }
    if (cfg->refine_limit < 1 || cfg->refine_limit > 1000) {
        snprintf(err, errlen, "refine limit %u: expected 1 to 1000 launches", cfg->refine_limit);
        return -EINVAL;
    }
    if ((unsigned)cfg->mode >= COUNT(mode_names) || (unsigned)cfg->strategy >= COUNT(strategy_names) ||
        (unsigned)cfg->metric >= COUNT(metric_names)) {
        snprintf(err, errlen, "unknown tuning mode, strategy or metric");
        return -EINVAL;
    }
    return gt_space_config_check(&cfg->space, err, errlen);
}

/* ---- running batches ---------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void set_reason(gt_tune_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

/* Adds what er ran to the launch's remainder: the winner's workgroups outside the analysis. */
static void count_as_remainder(gt_tune_result *r, const gt_exec_result *er)
{
    r->groups_remainder += er->groups;
    r->remainder_ns += er->wall_ns;
    for (unsigned i = 0; i < GT_COUNTERS_MAX; i++)
        r->remainder_counters[i] += er->counters[i];
    r->remainder_probed = r->remainder_probed || er->probed;
    r->remainder_page_faults += er->probed ? er->probe.page_faults : 0;
}

/* Runs every workgroup not yet run (skip may be NULL) with s: the dispatch step. */
static int run_remainder(const gt_executor *exec, const gt_schedule *s, const uint8_t *skip, gt_tune_result *r,
                         char *err, size_t errlen)
{
    gt_exec_batch b = {.schedule = *s, .skip = skip};
    gt_exec_result er = {0};
    int rc = exec->run(exec->ctx, &b, &er, err, errlen);
    if (rc < 0)
        return rc;
    count_as_remainder(r, &er);
    if (r->groups_analysis + r->groups_remainder != r->groups_total) {
        snprintf(err, errlen, "the executor ran %llu workgroups in all, the launch has %llu",
                 (unsigned long long)(r->groups_analysis + r->groups_remainder), (unsigned long long)r->groups_total);
        return -EIO;
    }
    return 0;
}

/* ---- metric ----------------------------------------------------------------------------- */

static int counter_index(const gt_counter_status *cs, const char *name)
{
    for (unsigned i = 0; cs && i < cs->nused; i++)
        if (strstr(cs->used[i], name))
            return (int)i;
    return -1;
}

/* Picks the counters the asked metric needs, or falls back to time and says why. */
static void resolve_metric(const gt_tune_config *cfg, const gt_executor *exec, gt_tune_result *r, gt_metric_plan *m)
{
    static const char *const needs[][2] = {
        [GT_METRIC_TIME] = {NULL, NULL},
        [GT_METRIC_IPC] = {"PAPI_TOT_CYC", "PAPI_TOT_INS"},
        [GT_METRIC_L1] = {"PAPI_L1_DCM", NULL},
        [GT_METRIC_L2] = {"PAPI_L2_DCM", NULL},
        [GT_METRIC_ENERGY] = {"ENERGY", NULL},
    };
    m->metric = cfg->metric;
    m->num = m->den = -1;
    for (int i = 0; i < 2; i++) {
        const char *need = needs[cfg->metric][i];
        if (!need)
            continue;
        int idx = counter_index(exec->counters, need);
        if (idx < 0) {
            snprintf(r->metric_note, sizeof r->metric_note,
                     "the metric %s needs a %s counter, which is not counted here; using time per work-item",
                     gt_metric_name(cfg->metric), need);
            m->metric = GT_METRIC_TIME;
            m->num = m->den = -1;
            break;
        }
        *(i == 0 ? &m->num : &m->den) = idx;
    }
    r->metric = m->metric;
}

/* ---- plan -------------------------------------------------------------------------------- */

void gt_tune_wisdom_key(const gt_tune_launch *l, unsigned workers, gt_wisdom_key *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->kernel, sizeof k->kernel, "%s", l->kernel ? l->kernel : "");
    snprintf(k->kernel_hash, sizeof k->kernel_hash, "%s", l->kernel_hash ? l->kernel_hash : "");
    snprintf(k->machine, sizeof k->machine, "%s", l->machine ? l->machine : "");
    k->range = gt_range_normalized(&l->range);
    k->workers = workers;
}

/* A launch whose decision cannot be remembered still succeeded: its report says why. */
static void store_entry(gt_wisdom *w, const gt_wisdom_key *key, const gt_wisdom_entry *e, gt_tune_result *r)
{
    char why[sizeof r->wisdom_note - 40]; /* room for the sentence's start */
    if (gt_wisdom_store(w, key, e, why, sizeof why) < 0)
        snprintf(r->wisdom_note, sizeof r->wisdom_note, "the decision was not remembered: %s", why);
}

/* before: the entry whose analysis this launch resumed, NULL for a first analysis. */
static void record_wisdom(const gt_tune_config *cfg, gt_wisdom *w, const gt_wisdom_key *key,
                          const gt_tune_launch *launch, const gt_wisdom_entry *before, gt_tune_result *r)
{
    uint32_t grid[3];
    gt_range_groups(&launch->range, grid);
    if (before) /* the resumed analysis's gain is over the wisdom's winner, whose gain was over the default */
        r->estimated_gain = (1 + before->gain) * (1 + r->estimated_gain) - 1;
    gt_wisdom_entry e = {.schedule = r->winner, .cost = NAN, .gain = r->estimated_gain, .decided = (int64_t)time(NULL)};
    snprintf(e.metric, sizeof e.metric, "%s", gt_metric_name(r->metric));
    for (size_t i = 0; i < r->ncandidates; i++)
        if (gt_schedule_equal(&r->candidates[i].schedule, &r->winner))
            e.cost = r->candidates[i].median;
    gt_refine_start(cfg, r, grid, before, &e.refine);
    r->refine = (gt_refine_outcome){.ran = cfg->refine, .state = e.refine.state, .incumbent_cost = NAN};
    r->wisdom_changed = true;
    store_entry(w, key, &e, r);
}

/* The remainder's cost per work-item, from what run_remainder kept. */
static double remainder_cost(const gt_metric_plan *metric, const gt_tune_result *r)
{
    gt_exec_result er = {.wall_ns = r->remainder_ns, .groups = r->groups_remainder};
    memcpy(er.counters, r->remainder_counters, sizeof er.counters);
    return gt_metric_cost(metric, &er, r->groups_remainder * r->items_per_group);
}

/* Adds a batch's figures to a sum of batches. */
static void add_exec_result(gt_exec_result *sum, const gt_exec_result *er)
{
    sum->wall_ns += er->wall_ns;
    sum->groups += er->groups;
    for (unsigned i = 0; i < GT_COUNTERS_MAX; i++)
        sum->counters[i] += er->counters[i];
    sum->probed = er->probed;
    sum->probe.page_faults += er->probed ? er->probe.page_faults : 0;
}

/* Runs batch b, which holds `groups` workgroups (`what` names them in the error when the
   executor ran another number). */
static int run_counted(const gt_executor *exec, const gt_exec_batch *b, uint64_t groups, const char *what,
                       gt_exec_result *er, char *err, size_t errlen)
{
    *er = (gt_exec_result){0};
    int rc = groups ? exec->run(exec->ctx, b, er, err, errlen) : 0;
    if (rc == 0 && er->groups != groups) {
        snprintf(err, errlen, "the executor ran %llu workgroups of %s of %llu", (unsigned long long)er->groups, what,
                 (unsigned long long)groups);
        rc = -EIO;
    }
    return rc;
}

/* Runs the runs of st with schedule s; the executor must run every workgroup of them. */
static int run_stretch_of(const gt_executor *exec, const gt_schedule *s, const gt_stretch *st, gt_exec_result *er,
                          char *err, size_t errlen)
{
    gt_exec_batch b = {.schedule = *s, .runs = st->runs, .nruns = st->nruns};
    return run_counted(exec, &b, st->groups, "a stretch", er, err, errlen);
}

/* The winner on what is left of a share, in its own walk: the share's runs are the
   contender's spans, which the winner's span may not hold. Runs the workgroups of mine (the
   share's) not in seen (its head). */
static int run_rest_with_winner(const gt_executor *exec, const gt_schedule *winner, const uint8_t *mine,
                                const uint8_t *seen, uint64_t groups, uint64_t total, gt_exec_result *er,
                                char *err, size_t errlen)
{
    size_t bytes = (total + 7) / 8;
    uint8_t *skip = malloc(bytes);
    if (!skip) {
        snprintf(err, errlen, "out of memory running the rest of a contender's share");
        return -ENOMEM;
    }
    for (size_t i = 0; i < bytes; i++)
        skip[i] = (uint8_t)(~mine[i] | seen[i]);
    gt_exec_batch b = {.schedule = *winner, .skip = skip};
    int rc = run_counted(exec, &b, groups, "the rest of a share", er, err, errlen);
    free(skip);
    return rc;
}

/* A contender's share, run after the winner ran the rest of the launch: the stretch of its
   walk from start that the shares before it (in done, beside this share's own) left. A
   first share runs a piece of itself first (refine.h); when that piece costs
   GT_REFINE_HOPELESS times the winner's cost in this launch, the winner runs the share's rest
   (the contender's first share decides whether it stays, and this one would leave: a quarter
   of a launch at 2.6-7.7 times the winner's cost made copy_cols' refining launches 1.5-2.6
   times its settled ones, bench/results/refine-probe-2026-11-27/). Sets sh->cut_short then;
   *er is the contender's. */
static int run_share(const gt_executor *exec, gt_walks *walks, gt_refine_share *sh, bool first, uint64_t start,
                     const gt_stretch *share, const uint8_t *done, const gt_metric_plan *metric,
                     double incumbent_cost, gt_tune_result *r, gt_exec_result *er, char *err, size_t errlen)
{
    sh->cut_short = false;
    /* The smallest piece the winner would run in GT_REFINE_PROBE_MIN_NS or more: a hopeless
       contender costs the launch its piece times its excess (transpose's item=linear at a
       span of ~470, 11 times the winner's cost, took a quarter share: 1.6 times a launch); a
       shorter piece would weigh a batch's fixed cost (waking the workers) against the
       remainder's, which spreads it thin. */
    double group_ns = r->groups_remainder ? (double)r->remainder_ns / (double)r->groups_remainder : 0;
    uint64_t piece = 0;
    for (unsigned parts = GT_REFINE_PROBE_PARTS_MAX; first && parts >= GT_REFINE_PROBE_PARTS; parts /= 2)
        if (group_ns * (double)(share->groups / parts) >= GT_REFINE_PROBE_MIN_NS) {
            piece = share->groups / parts;
            break;
        }
    if (piece == 0)
        return run_stretch_of(exec, &sh->contender, share, er, err, errlen);
    size_t bytes = (r->groups_total + 7) / 8;
    gt_stretch head = {0}, rest = {0};
    uint8_t *mine = calloc(bytes, 1);  /* this share's workgroups */
    uint8_t *seen = malloc(bytes);     /* the other shares', then the head's too */
    int rc = mine && seen ? 0 : -ENOMEM;
    if (rc == 0)
        gt_stretch_mark(share, mine);
    for (size_t i = 0; rc == 0 && i < bytes; i++)
        seen[i] = (uint8_t)(done[i] & ~mine[i]);
    if (rc == 0)
        rc = gt_stretch_take(walks, &sh->contender, start, piece, seen, &head);
    if (rc == 0) {
        gt_stretch_mark(&head, seen);
        rc = run_stretch_of(exec, &sh->contender, &head, er, err, errlen);
    } else {
        snprintf(err, errlen, "cannot plan the contender's share of the launch: out of memory");
    }
    if (rc == 0)
        sh->cut_short =
            gt_metric_cost(metric, er, er->groups * r->items_per_group) > GT_REFINE_HOPELESS * incumbent_cost;
    gt_exec_result more;
    uint64_t left = share->groups - head.groups;
    if (rc == 0 && sh->cut_short) { /* the winner's, counted as the remainder's */
        rc = run_rest_with_winner(exec, &r->winner, mine, seen, left, r->groups_total, &more, err, errlen);
        if (rc == 0)
            count_as_remainder(r, &more);
    } else if (rc == 0) { /* the contender's: the share after its head */
        rc = gt_stretch_take(walks, &sh->contender, start, left, seen, &rest);
        if (rc < 0)
            snprintf(err, errlen, "cannot plan the contender's share of the launch: out of memory");
        else
            rc = run_stretch_of(exec, &sh->contender, &rest, &more, err, errlen);
        if (rc == 0)
            add_exec_result(er, &more);
    }
    gt_stretch_free(&head);
    gt_stretch_free(&rest);
    free(seen);
    free(mine);
    return rc;
}

/* How much a share's event says about the launch: a new winner most, then a contender that
   left, then a pair recorded. */
static int event_weight(int event)
{
    return event == GT_REFINE_EVENT_REPLACED ? 3
           : event == GT_REFINE_EVENT_DROPPED ? 2
           : event == GT_REFINE_EVENT_COMPARED ? 1
                                               : 0;
}

/* The shares' pairs go to the rules of refine.h, the contender with the highest index first
   (one that leaves moves those after it down); once one took the winner's place, the others'
   pairs were against a winner that no longer is, and are not kept (event none). The launch's
   event is the weightiest of theirs. */
static void record_pairs(const gt_tune_config *cfg, gt_wisdom_entry *e, const uint32_t grid[3],
                         const size_t picked[GT_REFINE_PER_LAUNCH], gt_refine_outcome *o)
{
    bool recorded[GT_REFINE_PER_LAUNCH] = {false}, replaced = false;
    o->event = GT_REFINE_EVENT_NONE;
    for (unsigned n = 0; n < o->nshares; n++) {
        unsigned top = 0;
        while (recorded[top])
            top++;
        for (unsigned i = top + 1; i < o->nshares; i++)
            if (!recorded[i] && picked[i] > picked[top])
                top = i;
        recorded[top] = true;
        gt_refine_share *sh = &o->shares[top];
        unsigned had = e->refine.contenders[picked[top]].n;
        sh->pairs = had < GT_REFINE_OBSERVATIONS ? had + 1 : had;
        sh->event = replaced ? GT_REFINE_EVENT_NONE
                             : gt_refine_record(cfg, e, grid, picked[top], sh->cost, o->incumbent_cost, &sh->p);
        replaced = replaced || sh->event == GT_REFINE_EVENT_REPLACED;
        if (event_weight(sh->event) > event_weight(o->event))
            o->event = sh->event;
    }
}

/* Why a contender left after its share (refine.c's three rules), as a clause. */
static void describe_drop(const gt_tune_config *cfg, const gt_refine_share *sh, char *out, size_t len)
{
    if (isfinite(sh->p))
        snprintf(out, len, ", and left: the winner beat it (p = %.2g over %u pairs)", sh->p, sh->pairs);
    else if (sh->pairs <= 1)
        snprintf(out, len, ", and left: no faster on its first share");
    else
        snprintf(out, len, ", and left: no gain of %.0f%% in sight over %u pairs", 100 * cfg->min_gain, sh->pairs);
}

/* "refining 3/12: the winner ran the launch but 2 shares: A ran (...); B began, ..." */
static void describe_refining(const gt_tune_config *cfg, gt_tune_result *r)
{
    const gt_refine_outcome *o = &r->refine;
    size_t at = (size_t)snprintf(r->reason, sizeof r->reason, "refining %u/%u: the winner ran the launch but %u %s",
                                 o->launch, cfg->refine_limit, o->nshares, o->nshares == 1 ? "share" : "shares");
    for (unsigned i = 0; i < o->nshares && at < sizeof r->reason; i++) {
        const gt_refine_share *sh = &o->shares[i];
        char text[GT_SCHEDULE_TEXT_MAX];
        char outcome[96] = "";
        gt_schedule_format(&sh->contender, text, sizeof text);
        if (sh->event == GT_REFINE_EVENT_REPLACED)
            snprintf(outcome, sizeof outcome, ", and replaced the winner");
        else if (sh->event == GT_REFINE_EVENT_DROPPED)
            describe_drop(cfg, sh, outcome, sizeof outcome);
        at += (size_t)snprintf(r->reason + at, sizeof r->reason - at, "%s %s %s (%.3g against %.3g %s)%s",
                               i ? ";" : ":", text,
                               sh->cut_short ? "began, so slowly that the winner ran the rest of its share" : "ran",
                               sh->cost, o->incumbent_cost, gt_metric_unit(r->metric), outcome);
    }
    if (o->settled_now && at < sizeof r->reason)
        snprintf(r->reason + at, sizeof r->reason - at, "; the entry settled");
}

/* A refining launch: the contenders whose turn it is (gt_refine_pick) run a stretch of their
   own walks holding a GT_REFINE_SHARE-th of the workgroups each, after the winner ran the
   rest, and each pair of costs goes to the rules of refine.h. The shares are accounted as the
   launch's analysis. */
static int refine_launch(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec,
                         const gt_metric_plan *metric, gt_wisdom *wisdom, const gt_wisdom_key *key,
                         gt_wisdom_entry *e, gt_tune_result *r, char *err, size_t errlen)
{
    size_t picked[GT_REFINE_PER_LAUNCH];
    gt_refine_outcome *o = &r->refine;
    *o = (gt_refine_outcome){.ran = true, .nshares = (unsigned)gt_refine_pick(&e->refine, picked)};
    uint64_t start[GT_REFINE_PER_LAUNCH];
    gt_stretch st[GT_REFINE_PER_LAUNCH] = {{0}};
    uint32_t grid[3];
    gt_range_groups(&launch->range, grid);
    size_t bytes = (r->groups_total + 7) / 8;
    uint8_t *done = calloc(bytes, 1);
    gt_walks *walks = gt_walks_create(grid);
    uint64_t share = r->groups_total / GT_REFINE_SHARE ? r->groups_total / GT_REFINE_SHARE : 1;
    int rc = done && walks ? 0 : -ENOMEM;
    r->groups_analysis = 0;
    for (unsigned i = 0; rc == 0 && i < o->nshares; i++) {
        gt_refine_share *sh = &o->shares[i];
        sh->contender = e->refine.contenders[picked[i]].schedule;
        sh->p = NAN;
        unsigned k = e->refine.launches * GT_REFINE_PER_LAUNCH + i; /* spread over the launches' shares */
        start[i] = (uint64_t)(gt_walk_share(k) * (double)gt_walk_positions(grid, sh->contender.span));
        rc = gt_stretch_take(walks, &sh->contender, start[i], share, done, &st[i]);
        if (rc == 0 && st[i].groups == 0) {
            o->nshares = i; /* a launch too small for another share */
            break;
        }
        if (rc == 0) {
            gt_stretch_mark(&st[i], done);
            r->groups_analysis += st[i].groups;
        }
    }
    if (rc < 0)
        snprintf(err, errlen, "cannot plan the contenders' shares of the launch: %s",
                 rc == -ENOMEM ? "out of memory" : "bad order or span");
    /* The winner runs the rest first, the contenders their shares last: a share run first cost
       the winner itself 0.5-4% more than the rest (bench/results/refine-share-aa-2026-11-26),
       a bias against every contender of the size of the minimum gain. */
    if (rc == 0)
        rc = run_remainder(exec, &r->winner, done, r, err, errlen);
    o->incumbent_cost = rc == 0 ? remainder_cost(metric, r) : NAN;
    gt_exec_result sum = {0};
    for (unsigned i = 0; rc == 0 && i < o->nshares; i++) {
        gt_exec_result er = {0};
        bool first = e->refine.contenders[picked[i]].n == 0; /* no pair is recorded before the end */
        rc = run_share(exec, walks, &o->shares[i], first, start[i], &st[i], done, metric,
                       o->incumbent_cost, r, &er, err, errlen);
        o->shares[i].cost = gt_metric_cost(metric, &er, er.groups * r->items_per_group);
        add_exec_result(&sum, &er);
    }
    if (rc == 0) {
        r->groups_analysis = sum.groups;
        r->analysis_ns = sum.wall_ns;
        r->analysis_page_faults = sum.probed ? sum.probe.page_faults : 0;
    }
    for (unsigned i = 0; i < GT_REFINE_PER_LAUNCH; i++)
        gt_stretch_free(&st[i]);
    gt_walks_destroy(walks);
    free(done);
    r->total_ns = r->analysis_ns + r->remainder_ns;
    if (rc < 0)
        return rc;
    record_pairs(cfg, e, grid, picked, o);
    o->settled_now = gt_refine_end_launch(cfg, e);
    o->state = e->refine.state;
    o->launch = e->refine.launches;
    r->wisdom_changed = true; /* pairs and a launch more at least: an executor's gridtuned must keep them */
    describe_refining(cfg, r);
    store_entry(wisdom, key, e, r);
    return 0;
}

/* A settled entry's launch ran the winner on all of it: the drift rule. */
static void after_settled_launch(const gt_tune_config *cfg, const gt_metric_plan *metric, gt_wisdom *wisdom,
                                 const gt_wisdom_key *key, gt_wisdom_entry *e, gt_tune_result *r)
{
    if (!cfg->refine)
        return;
    double cost = remainder_cost(metric, r);
    gt_refine_outcome *o = &r->refine;
    *o = (gt_refine_outcome){.ran = true, .incumbent_cost = cost};
    gt_wisdom_refine before = e->refine;
    o->event = gt_refine_check_drift(cfg, e, cost);
    o->state = e->refine.state;
    /* Most settled launches change nothing: no store (and its checks) on the launch path then.
       The first one sets the settled cost, and drifting ones count: those are kept. */
    r->wisdom_changed = memcmp(&before, &e->refine, sizeof before) != 0;
    if (r->wisdom_changed)
        store_entry(wisdom, key, e, r);
}

/* Analysis, then the remainder with its winner. before is the wisdom entry whose analysis this
   one resumes (r->winner is its winner; only its unexplored axes are analysed), or NULL. */
static int analyse_and_dispatch(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec,
                                const gt_metric_plan *metric, gt_wisdom *wisdom, const gt_wisdom_key *key,
                                const gt_wisdom_entry *before, gt_tune_result *r, char *err, size_t errlen)
{
    gt_tune_config analysed_cfg = *cfg;
    if (before)
        analysed_cfg.space.axes &= before->refine.unexplored;
    r->resumed = before != NULL;
    gt_sampler *sampler = NULL;
    int rc = gt_sampler_create(&analysed_cfg, launch, exec, metric, r, &sampler, err, errlen);
    bool analysed = rc == 0 && gt_sampler_ready(sampler);
    if (analysed) {
        rc = gt_strategy_run(&analysed_cfg, sampler, r, err, errlen);
        r->analysis_limit_ns = gt_sampler_time_limit(sampler, true);
    }
    if (rc == 0)
        rc = run_remainder(exec, &r->winner, gt_sampler_done(sampler), r, err, errlen);
    gt_sampler_destroy(sampler);
    r->total_ns = r->analysis_ns + r->remainder_ns;
    /* A default kept by analysis is remembered too, so the next launch skips analysis. The
       full configuration decides the contenders: the widest span whatever the resumed axes. */
    if (rc == 0 && analysed && wisdom) {
        record_wisdom(cfg, wisdom, key, launch, before, r);
    } else if (rc == 0 && before && wisdom) { /* a resumed analysis that did not pay is not tried again */
        gt_wisdom_entry e = *before;
        e.refine.unexplored = 0;
        if (e.refine.ncontenders == 0)
            e.refine.state = GT_REFINE_SETTLED;
        r->wisdom_changed = true;
        store_entry(wisdom, key, &e, r);
    }
    return rc;
}

int gt_tune_run(const gt_tune_config *cfg, const gt_tune_launch *launch, const gt_executor *exec, gt_wisdom *wisdom,
                gt_tune_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->winner = gt_schedule_default;
    r->estimated_gain = NAN;
    r->analysis_limit_ns = NAN;
    int rc = gt_tune_config_check(cfg, err, errlen);
    if (rc == 0)
        rc = gt_range_check(&launch->range, err, errlen);
    if (rc < 0)
        return rc;
    if (!exec || !exec->run || exec->workers == 0) {
        snprintf(err, errlen, "the tuner was given no executor to run the launch on");
        return -EINVAL;
    }
    r->groups_total = gt_range_group_count(&launch->range);
    r->items_per_group = gt_range_group_items(&launch->range);
    gt_metric_plan metric;
    resolve_metric(cfg, exec, r, &metric);

    gt_wisdom_key key;
    gt_tune_wisdom_key(launch, exec->workers, &key);
    bool keyed = wisdom && launch->kernel_hash && launch->machine;
    gt_wisdom_entry hit;

    if (cfg->forced) {
        r->source = GT_SOURCE_FORCED;
        r->winner = cfg->schedule;
        set_reason(r, "the launch asked for this schedule");
    } else if (cfg->mode == GT_TUNE_OFF) {
        r->source = GT_SOURCE_DEFAULT;
        set_reason(r, "tuning is off for this launch");
    } else if (cfg->mode == GT_TUNE_AUTO && keyed && gt_wisdom_lookup(wisdom, &key, &hit) &&
               !gt_refine_needs_analysis(cfg, &hit)) {
        r->source = GT_SOURCE_WISDOM;
        r->winner = hit.schedule;
        r->estimated_gain = hit.gain;
        if (gt_refine_resumes(cfg, &hit)) { /* the entry's analysis left axes unexplored */
            gt_tune_config full = gt_tune_config_for(cfg, exec);
            return analyse_and_dispatch(&full, launch, exec, &metric, wisdom, &key, &hit, r, err, errlen);
        }
        if (gt_refine_active(cfg, &hit))
            return refine_launch(cfg, launch, exec, &metric, wisdom, &key, &hit, r, err, errlen);
        set_reason(r, "the wisdom has this kernel, range and worker count on this machine");
        rc = run_remainder(exec, &r->winner, NULL, r, err, errlen);
        r->total_ns = r->analysis_ns + r->remainder_ns;
        if (rc == 0)
            after_settled_launch(cfg, &metric, wisdom, &key, &hit, r);
        return rc;
    } else {
        gt_tune_config analysed = gt_tune_config_for(cfg, exec);
        return analyse_and_dispatch(&analysed, launch, exec, &metric, keyed ? wisdom : NULL, &key, NULL, r, err,
                                    errlen);
    }
    rc = run_remainder(exec, &r->winner, NULL, r, err, errlen);
    r->total_ns = r->analysis_ns + r->remainder_ns;
    return rc;
}

gt_tune_config gt_tune_config_for(const gt_tune_config *cfg, const gt_executor *exec)
{
    gt_tune_config c = *cfg;
    if (exec->no_spans)
        c.space.axes &= ~(1u << GT_AXIS_SPAN);
    return c;
}

size_t gt_candidate_samples_used(const gt_candidate *c)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nsamples; k++)
        n += c->samples[k].used;
    return n;
}

size_t gt_tune_samples_used(const gt_tune_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ncandidates; i++)
        n += gt_candidate_samples_used(&r->candidates[i]);
    return n;
}

void gt_tune_result_free(gt_tune_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ncandidates; i++)
        free(r->candidates[i].samples);
    free(r->candidates);
    r->candidates = NULL;
    r->ncandidates = 0;
}
