/* http_conns.h: the HTTP connections gridtuned holds, counted and bounded, so that peers who
 * open many, or trickle their requests a byte at a time, cannot take the descriptors the main
 * socket's clients need. evhttp (libevent 2.1) neither counts its connections nor bounds a
 * request's whole time, only each read's; so each connection's bufferevent is made here:
 * - at most max are open at once: at the limit the listener is held (accept_guard.h), and new
 *   peers wait in its backlog until one ends;
 * - each is shut deadline_s after it opened or after its last whole request arrived, however
 *   its bytes trickle in or its answer is read;
 * - with a share per user, a peer on a Unix socket whose uid holds that many already is shut as
 *   soon as it is accepted, so that one user of a system daemon cannot hold them all.
 * Used on the event loop's thread only. */
#ifndef GT_HTTP_CONNS_H
#define GT_HTTP_CONNS_H

#include "accept_guard.h"

#include <event2/event.h>
#include <event2/http.h>

typedef struct gt_http_conns gt_http_conns;

/* Makes http's connections through the new set (evhttp_set_bevcb); user_share 0 means none.
 * NULL without memory. */
gt_http_conns *gt_http_conns_new(struct evhttp *http, unsigned max, unsigned user_share, unsigned deadline_s);
/* The guard of http's listener, held while max connections are open. */
void gt_http_conns_set_guard(gt_http_conns *c, gt_accept_guard *guard);
/* A whole request arrived on req's connection: its deadline starts again. */
void gt_http_conns_request(gt_http_conns *c, struct evhttp_request *req);
/* Connections open now. */
unsigned gt_http_conns_open(const gt_http_conns *c);
/* Before evhttp_free, which then frees the connections alone. NULL is allowed. */
void gt_http_conns_free(gt_http_conns *c);

#endif
