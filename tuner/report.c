/* report.c: turns one launch's tuning result into the JSON report dashboards read.
 * The layout is schemas/report.schema.json; this file only translates, it decides nothing.
 * Every section is one short function, and every value goes through a helper that keeps the
 * printed JSON valid (null for NaN and infinities) and exact (large integers). */
#include "report.h"

#include "refine.h"
#include "stretch.h"

#include "grid.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define REPORT_FORMAT "gridtune-report"
#define REPORT_VERSION 1

/* Room for the longest fixed-size text field of the inputs (gt_tune_result.reason). */
#define TEXT_MAX 512

/* Adds item under key, or appends it to the array obj when key is NULL; the add_* helpers
 * below all follow that convention. An item that could not be added is freed here. */
static bool add_item(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* Every number goes through json.h: exact integers, null for NaN and infinities, in the tree
   itself, so whoever reads the tree before printing it sees the same values. */
static bool add_int(cJSON *obj, const char *key, int64_t v)
{
    return add_item(obj, key, gt_json_int(v));
}

static bool add_uint(cJSON *obj, const char *key, uint64_t v)
{
    return add_item(obj, key, gt_json_uint(v));
}

static bool add_real(cJSON *obj, const char *key, double v)
{
    return add_item(obj, key, gt_json_real(v));
}

static bool add_bool(cJSON *obj, const char *key, bool v)
{
    return add_item(obj, key, cJSON_CreateBool(v));
}

/* Text from a fixed-size field of cap bytes, read no further than cap even if unterminated. */
static bool add_text(cJSON *obj, const char *key, const char *s, size_t cap)
{
    char text[TEXT_MAX];
    size_t n = s ? strnlen(s, cap < sizeof text ? cap : sizeof text - 1) : 0;
    memcpy(text, s ? s : "", n);
    text[n] = '\0';
    return add_item(obj, key, cJSON_CreateString(text));
}

/* A caller's C string; NULL (not given) becomes "". */
static bool add_string(cJSON *obj, const char *key, const char *s)
{
    return add_item(obj, key, cJSON_CreateString(s ? s : ""));
}

/* A name from one of the *_name functions; an unknown value (NULL) becomes null, which the
 * schema then rejects, so the bug shows in validation instead of in a missing report. */
static bool add_name(cJSON *obj, const char *key, const char *name)
{
    return add_item(obj, key, name ? cJSON_CreateString(name) : cJSON_CreateNull());
}

static bool add_triple(cJSON *obj, const char *key, const uint64_t v[3])
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    return arr && add_uint(arr, NULL, v[0]) && add_uint(arr, NULL, v[1]) && add_uint(arr, NULL, v[2]);
}

static bool add_schedule(cJSON *obj, const char *key, const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    return add_item(obj, key, cJSON_CreateString(text));
}

/* Counter values keyed by the names of the counters read, in counters->used order. */
static bool add_counter_values(cJSON *obj, const char *key, const gt_counter_status *counters,
                               const int64_t values[GT_COUNTERS_MAX])
{
    cJSON *map = cJSON_AddObjectToObject(obj, key);
    if (!map)
        return false;
    unsigned n = counters ? counters->nused : 0;
    for (unsigned i = 0; i < n && i < GT_COUNTERS_MAX; i++) {
        char name[GT_COUNTER_NAME_MAX];
        snprintf(name, sizeof name, "%.*s", GT_COUNTER_NAME_MAX - 1, counters->used[i]);
        if (!add_int(map, name, values[i]))
            return false;
    }
    return true;
}

/* ---- sections ---------------------------------------------------------------------------- */

static bool add_header(cJSON *root, const gt_report_input *in)
{
    return add_string(root, "format", REPORT_FORMAT) &&
           add_int(root, "version", REPORT_VERSION) &&
           (!in->id || add_string(root, "id", in->id)) && add_int(root, "started", in->started);
}

static bool add_launch(cJSON *root, const gt_report_input *in)
{
    const gt_tune_launch *l = in->launch;
    gt_range r = gt_range_normalized(&l->range);
    const uint64_t global[3] = {r.global[0], r.global[1], r.global[2]};
    const uint64_t local[3] = {r.local[0], r.local[1], r.local[2]};
    cJSON *range;
    return add_string(root, "kernel", l->kernel) && add_string(root, "kernel_hash", l->kernel_hash) &&
           add_string(root, "machine", l->machine) &&
           add_string(root, "kernel_form", l->workgroup ? "workgroup" : "item") &&
           add_uint(root, "local_bytes", l->local_bytes) && (range = cJSON_AddObjectToObject(root, "range")) &&
           add_uint(range, "dims", r.dims) && add_triple(range, "global", global) &&
           add_triple(range, "local", local) && add_uint(root, "groups_total", in->result->groups_total) &&
           add_uint(root, "items_per_group", in->result->items_per_group) && add_uint(root, "workers", in->workers);
}

static bool add_unavailable(cJSON *list, const gt_counter_status *c)
{
    for (unsigned i = 0; i < c->nunavailable && i < GT_COUNTERS_UNAVAILABLE_MAX; i++) {
        cJSON *entry = cJSON_CreateObject();
        if (!add_item(list, NULL, entry) ||
            !add_text(entry, "name", c->unavailable[i].name, sizeof c->unavailable[i].name) ||
            !add_text(entry, "reason", c->unavailable[i].reason, sizeof c->unavailable[i].reason))
            return false;
    }
    return true;
}

/* Without a counter status nothing was counted: the costs come from the clock alone. */
bool gt_report_add_counters(cJSON *root, const gt_counter_status *c)
{
    cJSON *obj = cJSON_AddObjectToObject(root, "counters"), *used, *unavailable;
    if (!obj)
        return false;
    if (!c)
        return add_name(obj, "mode", gt_counter_mode_name(GT_COUNTERS_NONE)) && cJSON_AddArrayToObject(obj, "used") &&
               cJSON_AddArrayToObject(obj, "unavailable") &&
               add_string(obj, "note", "No counters were read; costs come from the wall clock alone.");
    if (!add_name(obj, "mode", gt_counter_mode_name(c->mode)) || !(used = cJSON_AddArrayToObject(obj, "used")))
        return false;
    for (unsigned i = 0; i < c->nused && i < GT_COUNTERS_MAX; i++)
        if (!add_text(used, NULL, c->used[i], sizeof c->used[i]))
            return false;
    return (unavailable = cJSON_AddArrayToObject(obj, "unavailable")) && add_unavailable(unavailable, c) &&
           add_text(obj, "note", c->note, sizeof c->note);
}

/* Without a probe status the executor had no probes at all. */
bool gt_report_add_probes(cJSON *root, const gt_probe_status *p)
{
    char summary[TEXT_MAX];
    gt_probe_status_summary(p, summary, sizeof summary);
    cJSON *obj = cJSON_AddObjectToObject(root, "probes");
    return obj && add_name(obj, "state", gt_probe_state_name(p ? p->state : GT_PROBES_UNAVAILABLE)) &&
           add_bool(obj, "page_faults", p && p->page_faults) && add_string(obj, "summary", summary);
}

static bool add_probe_figures(cJSON *obj, const gt_sample *s)
{
    if (!s->probed)
        return add_item(obj, "probe", cJSON_CreateNull());
    cJSON *p = cJSON_AddObjectToObject(obj, "probe");
    return p && add_uint(p, "involuntary_switches", s->probe.involuntary_switches) &&
           add_uint(p, "offcpu_ns", s->probe.offcpu_ns) && add_uint(p, "worst_offcpu_ns", s->worst_offcpu_ns) &&
           add_uint(p, "migrations", s->probe.migrations) &&
           add_uint(p, "page_faults", s->probe.page_faults);
}

static bool add_metric(cJSON *root, const gt_report_input *in)
{
    cJSON *obj = cJSON_AddObjectToObject(root, "metric");
    return obj && add_name(obj, "asked", gt_metric_name(in->config->metric)) &&
           add_name(obj, "used", gt_metric_name(in->result->metric)) &&
           add_name(obj, "unit", gt_metric_unit(in->result->metric)) &&
           add_text(obj, "note", in->result->metric_note, sizeof in->result->metric_note);
}

static bool add_style_names(cJSON *styles, gt_axis axis, uint32_t mask)
{
    cJSON *list = cJSON_AddArrayToObject(styles, gt_axis_name(axis));
    if (!list)
        return false;
    unsigned kinds = axis == GT_AXIS_ASSIGN ? GT_ASSIGN_KINDS : GT_ORDER_KINDS;
    for (unsigned k = 0; k < kinds; k++) {
        if (!(mask & (1u << k)))
            continue;
        const char *name = axis == GT_AXIS_ASSIGN ? gt_assign_kind_name((gt_assign_kind)k)
                                                  : gt_order_kind_name((gt_order_kind)k);
        if (!add_name(list, NULL, name))
            return false;
    }
    return true;
}

/* The candidate space: the axes analysis explores, in exploration order, and the styles of
 * every axis (also of an axis switched off, so a dashboard can show what was configured). */
static bool add_space(cJSON *tuning, const gt_space_config *s)
{
    cJSON *series = cJSON_AddObjectToObject(tuning, "series"), *styles;
    if (!series || !add_uint(series, "start", s->series.start) || !add_uint(series, "ratio", s->series.ratio) ||
        !add_uint(series, "limit", s->series.limit) || !add_item(tuning, "axes", gt_json_axes(s->axes)))
        return false;
    return (styles = cJSON_AddObjectToObject(tuning, "styles")) &&
           add_style_names(styles, GT_AXIS_ASSIGN, s->assign_styles) &&
           add_style_names(styles, GT_AXIS_ITEM, s->item_styles) &&
           add_style_names(styles, GT_AXIS_GROUP, s->group_styles);
}

static bool add_tuning(cJSON *root, const gt_tune_config *cfg)
{
    cJSON *obj = cJSON_AddObjectToObject(root, "tuning");
    return obj && add_name(obj, "mode", gt_tune_mode_name(cfg->mode)) &&
           add_name(obj, "strategy", gt_strategy_name(cfg->strategy)) && add_real(obj, "budget", cfg->budget) &&
           add_real(obj, "min_gain", cfg->min_gain) && add_uint(obj, "sample_ns", cfg->sample_ns) &&
           add_uint(obj, "min_samples", cfg->min_samples) && add_real(obj, "disturbed_share", cfg->disturbed_share) &&
           add_space(obj, &cfg->space);
}

/* positions: of the candidate's walk, the same for all its samples. */
static bool add_sample(cJSON *list, const gt_sample *s, uint64_t positions, const gt_counter_status *counters)
{
    cJSON *obj = cJSON_CreateObject();
    return add_item(list, NULL, obj) && add_name(obj, "kind", gt_sample_kind_name(s->kind)) &&
           add_uint(obj, "start", s->start) && add_uint(obj, "walk_positions", positions) &&
           add_uint(obj, "runs", s->runs) && add_uint(obj, "round", s->round) &&
           add_uint(obj, "groups", s->groups) && add_uint(obj, "items", s->items) &&
           add_uint(obj, "wall_ns", s->wall_ns) && add_real(obj, "cost_per_item", s->cost) &&
           add_bool(obj, "used", s->used) && add_bool(obj, "disturbed", s->disturbed) &&
           add_probe_figures(obj, s) && add_counter_values(obj, "counters", counters, s->counters);
}

static bool add_summary(cJSON *cand, const gt_candidate *c)
{
    cJSON *obj = cJSON_AddObjectToObject(cand, "summary");
    return obj && add_uint(obj, "samples_used", gt_candidate_samples_used(c)) && add_real(obj, "median", c->median) &&
           add_real(obj, "min", c->min) && add_real(obj, "max", c->max);
}

static bool add_candidate(cJSON *list, const gt_candidate *c, const uint32_t grid[3],
                          const gt_counter_status *counters)
{
    uint64_t positions = gt_walk_positions(grid, c->schedule.span);
    cJSON *obj = cJSON_CreateObject(), *samples;
    if (!add_item(list, NULL, obj) || !add_schedule(obj, "schedule", &c->schedule) ||
        !add_text(obj, "style", c->style, sizeof c->style) || !add_name(obj, "axis", gt_axis_name((gt_axis)c->phase)) ||
        !add_bool(obj, "eliminated", c->eliminated) || !(samples = cJSON_AddArrayToObject(obj, "samples")))
        return false;
    for (size_t i = 0; i < c->nsamples; i++)
        if (!add_sample(samples, &c->samples[i], positions, counters))
            return false;
    return add_summary(obj, c);
}

static bool add_candidates(cJSON *root, const gt_report_input *in)
{
    cJSON *list = cJSON_AddArrayToObject(root, "candidates");
    if (!list)
        return false;
    uint32_t grid[3];
    gt_range_groups(&in->launch->range, grid);
    for (size_t i = 0; i < in->result->ncandidates; i++)
        if (!add_candidate(list, &in->result->candidates[i], grid, in->counters))
            return false;
    return true;
}

static bool add_confirmation(cJSON *obj, const gt_tune_result *r)
{
    const gt_confirmation *cf = &r->confirmation;
    if (!cf->ran)
        return add_item(obj, "confirmation", cJSON_CreateNull());
    cJSON *c = cJSON_AddObjectToObject(obj, "confirmation");
    return c && add_schedule(c, "incumbent", &r->candidates[cf->incumbent].schedule) &&
           add_schedule(c, "challenger", &r->candidates[cf->challenger].schedule) &&
           add_uint(c, "challenger_samples", cf->test.na) && add_uint(c, "incumbent_samples", cf->test.nb) &&
           add_real(c, "u", cf->test.u) && add_real(c, "p", cf->test.p) && add_bool(c, "exact", cf->test.exact) &&
           add_bool(c, "replaced", cf->replaced) && add_bool(c, "out_of_reach", cf->out_of_reach);
}

static bool add_refine(cJSON *obj, const gt_tune_result *r)
{
    const gt_refine_outcome *o = &r->refine;
    if (!o->ran)
        return add_item(obj, "refine", cJSON_CreateNull());
    cJSON *c = cJSON_AddObjectToObject(obj, "refine");
    cJSON *shares = c ? cJSON_AddArrayToObject(c, "shares") : NULL;
    for (unsigned i = 0; shares && i < o->nshares; i++) {
        const gt_refine_share *sh = &o->shares[i];
        cJSON *s = cJSON_CreateObject();
        if (!add_item(shares, NULL, s) || !add_schedule(s, "contender", &sh->contender) ||
            !add_real(s, "cost", sh->cost) || !add_bool(s, "cut_short", sh->cut_short) ||
            !add_name(s, "event", gt_refine_event_name((gt_refine_event)sh->event)) || !add_real(s, "p", sh->p))
            return false;
    }
    return shares && add_name(c, "state", gt_refine_state_name((gt_refine_state)o->state)) &&
           add_name(c, "event", gt_refine_event_name((gt_refine_event)o->event)) &&
           add_uint(c, "launch", o->launch) && add_bool(c, "settled_now", o->settled_now) &&
           add_real(c, "incumbent_cost", o->incumbent_cost);
}

static bool add_decision(cJSON *root, const gt_tune_result *r)
{
    cJSON *obj = cJSON_AddObjectToObject(root, "decision");
    return obj && add_schedule(obj, "winner", &r->winner) && add_confirmation(obj, r) && add_refine(obj, r) &&
           add_bool(obj, "resumed", r->resumed) && add_item(obj, "unexplored", gt_json_axes(r->unexplored)) &&
           add_name(obj, "source", gt_decision_source_name(r->source)) &&
           add_text(obj, "reason", r->reason, sizeof r->reason) &&
           add_text(obj, "wisdom_note", r->wisdom_note, sizeof r->wisdom_note);
}

/* The phases' page faults, or null when no probe counted them. */
static bool add_page_faults(cJSON *obj, const gt_report_input *in)
{
    const gt_tune_result *r = in->result;
    if (!in->probes || in->probes->state != GT_PROBES_ON || !in->probes->page_faults || !r->remainder_probed)
        return add_item(obj, "page_faults", cJSON_CreateNull());
    cJSON *p = cJSON_AddObjectToObject(obj, "page_faults");
    return p && add_uint(p, "analysis", r->analysis_page_faults) && add_uint(p, "remainder", r->remainder_page_faults);
}

static bool add_phases(cJSON *root, const gt_report_input *in)
{
    const gt_tune_result *r = in->result;
    /* A checked range has at least one workgroup; 0 only guards the division. */
    double fraction = r->groups_total ? (double)r->groups_analysis / (double)r->groups_total : 0.0;
    cJSON *obj = cJSON_AddObjectToObject(root, "phases");
    return obj && add_uint(obj, "groups_analysis", r->groups_analysis) &&
           add_uint(obj, "groups_remainder", r->groups_remainder) && add_real(obj, "analysis_fraction", fraction) &&
           add_uint(obj, "analysis_ns", r->analysis_ns) && add_real(obj, "analysis_limit_ns", r->analysis_limit_ns) &&
           add_uint(obj, "remainder_ns", r->remainder_ns) &&
           add_uint(obj, "total_ns", r->total_ns) && add_uint(obj, "disturbed_samples", r->disturbed_samples) &&
           add_uint(obj, "remeasured", r->remeasured) && add_bool(obj, "steady_contention", r->steady_contention) &&
           add_counter_values(obj, "remainder_counters", in->counters, r->remainder_counters) &&
           add_page_faults(obj, in);
}

cJSON *gt_report_build(const gt_report_input *in)
{
    if (!in || !in->config || !in->launch || !in->result)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    if (!add_header(root, in) || !add_launch(root, in) || !gt_report_add_counters(root, in->counters) ||
        !gt_report_add_probes(root, in->probes) ||
        !add_metric(root, in) || !add_tuning(root, in->config) || !add_candidates(root, in) ||
        !add_decision(root, in->result) || !add_phases(root, in) ||
        !add_real(root, "estimated_gain", in->result->estimated_gain)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
