/* http.h: the optional read-only HTTP endpoint, served by libevent's evhttp on the daemon's
 * own loop: GET /status, /reports?limit=N, /reports/ID, /metrics. --http unix:PATH serves it
 * on a Unix socket whose peers are checked like the main socket's (in system mode each sees
 * only its own uid's reports); --http ADDR:PORT with --http-public serves it to anyone. */
#ifndef GT_HTTP_H
#define GT_HTTP_H

#include "daemon.h"

typedef struct gt_http gt_http;

/* Binds d->cfg->http and records the address in d->http ("unix:PATH", or ADDR:PORT with the
 * port the kernel gave). 0 or a negative errno with a sentence in err. gt_http_free closes
 * it and removes the Unix socket it made. */
int gt_http_start(gt_daemon *d, gt_http **out, char *err, size_t errlen);
void gt_http_free(gt_http *h);

#endif
