/* report_read.h: the one reader of a launch report (report.h builds it; the format is
 * schemas/report.schema.json). The gridtune command and the benchmark drivers get a report's
 * text from gridtuned and read the few fields they print or count through here: the decision,
 * the phases, the gain and the schedules of the candidates. */
#ifndef GT_REPORT_READ_H
#define GT_REPORT_READ_H

#include "schedule.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The most characters (with the NUL) decision.reason keeps; a longer one is cut. */
#define GT_REPORT_TEXT_MAX 256

/* What a report says about its launch. A missing field reads as noted. */
typedef struct gt_report_summary {
    bool decided;                     /* decision.winner and decision.source are both there */
    char source[16];                  /* decision.source; "?" when missing */
    char winner[GT_SCHEDULE_TEXT_MAX]; /* decision.winner; "?" when missing */
    char reason[GT_REPORT_TEXT_MAX];  /* decision.reason; "?" when missing */
    char refine_state[16];            /* decision.refine.state; "?" when missing or null */
    bool resumed;                     /* decision.resumed; false when missing */
    double analysis_fraction;         /* phases.analysis_fraction; 0 when missing */
    double analysis_ns;               /* phases.analysis_ns; 0 when missing */
    double total_ns;                  /* phases.total_ns; 0 when missing */
    double analysis_page_faults;      /* phases.page_faults.analysis; NaN when missing or null */
    double remainder_page_faults;     /* phases.page_faults.remainder; NaN when missing or null */
    double disturbed_samples;         /* phases.disturbed_samples; 0 when missing */
    double remeasured;                /* phases.remeasured; 0 when missing */
    double estimated_gain;            /* NaN when missing or null */
} gt_report_summary;

/* Reads the summary of report (a NULL report reads as an empty one). */
void gt_report_read(const cJSON *report, gt_report_summary *out);
/* Parses text and reads its summary. Returns 0, or -1 when text is not JSON (out then holds
 * the summary of an empty report). */
int gt_report_read_text(const char *text, gt_report_summary *out);

/* The schedule of the report's candidate i, or NULL past the last or when it names none. */
const char *gt_report_candidate(const cJSON *report, size_t i);
/* How many candidates the report lists. */
size_t gt_report_ncandidates(const cJSON *report);

#endif
