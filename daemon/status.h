/* status.h: the daemon's status object (the status request, GET /status, `gridtune status`)
 * and its figures in Prometheus text format (GET /metrics). */
#ifndef GT_STATUS_H
#define GT_STATUS_H

#include "daemon.h"

#include <cjson/cJSON.h>
#include <event2/buffer.h>

/* NULL without memory. */
cJSON *gt_status_build(const gt_daemon *d);
/* Appends the metrics text; 0 or -ENOMEM. */
int gt_status_metrics(const gt_daemon *d, struct evbuffer *out);

#endif
