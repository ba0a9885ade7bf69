/* accept_guard.h: keeps a listening socket from spinning when the daemon runs out of
 * descriptors. accept() then fails at once for as long as it lasts, and libevent would call
 * it again and again (100% CPU, a log line each time): the guard pauses the listener, says so
 * once, and tries again every ACCEPT_RETRY_MS. Used by the main socket (server.c) and HTTP.
 * Its owner may also hold the listener (HTTP, at its connection limit): a held listener
 * stays paused, whatever the retries, until the owner lets it go. */
#ifndef GT_ACCEPT_GUARD_H
#define GT_ACCEPT_GUARD_H

#include <event2/event.h>
#include <stdbool.h>
#include <event2/listener.h>

typedef struct gt_accept_guard gt_accept_guard;

/* Watches l's accept errors (it sets l's error callback). who names the peers in the log, in
 * the plural: "clients", "HTTP clients". NULL without memory. l stays the caller's. */
gt_accept_guard *gt_accept_guard_new(struct event_base *base, struct evconnlistener *l, const char *who);
/* Tells the guard a peer was accepted: after a pause, the log says accepting works again. */
void gt_accept_guard_accepted(gt_accept_guard *g);
/* Holds the listener paused (held), or lets it accept again (!held) unless it is out of
 * descriptors, in which case the next retry resumes it. NULL is allowed. */
void gt_accept_guard_hold(gt_accept_guard *g, bool held);
/* Stops the retries (before the listener is freed); NULL is allowed. */
void gt_accept_guard_free(gt_accept_guard *g);

#endif
