/* accept_guard.c: pausing a listener that is out of descriptors (accept_guard.h). */
#include "accept_guard.h"

#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ACCEPT_RETRY_MS 250 /* out of descriptors: how soon accepting is tried again */

struct gt_accept_guard {
    struct evconnlistener *listener;
    struct event *retry;
    const char *who;
    bool paused; /* since the last accept that succeeded */
    bool held;   /* by its owner (gt_accept_guard_hold) */
    gt_accept_guard *next;
};

/* libevent hands the error callback the listener's own argument (evhttp's, for HTTP), not
 * ours: the guards are found by their listener. A daemon has two at most, all on the loop's
 * thread. */
static gt_accept_guard *guards;

static gt_accept_guard *guard_of(const struct evconnlistener *l)
{
    for (gt_accept_guard *g = guards; g; g = g->next)
        if (g->listener == l)
            return g;
    return NULL;
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gt_accept_guard *g = arg;
    if (!g->held)
        evconnlistener_enable(g->listener);
}

static void on_accept_error(struct evconnlistener *l, void *arg)
{
    (void)arg;
    gt_accept_guard *g = guard_of(l);
    int e = errno;
    if (!g)
        return;
    if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM) {
        gt_log_warn("accepting one of the %s failed: %s", g->who, strerror(e));
        return;
    }
    evconnlistener_disable(l);
    if (!g->paused)
        gt_log_warn("accepting one of the %s failed: %s; new %s wait until descriptors are free", g->who,
                    strerror(e), g->who);
    g->paused = true;
    struct timeval retry = {0, ACCEPT_RETRY_MS * 1000};
    evtimer_add(g->retry, &retry);
}

gt_accept_guard *gt_accept_guard_new(struct event_base *base, struct evconnlistener *l, const char *who)
{
    gt_accept_guard *g = calloc(1, sizeof *g);
    if (!g || !(g->retry = evtimer_new(base, on_retry, g))) {
        free(g);
        return NULL;
    }
    g->listener = l;
    g->who = who;
    g->next = guards;
    guards = g;
    evconnlistener_set_error_cb(l, on_accept_error);
    return g;
}

void gt_accept_guard_accepted(gt_accept_guard *g)
{
    if (!g || !g->paused)
        return;
    g->paused = false;
    gt_log_info("accepting %s again", g->who);
}

void gt_accept_guard_hold(gt_accept_guard *g, bool held)
{
    if (!g || g->held == held)
        return;
    g->held = held;
    if (held)
        evconnlistener_disable(g->listener);
    else if (!evtimer_pending(g->retry, NULL))
        evconnlistener_enable(g->listener);
}

void gt_accept_guard_free(gt_accept_guard *g)
{
    if (!g)
        return;
    for (gt_accept_guard **p = &guards; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    event_free(g->retry);
    free(g);
}
