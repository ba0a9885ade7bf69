/* http.h: the optional read-only HTTP endpoint (--http ADDR:PORT), served by libevent's
 * evhttp on the daemon's own loop: GET /status, /reports?limit=N, /reports/ID, /metrics. */
#ifndef GT_HTTP_H
#define GT_HTTP_H

#include "daemon.h"

typedef struct gt_http gt_http;

/* Binds d->cfg->http and records the address in d->http. 0 or a negative errno with a
 * sentence in err. */
int gt_http_start(gt_daemon *d, gt_http **out, char *err, size_t errlen);
void gt_http_free(gt_http *h);

#endif
