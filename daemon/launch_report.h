/* launch_report.h: a launch's report, kept as what it is made of (the tuner's result and the
 * launch's description) and written as JSON only when first asked for. Most reports are never
 * read, and writing one costs more than running a small launch, so no launch waits for it.
 * Made on the launcher thread; from then on the loop thread's only. */
#ifndef GT_LAUNCH_REPORT_H
#define GT_LAUNCH_REPORT_H

#include "tuner/instruments.h"
#include "tuner/tune.h"

#include <stdint.h>

typedef struct gt_launch_report gt_launch_report;

/* The report of the launch tl, run with cfg into res, which it takes (res is empty after,
 * freed or not): every pointer of tl is copied, and so are counters and probes (each may be
 * NULL: none), since the text is written when first read, on another thread than the one that
 * ran the launch, and an executor that restarts meanwhile writes its status anew. id is its
 * report id, started the unix time in milliseconds it started. NULL without memory. */
gt_launch_report *gt_launch_report_new(const gt_tune_config *cfg, const gt_tune_launch *tl, gt_tune_result *res,
                                       const gt_counter_status *counters, const gt_probe_status *probes,
                                       unsigned workers, uint64_t id, int64_t started);
/* Each reference is dropped with gt_launch_report_unref; the last one frees it. */
gt_launch_report *gt_launch_report_ref(gt_launch_report *r);
void gt_launch_report_unref(gt_launch_report *r);
/* The JSON text (schemas/report.schema.json), written on the first call and kept; NULL
 * without memory. */
const char *gt_launch_report_text(gt_launch_report *r);

#endif
