/* test_report.c: the launch report built from hand-made tuning results: every field a dashboard
 * reads, null for what was not measured, counters keyed by name, the analysis fraction.
 * Each case's report is printed, parsed back and checked as a dashboard would see it. With a
 * directory as argv[1], each case's report is also written there as NAME.json, so that
 * tests/fixtures/check_schema.py can validate them against schemas/report.schema.json. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tuner/refine.h"
#include "tuner/report.h"
#include "tuner/report_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *out_dir; /* argv[1], or NULL: reports are not written */

/* One launch to report on, with storage for everything the input points to. */
typedef struct report_case {
    gt_tune_config cfg;
    gt_tune_launch launch;
    gt_tune_result result;
    gt_counter_status counters;
    gt_probe_status probes;
    gt_candidate candidates[3];
    gt_sample samples[3][3];
    gt_report_input in;
    cJSON *report; /* as built */
    char *text;    /* the printed report */
    cJSON *doc; /* the printed report parsed back */
} report_case;

/* ---- building the cases ------------------------------------------------------------------ */

static gt_schedule schedule_of(const char *text)
{
    gt_schedule s;
    char err[256];
    if (gt_schedule_parse(text, &s, err, sizeof err) != 0)
        fail_msg("bad schedule in the test: %s", err);
    return s;
}

static gt_sample sample_at(uint32_t x, unsigned round, double cost, bool used)
{
    gt_sample s = {
        .kind = used ? GT_SAMPLE_SIZED : GT_SAMPLE_CALIBRATION,
        .start = x,
        .runs = 32,
        .round = round,
        .groups = 32,
        .items = 32 * 128,
        .wall_ns = (uint64_t)(cost * 32 * 128),
        .cost = cost,
        .used = used,
        .counters = {1000 + x, 2000 + x},
    };
    return s;
}

static void set_candidate(report_case *c, size_t i, const char *schedule, const char *style, gt_axis axis,
                          size_t nsamples, double median, double min, double max)
{
    gt_candidate *cand = &c->candidates[i];
    cand->schedule = schedule_of(schedule);
    snprintf(cand->style, sizeof cand->style, "%s", style);
    cand->phase = axis;
    cand->nsamples = nsamples;
    cand->samples = c->samples[i];
    cand->median = median;
    cand->min = min;
    cand->max = max;
}

static void set_hardware_counters(gt_counter_status *s)
{
    memset(s, 0, sizeof *s);
    s->mode = GT_COUNTERS_HARDWARE;
    s->nused = 2;
    snprintf(s->used[0], sizeof s->used[0], "PAPI_TOT_CYC");
    snprintf(s->used[1], sizeof s->used[1], "PAPI_TOT_INS");
    s->nunavailable = 1;
    snprintf(s->unavailable[0].name, sizeof s->unavailable[0].name, "PAPI_L1_DCM");
    snprintf(s->unavailable[0].reason, sizeof s->unavailable[0].reason, "Event does not exist");
    snprintf(s->note, sizeof s->note, "Counting 2 of the 3 events asked for in hardware.");
}

/* A 1024 x 512 range in 16 x 8 workgroups: 64 x 64 = 4096 groups of 128 work-items. The
 * third sizes are garbage on purpose: a 2-D range ignores them. */
static void set_launch(report_case *c)
{
    c->launch = (gt_tune_launch){
        .kernel = "transpose",
        .kernel_hash = "0123456789abcdef",
        .machine = "00000000feedbeef",
        .range = {.dims = 2, .global = {1024, 512, 7}, .local = {16, 8, 9}},
    };
}

static void set_config(gt_tune_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = GT_TUNE_AUTO;
    cfg->strategy = GT_STRATEGY_RACING;
    cfg->metric = GT_METRIC_TIME;
    cfg->budget = 0.1;
    cfg->min_gain = 0.03;
    cfg->sample_ns = 250000;
    cfg->min_samples = 2;
    cfg->disturbed_share = 0.1;
    cfg->space.series = (gt_series){.start = 2, .ratio = 4, .limit = 64};
    cfg->space.axes = 1u << GT_AXIS_ITEM | 1u << GT_AXIS_GROUP;
    cfg->space.group_styles = 1u << GT_ORDER_LINEAR | 1u << GT_ORDER_TILED | 1u << GT_ORDER_HILBERT;
    cfg->space.item_styles = 1u << GT_ORDER_LINEAR | 1u << GT_ORDER_TILED;
    cfg->space.assign_styles = 1u << GT_ASSIGN_BLOCK | 1u << GT_ASSIGN_DYNAMIC;
    cfg->schedule = gt_schedule_default;
}

/* The fields every case shares; the decision and the candidates are the case's own. */
static void set_common(report_case *c)
{
    memset(c, 0, sizeof *c);
    set_config(&c->cfg);
    set_launch(c);
    set_hardware_counters(&c->counters);
    c->result.metric = GT_METRIC_TIME;
    c->result.groups_total = 4096;
    c->result.items_per_group = 128;
    c->in = (gt_report_input){
        .config = &c->cfg,
        .launch = &c->launch,
        .result = &c->result,
        .counters = &c->counters,
        .workers = 2,
        .id = "launch-7",
        .started = 1700000000123,
    };
}

/* Analysis of three candidates: the default (with the unused calibration sample first), the
 * winner item=tiled:4x4, and a Hilbert group order the race eliminated after one sample. */
static void set_analysis(report_case *c)
{
    set_common(c);
    set_candidate(c, 0, "group=linear,item=linear,assign=dynamic:1", "item=linear", GT_AXIS_ITEM, 3, 2.0, 1.9, 2.1);
    c->samples[0][0] = sample_at(0, 0, 2.5, false);
    c->samples[0][1] = sample_at(8, 1, 1.9, true);
    c->samples[0][2] = sample_at(24, 2, 2.1, true);
    set_candidate(c, 1, "group=linear,item=tiled:4x4,assign=dynamic:1", "item=tiled", GT_AXIS_ITEM, 2, 1.25, 1.2, 1.3);
    c->samples[1][0] = sample_at(16, 1, 1.2, true);
    c->samples[1][1] = sample_at(32, 2, 1.3, true);
    set_candidate(c, 2, "group=hilbert,item=tiled:4x4,assign=dynamic:1", "group=hilbert", GT_AXIS_GROUP, 1, 1.75,
                  1.75, 1.75);
    c->samples[2][0] = sample_at(40, 3, 1.75, true);
    c->samples[2][0].kind = GT_SAMPLE_GLANCE; /* its look ended after the first quarter */
    c->candidates[2].eliminated = true;

    gt_tune_result *r = &c->result;
    r->source = GT_SOURCE_ANALYSIS;
    snprintf(r->reason, sizeof r->reason, "item=tiled:4x4 beat the default by 60%% over 2 rounds.");
    r->winner = c->candidates[1].schedule;
    r->candidates = c->candidates;
    r->ncandidates = 3;
    r->groups_analysis = 320;
    r->groups_remainder = 3776;
    r->analysis_ns = 1500000;
    r->remainder_ns = 18000000;
    r->total_ns = 19500000;
    r->remainder_counters[0] = 123456789;
    r->remainder_counters[1] = 98765432;
    r->estimated_gain = 0.6;
    r->confirmation = (gt_confirmation){.ran = true, .incumbent = 1, .challenger = 0, .out_of_reach = true,
                                        .test = {.na = 4, .nb = 3, .u = 1.5, .p = 0.9, .exact = false}};
}

static void set_wisdom_hit(report_case *c)
{
    set_common(c);
    gt_tune_result *r = &c->result;
    r->refine = (gt_refine_outcome){.ran = true, .state = GT_REFINE_REFINING, .event = GT_REFINE_EVENT_DROPPED,
                                    .launch = 3, .nshares = 2, .incumbent_cost = 1.25};
    r->refine.shares[0] = (gt_refine_share){.contender = schedule_of("group=column,item=column,assign=block"),
                                            .cost = 1.5, .p = NAN, .event = GT_REFINE_EVENT_COMPARED};
    r->refine.shares[1] = (gt_refine_share){.contender = schedule_of("group=linear,span=16,item=linear,assign=block"),
                                            .cost = 4.0, .cut_short = true, .p = NAN,
                                            .event = GT_REFINE_EVENT_DROPPED};
    r->source = GT_SOURCE_WISDOM;
    snprintf(r->reason, sizeof r->reason, "The wisdom has this kernel, range shape, worker count and machine.");
    r->winner = schedule_of("group=linear,item=tiled:4x4,assign=dynamic:1");
    r->groups_remainder = 4096;
    r->remainder_ns = 18500000;
    r->total_ns = 18500000;
    r->estimated_gain = 0.35;
}

static void set_forced(report_case *c)
{
    set_common(c);
    c->cfg.mode = GT_TUNE_OFF;
    c->cfg.forced = true;
    c->cfg.schedule = schedule_of("group=hilbert,item=linear,assign=stealing");
    gt_tune_result *r = &c->result;
    r->source = GT_SOURCE_FORCED;
    snprintf(r->reason, sizeof r->reason, "The client forced this schedule.");
    r->winner = c->cfg.schedule;
    r->groups_remainder = 4096;
    r->remainder_ns = 30000000;
    r->total_ns = 30000000;
    r->estimated_gain = NAN;
}

/* One workgroup of 64 work-items: nothing to analyse, the default runs it. */
static void set_too_small(report_case *c)
{
    set_common(c);
    c->launch.range = (gt_range){.dims = 1, .global = {64, 0, 0}, .local = {64, 0, 0}};
    gt_tune_result *r = &c->result;
    r->source = GT_SOURCE_DEFAULT;
    snprintf(r->reason, sizeof r->reason, "The launch has 1 workgroup, too few to analyse; the default runs it.");
    r->winner = gt_schedule_default;
    r->groups_total = 1;
    r->items_per_group = 64;
    r->groups_remainder = 1;
    r->remainder_ns = 4000;
    r->total_ns = 4000;
    r->estimated_gain = NAN;
}

/* The VM case: no hardware event, the task clock instead; IPC was asked, time was used. */
static void set_software(report_case *c)
{
    set_wisdom_hit(c);
    gt_counter_status *s = &c->counters;
    memset(s, 0, sizeof *s);
    s->mode = GT_COUNTERS_SOFTWARE;
    s->nused = 1;
    snprintf(s->used[0], sizeof s->used[0], "perf::TASK-CLOCK");
    s->nunavailable = 2;
    snprintf(s->unavailable[0].name, sizeof s->unavailable[0].name, "PAPI_TOT_CYC");
    snprintf(s->unavailable[0].reason, sizeof s->unavailable[0].reason, "Event does not exist");
    snprintf(s->unavailable[1].name, sizeof s->unavailable[1].name, "PAPI_TOT_INS");
    snprintf(s->unavailable[1].reason, sizeof s->unavailable[1].reason, "Event does not exist");
    snprintf(s->note, sizeof s->note, "No hardware event could be counted; using perf::TASK-CLOCK.");
    c->cfg.metric = GT_METRIC_IPC;
    c->result.metric = GT_METRIC_TIME;
    snprintf(c->result.metric_note, sizeof c->result.metric_note,
             "ipc needs PAPI_TOT_CYC and PAPI_TOT_INS, which are not counted; using time.");
    c->result.remainder_counters[0] = 36000000;
}

/* Analysis that measured nothing usable: the default's only sample was not finite, so its
 * statistics and the gain are NaN. */
static void set_nan_gain(report_case *c)
{
    set_analysis(c);
    c->samples[0][1].cost = INFINITY;
    c->samples[0][1].used = false;
    c->samples[0][2].cost = NAN;
    c->samples[0][2].used = false;
    c->candidates[0].median = c->candidates[0].min = c->candidates[0].max = NAN;
    c->result.estimated_gain = NAN;
}

/* Probes on: every sample has figures; in the default's second sample (7782 ns) the workers
 * lost 9000 ns to another task, 6000 of them one worker's, so it is disturbed and unused, and
 * was measured again. */
static void set_probed(report_case *c)
{
    set_analysis(c);
    c->probes = (gt_probe_status){.state = GT_PROBES_ON, .page_faults = true};
    snprintf(c->probes.reason, sizeof c->probes.reason, "raw tracepoints sched_switch");
    c->in.probes = &c->probes;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < c->candidates[i].nsamples; j++) {
            c->samples[i][j].probed = true;
            c->samples[i][j].probe.page_faults = 3;
        }
    gt_sample *d = &c->samples[0][1];
    d->disturbed = true;
    d->used = false;
    d->worst_offcpu_ns = 6000;
    d->probe = (gt_probe_figures){.involuntary_switches = 4, .offcpu_ns = 9000, .migrations = 1,
                                  .page_faults = 7};
    c->result.disturbed_samples = 1;
    c->result.remeasured = 1;
    c->result.remainder_probed = true;
    c->result.analysis_page_faults = 40;
    c->result.remainder_page_faults = 8192;
}

static void set_probes_unavailable(report_case *c)
{
    set_wisdom_hit(c);
    c->probes = (gt_probe_status){.state = GT_PROBES_UNAVAILABLE};
    snprintf(c->probes.reason, sizeof c->probes.reason, "no kernel BTF at /sys/kernel/btf/vmlinux");
    c->in.probes = &c->probes;
}

static void set_no_counters(report_case *c)
{
    set_analysis(c);
    c->in.counters = NULL;
    c->in.id = NULL;
}

/* Counter values beyond what a double holds exactly. */
static void set_large_counters(report_case *c)
{
    set_analysis(c);
    c->result.remainder_counters[0] = INT64_MAX;
    c->result.remainder_counters[1] = INT64_MIN;
    c->samples[1][0].counters[0] = 9007199254740993; /* 2^53 + 1 */
}

/* ---- building, printing and reading the report ------------------------------------------ */

static void write_report(const char *name, const char *text)
{
    if (!out_dir)
        return;
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        fail_msg("cannot create %s: %s", out_dir, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    bool ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (fclose(f) != 0 || !ok)
        fail_msg("cannot write %s", path);
}

static int build(void **state, const char *name, void (*set)(report_case *))
{
    report_case *c = calloc(1, sizeof *c);
    assert_non_null(c);
    set(c);
    c->report = gt_report_build(&c->in);
    assert_non_null(c->report);
    c->text = cJSON_Print(c->report);
    assert_non_null(c->text);
    write_report(name, c->text);
    c->doc = cJSON_Parse(c->text); /* fails on NaN or any other invalid JSON */
    if (!c->doc)
        fail_msg("the %s report is not valid JSON:\n%s", name, c->text);
    *state = c;
    return 0;
}

static int analysis(void **state) { return build(state, "analysis", set_analysis); }
static int wisdom_hit(void **state) { return build(state, "wisdom_hit", set_wisdom_hit); }
static int forced(void **state) { return build(state, "forced", set_forced); }
static int too_small(void **state) { return build(state, "too_small", set_too_small); }
static int software(void **state) { return build(state, "software_counters", set_software); }
static int nan_gain(void **state) { return build(state, "nan_gain", set_nan_gain); }
static int no_counters(void **state) { return build(state, "no_counters", set_no_counters); }
static int large_counters(void **state) { return build(state, "large_counters", set_large_counters); }
static int probed(void **state) { return build(state, "probed", set_probed); }
static int probes_unavailable(void **state) { return build(state, "probes_unavailable", set_probes_unavailable); }

static int teardown(void **state)
{
    report_case *c = *state;
    if (c) {
        cJSON_Delete(c->doc);
        free(c->text);
        cJSON_Delete(c->report);
        free(c);
    }
    return 0;
}

/* The field at a dotted path, numbers indexing arrays: "candidates.1.samples.0.used". */
static const cJSON *at(void **state, const char *path)
{
    const cJSON *node = ((report_case *)*state)->doc;
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", path);
    for (char *key = strtok_r(copy, ".", &save); key && node; key = strtok_r(NULL, ".", &save)) {
        char *end;
        long index = strtol(key, &end, 10);
        node = *end == '\0' && cJSON_IsArray(node) ? cJSON_GetArrayItem(node, (int)index)
                                                   : cJSON_GetObjectItemCaseSensitive(node, key);
    }
    if (!node)
        fail_msg("the report has no %s", path);
    return node;
}

static void assert_number(void **state, const char *path, double expected)
{
    const cJSON *n = at(state, path);
    if (!cJSON_IsNumber(n))
        fail_msg("%s is not a number", path);
    if (fabs(n->valuedouble - expected) > 1e-12 * fmax(1.0, fabs(expected)))
        fail_msg("%s is %.17g, expected %.17g", path, n->valuedouble, expected);
}

static void assert_text(void **state, const char *path, const char *expected)
{
    const cJSON *s = at(state, path);
    if (!cJSON_IsString(s))
        fail_msg("%s is not a string", path);
    assert_string_equal(s->valuestring, expected);
}

static void assert_bool(void **state, const char *path, bool expected)
{
    const cJSON *b = at(state, path);
    if (!cJSON_IsBool(b))
        fail_msg("%s is not a boolean", path);
    assert_int_equal(cJSON_IsTrue(b), expected);
}

static void assert_null_at(void **state, const char *path)
{
    if (!cJSON_IsNull(at(state, path)))
        fail_msg("%s is not null", path);
}

static void assert_size(void **state, const char *path, int expected)
{
    const cJSON *v = at(state, path);
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        fail_msg("%s is neither an array nor an object", path);
    assert_int_equal(cJSON_GetArraySize(v), expected);
}

static const char *printed(void **state)
{
    return ((report_case *)*state)->text;
}

/* ---- the header and the launch ----------------------------------------------------------- */

static void header_names_format_version_id_and_start(void **state)
{
    assert_text(state, "format", "gridtune-report");
    assert_number(state, "version", 1);
    assert_text(state, "id", "launch-7");
    assert_number(state, "started", 1700000000123.0);
}

static void launch_names_kernel_machine_and_workers(void **state)
{
    assert_text(state, "kernel", "transpose");
    assert_text(state, "kernel_hash", "0123456789abcdef");
    assert_text(state, "machine", "00000000feedbeef");
    assert_number(state, "workers", 2);
    assert_number(state, "groups_total", 4096);
    assert_number(state, "items_per_group", 128);
}

static void range_sizes_beyond_its_dimensions_are_one(void **state)
{
    assert_number(state, "range.dims", 2);
    assert_size(state, "range.global", 3);
    assert_number(state, "range.global.0", 1024);
    assert_number(state, "range.global.1", 512);
    assert_number(state, "range.global.2", 1);
    assert_number(state, "range.local.0", 16);
    assert_number(state, "range.local.1", 8);
    assert_number(state, "range.local.2", 1);
}

/* ---- configuration, metric and counters -------------------------------------------------- */

static void tuning_reports_the_configuration(void **state)
{
    assert_text(state, "tuning.mode", "auto");
    assert_text(state, "tuning.strategy", "racing");
    assert_number(state, "tuning.budget", 0.1);
    assert_number(state, "tuning.min_gain", 0.03);
    assert_number(state, "tuning.sample_ns", 250000);
    assert_number(state, "tuning.min_samples", 2);
    assert_number(state, "tuning.series.start", 2);
    assert_number(state, "tuning.series.ratio", 4);
    assert_number(state, "tuning.series.limit", 64);
}

static void tuning_names_explored_axes_and_styles(void **state)
{
    assert_size(state, "tuning.axes", 2);
    assert_text(state, "tuning.axes.0", "item");
    assert_text(state, "tuning.axes.1", "group");
    assert_size(state, "tuning.styles.assign", 2);
    assert_text(state, "tuning.styles.assign.0", "block");
    assert_text(state, "tuning.styles.assign.1", "dynamic");
    assert_size(state, "tuning.styles.item", 2);
    assert_text(state, "tuning.styles.item.1", "tiled");
    assert_size(state, "tuning.styles.group", 3);
    assert_text(state, "tuning.styles.group.0", "linear");
    assert_text(state, "tuning.styles.group.1", "tiled");
    assert_text(state, "tuning.styles.group.2", "hilbert");
}

static void metric_without_replacement_has_empty_note(void **state)
{
    assert_text(state, "metric.asked", "time");
    assert_text(state, "metric.used", "time");
    assert_text(state, "metric.unit", gt_metric_unit(GT_METRIC_TIME));
    assert_text(state, "metric.note", "");
}

static void replaced_metric_names_both_and_says_why(void **state)
{
    assert_text(state, "metric.asked", "ipc");
    assert_text(state, "metric.used", "time");
    assert_text(state, "metric.unit", gt_metric_unit(GT_METRIC_TIME));
    assert_text(state, "metric.note", "ipc needs PAPI_TOT_CYC and PAPI_TOT_INS, which are not counted; using time.");
}

static void hardware_counters_list_used_and_unavailable(void **state)
{
    assert_text(state, "counters.mode", "hardware");
    assert_size(state, "counters.used", 2);
    assert_text(state, "counters.used.0", "PAPI_TOT_CYC");
    assert_text(state, "counters.used.1", "PAPI_TOT_INS");
    assert_size(state, "counters.unavailable", 1);
    assert_text(state, "counters.unavailable.0.name", "PAPI_L1_DCM");
    assert_text(state, "counters.unavailable.0.reason", "Event does not exist");
    assert_text(state, "counters.note", "Counting 2 of the 3 events asked for in hardware.");
}

static void software_counters_give_each_unavailable_event_its_reason(void **state)
{
    assert_text(state, "counters.mode", "software");
    assert_size(state, "counters.used", 1);
    assert_text(state, "counters.used.0", "perf::TASK-CLOCK");
    assert_size(state, "counters.unavailable", 2);
    assert_text(state, "counters.unavailable.0.name", "PAPI_TOT_CYC");
    assert_text(state, "counters.unavailable.0.reason", "Event does not exist");
    assert_text(state, "counters.unavailable.1.name", "PAPI_TOT_INS");
    assert_text(state, "counters.unavailable.1.reason", "Event does not exist");
    assert_text(state, "counters.note", "No hardware event could be counted; using perf::TASK-CLOCK.");
    assert_size(state, "phases.remainder_counters", 1);
    assert_number(state, "phases.remainder_counters.perf::TASK-CLOCK", 36000000);
}

static void missing_counter_status_reports_mode_none_and_empty_values(void **state)
{
    assert_text(state, "counters.mode", "none");
    assert_size(state, "counters.used", 0);
    assert_size(state, "counters.unavailable", 0);
    assert_true(strlen(at(state, "counters.note")->valuestring) > 0);
    assert_size(state, "candidates.0.samples.1.counters", 0);
    assert_size(state, "phases.remainder_counters", 0);
}

static void absent_id_is_omitted(void **state)
{
    assert_null(cJSON_GetObjectItemCaseSensitive(((report_case *)*state)->doc, "id"));
}

/* ---- candidates and samples -------------------------------------------------------------- */

static void every_candidate_is_listed_in_order(void **state)
{
    assert_size(state, "candidates", 3);
    assert_text(state, "candidates.0.schedule", "group=linear,item=linear,assign=dynamic:1");
    assert_text(state, "candidates.0.style", "item=linear");
    assert_text(state, "candidates.0.axis", "item");
    assert_text(state, "candidates.1.schedule", "group=linear,item=tiled:4x4,assign=dynamic:1");
    assert_text(state, "candidates.1.style", "item=tiled");
    assert_text(state, "candidates.2.schedule", "group=hilbert,item=tiled:4x4,assign=dynamic:1");
    assert_text(state, "candidates.2.style", "group=hilbert");
    assert_text(state, "candidates.2.axis", "group");
}

static void eliminated_candidate_is_marked(void **state)
{
    assert_bool(state, "candidates.0.eliminated", false);
    assert_bool(state, "candidates.1.eliminated", false);
    assert_bool(state, "candidates.2.eliminated", true);
    assert_size(state, "candidates.2.samples", 1);
    assert_text(state, "candidates.2.samples.0.kind", "glance");
}

static void sample_reports_stretch_round_sizes_and_cost(void **state)
{
    assert_size(state, "candidates.0.samples", 3);
    assert_text(state, "candidates.0.samples.2.kind", "sized");
    assert_number(state, "candidates.0.samples.2.start", 24);
    assert_number(state, "candidates.0.samples.2.walk_positions", 4096);
    assert_number(state, "candidates.0.samples.2.runs", 32);
    assert_number(state, "candidates.0.samples.2.round", 2);
    assert_number(state, "candidates.0.samples.2.groups", 32);
    assert_number(state, "candidates.0.samples.2.items", 4096);
    assert_number(state, "candidates.0.samples.2.wall_ns", 8601);
    assert_number(state, "candidates.0.samples.2.cost_per_item", 2.1);
    assert_bool(state, "candidates.0.samples.2.used", true);
}

static void calibration_sample_is_reported_but_not_counted(void **state)
{
    assert_bool(state, "candidates.0.samples.0.used", false);
    assert_text(state, "candidates.0.samples.0.kind", "calibration");
    assert_number(state, "candidates.0.samples.0.round", 0);
    assert_number(state, "candidates.0.samples.0.cost_per_item", 2.5);
    assert_number(state, "candidates.0.summary.samples_used", 2);
    assert_number(state, "candidates.1.summary.samples_used", 2);
}

static void sample_counters_are_keyed_by_counter_name(void **state)
{
    assert_size(state, "candidates.1.samples.0.counters", 2);
    assert_number(state, "candidates.1.samples.0.counters.PAPI_TOT_CYC", 1016);
    assert_number(state, "candidates.1.samples.0.counters.PAPI_TOT_INS", 2016);
}

static void summary_gives_median_min_max_of_cost(void **state)
{
    assert_number(state, "candidates.1.summary.median", 1.25);
    assert_number(state, "candidates.1.summary.min", 1.2);
    assert_number(state, "candidates.1.summary.max", 1.3);
}

/* ---- decision and phases ----------------------------------------------------------------- */

static void analysis_decision_names_winner_source_and_reason(void **state)
{
    assert_text(state, "decision.winner", "group=linear,item=tiled:4x4,assign=dynamic:1");
    assert_text(state, "decision.source", "analysis");
    assert_text(state, "decision.reason", "item=tiled:4x4 beat the default by 60% over 2 rounds.");
    assert_number(state, "estimated_gain", 0.6);
}

static void confirmation_gives_the_pair_and_the_rank_test(void **state)
{
    assert_text(state, "decision.confirmation.incumbent", "group=linear,item=tiled:4x4,assign=dynamic:1");
    assert_text(state, "decision.confirmation.challenger", "group=linear,item=linear,assign=dynamic:1");
    assert_number(state, "decision.confirmation.challenger_samples", 4);
    assert_number(state, "decision.confirmation.incumbent_samples", 3);
    assert_number(state, "decision.confirmation.u", 1.5);
    assert_number(state, "decision.confirmation.p", 0.9);
    assert_bool(state, "decision.confirmation.exact", false);
    assert_bool(state, "decision.confirmation.replaced", false);
    assert_bool(state, "decision.confirmation.out_of_reach", true);
}

static void without_analysis_there_is_no_confirmation(void **state)
{
    assert_null_at(state, "decision.confirmation");
}

static void a_refining_launch_gives_its_pairs(void **state)
{
    assert_text(state, "decision.refine.state", "refining");
    assert_text(state, "decision.refine.event", "dropped");
    assert_number(state, "decision.refine.launch", 3);
    assert_bool(state, "decision.refine.settled_now", false);
    assert_number(state, "decision.refine.incumbent_cost", 1.25);
    assert_text(state, "decision.refine.shares.0.contender", "group=column,item=column,assign=block");
    assert_number(state, "decision.refine.shares.0.cost", 1.5);
    assert_bool(state, "decision.refine.shares.0.cut_short", false);
    assert_text(state, "decision.refine.shares.0.event", "compared");
    assert_null_at(state, "decision.refine.shares.0.p");
    assert_text(state, "decision.refine.shares.1.contender", "group=linear,span=16,item=linear,assign=block");
    assert_bool(state, "decision.refine.shares.1.cut_short", true);
    assert_text(state, "decision.refine.shares.1.event", "dropped");
    assert_size(state, "decision.refine.shares", 2);
}

static void a_forced_launch_has_no_refine(void **state)
{
    assert_null_at(state, "decision.refine");
}

/* The reader (report_read.h) gives the refinement's state, and "?" when the report has none. */
static void the_reader_gives_the_refine_state(void **state)
{
    const report_case *c = *state;
    gt_report_summary sum;
    gt_report_read(c->doc, &sum);
    assert_string_equal(sum.refine_state, "refining");
    assert_string_equal(sum.source, "wisdom");
}

static void the_reader_says_a_forced_launch_has_no_refine_state(void **state)
{
    const report_case *c = *state;
    gt_report_summary sum;
    gt_report_read(c->doc, &sum);
    assert_string_equal(sum.refine_state, "?");
}

static void phases_give_groups_times_and_remainder_counters(void **state)
{
    assert_number(state, "phases.groups_analysis", 320);
    assert_number(state, "phases.groups_remainder", 3776);
    assert_number(state, "phases.analysis_ns", 1500000);
    assert_number(state, "phases.remainder_ns", 18000000);
    assert_number(state, "phases.total_ns", 19500000);
    assert_number(state, "phases.remainder_counters.PAPI_TOT_CYC", 123456789);
    assert_number(state, "phases.remainder_counters.PAPI_TOT_INS", 98765432);
}

static void analysis_fraction_is_analysis_groups_over_total(void **state)
{
    assert_number(state, "phases.analysis_fraction", 320.0 / 4096.0);
}

static void wisdom_hit_has_no_candidates(void **state)
{
    assert_text(state, "decision.source", "wisdom");
    assert_text(state, "decision.winner", "group=linear,item=tiled:4x4,assign=dynamic:1");
    assert_size(state, "candidates", 0);
    assert_number(state, "phases.groups_analysis", 0);
    assert_number(state, "phases.analysis_fraction", 0);
    assert_number(state, "estimated_gain", 0.35);
}

static void forced_launch_runs_the_forced_schedule(void **state)
{
    assert_text(state, "decision.source", "forced");
    assert_text(state, "decision.winner", "group=hilbert,item=linear,assign=stealing");
    assert_text(state, "decision.reason", "The client forced this schedule.");
    assert_text(state, "tuning.mode", "off");
    assert_size(state, "candidates", 0);
    assert_number(state, "phases.groups_remainder", 4096);
}

static void too_small_launch_runs_the_default_and_says_why(void **state)
{
    assert_text(state, "decision.source", "default");
    assert_text(state, "decision.winner", "group=linear,item=linear,assign=stealing");
    assert_text(state, "decision.reason", "The launch has 1 workgroup, too few to analyse; the default runs it.");
    assert_size(state, "candidates", 0);
    assert_number(state, "range.dims", 1);
    assert_number(state, "range.global.1", 1);
    assert_number(state, "groups_total", 1);
    assert_number(state, "phases.analysis_fraction", 0);
}

/* ---- what JSON cannot say ---------------------------------------------------------------- */

/* Null in the built tree itself, not only in the text cJSON's printer may already fix up. */
static void nan_gain_is_null(void **state)
{
    assert_null_at(state, "estimated_gain");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(((report_case *)*state)->report, "estimated_gain")));
}

static void nan_summary_and_infinite_cost_are_null(void **state)
{
    assert_number(state, "candidates.0.summary.samples_used", 0);
    assert_null_at(state, "candidates.0.summary.median");
    assert_null_at(state, "candidates.0.summary.min");
    assert_null_at(state, "candidates.0.summary.max");
    assert_null_at(state, "candidates.0.samples.1.cost_per_item");
    assert_null_at(state, "candidates.0.samples.2.cost_per_item");
    assert_null(strstr(printed(state), "nan"));
    assert_null(strstr(printed(state), "inf"));
}

/* A double holds integers exactly only up to 2^53; the printed text must not round. */
static void large_counter_values_print_exactly(void **state)
{
    assert_non_null(strstr(printed(state), "\"PAPI_TOT_CYC\":\t9223372036854775807"));
    assert_non_null(strstr(printed(state), "\"PAPI_TOT_INS\":\t-9223372036854775808"));
    assert_non_null(strstr(printed(state), "\"PAPI_TOT_CYC\":\t9007199254740993"));
}

/* ---- out of memory ----------------------------------------------------------------------- */

static long allocations_left;

static void *failing_malloc(size_t size)
{
    return allocations_left-- > 0 ? malloc(size) : NULL;
}

/* Every allocation that can fail, failing in turn, gives NULL; valgrind and ASan see no leak. */
static void out_of_memory_gives_null(void **state)
{
    (void)state;
    report_case *c = calloc(1, sizeof *c);
    assert_non_null(c);
    set_analysis(c);
    cJSON_Hooks hooks = {.malloc_fn = failing_malloc, .free_fn = free};
    cJSON_InitHooks(&hooks);
    long n = 0;
    cJSON *report = NULL;
    for (; !report && n < 100000; n++) {
        allocations_left = n;
        report = gt_report_build(&c->in);
    }
    cJSON_InitHooks(NULL);
    assert_non_null(report);
    assert_true(n > 1);
    cJSON_Delete(report);
    free(c);
}

/* ---- probes -------------------------------------------------------------------------------- */

static void without_probes_samples_have_none(void **state)
{
    assert_text(state, "probes.state", "unavailable");
    assert_bool(state, "probes.page_faults", false);
    assert_text(state, "probes.summary", "unavailable (this executor has no probes)");
    assert_null_at(state, "candidates.0.samples.1.probe");
    assert_bool(state, "candidates.0.samples.1.disturbed", false);
    assert_number(state, "phases.disturbed_samples", 0);
    assert_null_at(state, "phases.page_faults");
    assert_number(state, "tuning.disturbed_share", 0.1);
}

static void unavailable_probes_say_why(void **state)
{
    assert_text(state, "probes.state", "unavailable");
    assert_text(state, "probes.summary", "unavailable (no kernel BTF at /sys/kernel/btf/vmlinux)");
}

static void probed_samples_carry_figures_and_the_disturbed_one_is_unused(void **state)
{
    assert_text(state, "probes.state", "on");
    assert_bool(state, "probes.page_faults", true);
    assert_text(state, "probes.summary", "on (raw tracepoints sched_switch)");
    assert_bool(state, "candidates.0.samples.1.disturbed", true);
    assert_bool(state, "candidates.0.samples.1.used", false);
    assert_number(state, "candidates.0.samples.1.probe.involuntary_switches", 4);
    assert_number(state, "candidates.0.samples.1.probe.offcpu_ns", 9000);
    assert_number(state, "candidates.0.samples.1.probe.worst_offcpu_ns", 6000);
    assert_number(state, "candidates.0.samples.1.probe.migrations", 1);
    assert_number(state, "candidates.0.samples.1.probe.page_faults", 7);
    assert_bool(state, "candidates.0.samples.2.disturbed", false);
    assert_bool(state, "candidates.0.samples.2.used", true);
    assert_number(state, "candidates.0.samples.2.probe.offcpu_ns", 0);
    assert_number(state, "candidates.0.samples.2.probe.page_faults", 3);
    assert_number(state, "phases.disturbed_samples", 1);
    assert_number(state, "phases.remeasured", 1);
    assert_bool(state, "phases.steady_contention", false);
    assert_number(state, "phases.page_faults.analysis", 40);
    assert_number(state, "phases.page_faults.remainder", 8192);
}

int main(int argc, char **argv)
{
    out_dir = argc > 1 ? argv[1] : NULL;
#define ON(setup, test) cmocka_unit_test_setup_teardown(test, setup, teardown)
    const struct CMUnitTest tests[] = {
        ON(analysis, header_names_format_version_id_and_start),
        ON(analysis, launch_names_kernel_machine_and_workers),
        ON(analysis, range_sizes_beyond_its_dimensions_are_one),
        ON(analysis, tuning_reports_the_configuration),
        ON(analysis, tuning_names_explored_axes_and_styles),
        ON(analysis, metric_without_replacement_has_empty_note),
        ON(software, replaced_metric_names_both_and_says_why),
        ON(analysis, hardware_counters_list_used_and_unavailable),
        ON(software, software_counters_give_each_unavailable_event_its_reason),
        ON(no_counters, missing_counter_status_reports_mode_none_and_empty_values),
        ON(no_counters, absent_id_is_omitted),
        ON(analysis, every_candidate_is_listed_in_order),
        ON(analysis, eliminated_candidate_is_marked),
        ON(analysis, sample_reports_stretch_round_sizes_and_cost),
        ON(analysis, calibration_sample_is_reported_but_not_counted),
        ON(analysis, sample_counters_are_keyed_by_counter_name),
        ON(analysis, summary_gives_median_min_max_of_cost),
        ON(analysis, analysis_decision_names_winner_source_and_reason),
        ON(analysis, confirmation_gives_the_pair_and_the_rank_test),
        ON(wisdom_hit, without_analysis_there_is_no_confirmation),
        ON(wisdom_hit, a_refining_launch_gives_its_pairs),
        ON(forced, a_forced_launch_has_no_refine),
        ON(wisdom_hit, the_reader_gives_the_refine_state),
        ON(forced, the_reader_says_a_forced_launch_has_no_refine_state),
        ON(analysis, phases_give_groups_times_and_remainder_counters),
        ON(analysis, analysis_fraction_is_analysis_groups_over_total),
        ON(wisdom_hit, wisdom_hit_has_no_candidates),
        ON(forced, forced_launch_runs_the_forced_schedule),
        ON(too_small, too_small_launch_runs_the_default_and_says_why),
        ON(nan_gain, nan_gain_is_null),
        ON(nan_gain, nan_summary_and_infinite_cost_are_null),
        ON(large_counters, large_counter_values_print_exactly),
        ON(analysis, without_probes_samples_have_none),
        ON(probes_unavailable, unavailable_probes_say_why),
        ON(probed, probed_samples_carry_figures_and_the_disturbed_one_is_unused),
        cmocka_unit_test(out_of_memory_gives_null),
    };
#undef ON
    return cmocka_run_group_tests(tests, NULL, NULL);
}
