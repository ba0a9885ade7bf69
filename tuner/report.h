/* report.h: the JSON report of one launch, the record dashboards read.
 * Its format is schemas/report.schema.json (JSON Schema 2020-12); the tests validate real
 * reports against it. */
#ifndef GT_REPORT_H
#define GT_REPORT_H

#include "executor.h"
#include "tune.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/* Everything a report says, borrowed from its owners for the duration of the call. */
typedef struct gt_report_input {
    const gt_tune_config *config;
    const gt_tune_launch *launch;
    const gt_tune_result *result;
    const gt_counter_status *counters; /* may be NULL: counters were not read */
    const gt_probe_status *probes;     /* may be NULL: the executor had no probes */
    unsigned workers;
    const char *id;       /* the launch's id, may be NULL */
    int64_t started;      /* unix time in milliseconds */
} gt_report_input;

/* Builds the report; NULL when out of memory. The caller frees it with cJSON_Delete. */
cJSON *gt_report_build(const gt_report_input *in);

/* Adds the "counters" object a report has (mode, used, unavailable, note) to root; the
 * daemon's status shows the same object. c may be NULL: nothing is counted. False without
 * memory. */
bool gt_report_add_counters(cJSON *root, const gt_counter_status *c);

/* Adds the "probes" object (state, page_faults, summary) to root; the daemon's status shows
 * the same object. p may be NULL: no probes. False without memory. */
bool gt_report_add_probes(cJSON *root, const gt_probe_status *p);

#endif
