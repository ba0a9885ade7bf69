/* report_ring.h: the most recent launch reports, newest first, for `gridtune reports`, the
 * reports request and HTTP. Each is kept as a launch report (launch_report.h), written as JSON
 * when first read, with the launch's report id and the uid of the client that launched it. */
#ifndef GT_REPORT_RING_H
#define GT_REPORT_RING_H

#include "launch_report.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_report_ring gt_report_ring;

gt_report_ring *gt_report_ring_new(size_t capacity);
void gt_report_ring_free(gt_report_ring *r);
/* Keeps a reference to report under id, with the uid of the client that launched it,
 * dropping the oldest when full. */
void gt_report_ring_add(gt_report_ring *r, uint64_t id, unsigned uid, gt_launch_report *report);
/* The index-th newest report (0 = newest), or NULL past the end; id and uid may be NULL. The
 * report stays the ring's. Nothing here writes its text (gt_launch_report_text): a reader checks
 * uid first, so that the reports it may not read are never written for it. */
gt_launch_report *gt_report_ring_get(gt_report_ring *r, size_t index, uint64_t *id, unsigned *uid);
/* The report with this id, or NULL when it is not (or no longer) kept; uid (may be NULL) gets
 * the uid of the client that launched it. */
gt_launch_report *gt_report_ring_find(gt_report_ring *r, uint64_t id, unsigned *uid);

/* Whether a reader running as uid may read every report, whoever launched it: in system mode
 * the group shares the daemon, not its users' launches, so a reader sees its own uid's
 * reports unless it runs as the daemon's user or root. Per-user mode serves one user. */
bool gt_report_reader_sees_all(bool system_mode, unsigned uid);

#endif
