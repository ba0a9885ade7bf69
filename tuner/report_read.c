/* report_read.c: reads the fields of a launch report that the gridtune command and the
 * benchmark drivers print (report_read.h). */
#include "report_read.h"

#include <math.h>
#include <stdio.h>

static const cJSON *field(const cJSON *obj, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
    return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

static void copy_text(char *dst, size_t len, const cJSON *v)
{
    snprintf(dst, len, "%s", cJSON_IsString(v) ? v->valuestring : "?");
}

static double number(const cJSON *v, double missing)
{
    return cJSON_IsNumber(v) ? v->valuedouble : missing;
}

void gt_report_read(const cJSON *r, gt_report_summary *out)
{
    const cJSON *source = field(r, "decision", "source"), *winner = field(r, "decision", "winner");
    const cJSON *faults = field(r, "phases", "page_faults");
    *out = (gt_report_summary){
        .decided = cJSON_IsString(source) && cJSON_IsString(winner),
        .resumed = cJSON_IsTrue(field(r, "decision", "resumed")),
        .analysis_fraction = number(field(r, "phases", "analysis_fraction"), 0),
        .analysis_ns = number(field(r, "phases", "analysis_ns"), 0),
        .total_ns = number(field(r, "phases", "total_ns"), 0),
        .analysis_page_faults = number(field(faults, "analysis", NULL), NAN),
        .remainder_page_faults = number(field(faults, "remainder", NULL), NAN),
        .disturbed_samples = number(field(r, "phases", "disturbed_samples"), 0),
        .remeasured = number(field(r, "phases", "remeasured"), 0),
        .estimated_gain = number(field(r, "estimated_gain", NULL), NAN),
    };
    copy_text(out->source, sizeof out->source, source);
    copy_text(out->winner, sizeof out->winner, winner);
    copy_text(out->reason, sizeof out->reason, field(r, "decision", "reason"));
    copy_text(out->refine_state, sizeof out->refine_state, field(field(r, "decision", "refine"), "state", NULL));
}

int gt_report_read_text(const char *text, gt_report_summary *out)
{
    cJSON *r = cJSON_Parse(text);
    gt_report_read(r, out);
    cJSON_Delete(r);
    return r ? 0 : -1;
}

const char *gt_report_candidate(const cJSON *report, size_t i)
{
    const cJSON *list = field(report, "candidates", NULL);
    if (i >= gt_report_ncandidates(report))
        return NULL;
    return cJSON_GetStringValue(field(cJSON_GetArrayItem(list, (int)i), "schedule", NULL));
}

size_t gt_report_ncandidates(const cJSON *report)
{
    const cJSON *list = field(report, "candidates", NULL);
    return cJSON_IsArray(list) ? (size_t)cJSON_GetArraySize(list) : 0;
}
