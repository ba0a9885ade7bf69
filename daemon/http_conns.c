/* http_conns.c: counting, bounding and timing HTTP connections (http_conns.h).
 *
 * evhttp tells nothing when it accepts a connection but asks for its bufferevent (bevcb), and
 * a connection's evhttp_connection, which can say when it closes (closecb), is known only once
 * a whole request arrived. So a connection is counted from its bufferevent, which holds a
 * reference of ours (the bufferevent, and so its descriptor, lives until both evhttp and this
 * file let go), and ends here when evhttp says it closes or, for one that never brought a
 * whole request, when its peer closes (EV_CLOSED, where the event backend tells) or at its
 * deadline. Its peer's uid is read on the loop's next turn after the accept, when the
 * bufferevent has its descriptor. */
#include "http_conns.h"

#include "log.h"

#include <event2/bufferevent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>

#define NO_UID UINT64_MAX

typedef struct http_conn {
    gt_http_conns *owner;
    struct bufferevent *bev;         /* evhttp's, with a reference of ours */
    struct evhttp_connection *evcon; /* once a whole request arrived, and with it our closecb */
    struct event *deadline;
    struct event *peer_closed;       /* watches the socket once evhttp gave it its descriptor */
    uint64_t uid;                    /* its peer's, or NO_UID (not known yet, or TCP) */
    struct http_conn *prev, *next;
} http_conn;

struct gt_http_conns {
    gt_accept_guard *guard;
    unsigned max, open;
    unsigned user_share; /* connections one uid may hold; 0: no share */
    struct timeval deadline;
    http_conn *list;
    gt_log_limit full_log, share_log;
};

static void hold_if_full(gt_http_conns *c)
{
    bool full = c->open >= c->max;
    gt_accept_guard_hold(c->guard, full);
    unsigned held;
    if (full && gt_log_limit_pass(&c->full_log, &held))
        gt_log_warn("%u HTTP connections are open, the most gridtuned serves at once (--http-max-connections): "
                    "new ones wait until one ends (%u more such lines held)", c->open, held);
}

/* The connection no longer counts: our reference goes (the descriptor closes with evhttp's,
   or now if evhttp let go already). */
static void connection_end(http_conn *conn)
{
    gt_http_conns *c = conn->owner;
    if (conn->evcon)
        evhttp_connection_set_closecb(conn->evcon, NULL, NULL);
    event_free(conn->deadline);
    event_free(conn->peer_closed);
    bufferevent_decref(conn->bev);
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        c->list = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    c->open--;
    free(conn);
    hold_if_full(c);
}

/* evhttp closes it (after an answer, an error, a timeout or our shutdown). */
static void on_close(struct evhttp_connection *evcon, void *arg)
{
    (void)evcon;
    connection_end(arg);
}

/* Its time is up: shutting the socket ends evhttp's read or write, so evhttp closes it too
   (at once, or when it next reads; not later than its own timeout). */
static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    http_conn *conn = arg;
    evutil_socket_t sock = bufferevent_getfd(conn->bev);
    if (sock >= 0)
        shutdown(sock, SHUT_RDWR);
    connection_end(conn);
}

/* The peer closed its end. One that sent a whole request is evhttp's to close (on_close). */
static void on_peer_closed(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    http_conn *conn = arg;
    if (!conn->evcon)
        connection_end(conn);
}

/* Whether conn's peer, on a Unix socket, is a user holding its share of connections already
   (conn not counted); conn learns its uid. */
static bool past_user_share(http_conn *conn, evutil_socket_t sock)
{
    gt_http_conns *c = conn->owner;
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid == (uid_t)-1)
        return false; /* TCP, whose peer could be anyone: Linux answers uid -1 */
    conn->uid = cred.uid;
    unsigned held = 0;
    for (const http_conn *other = c->list; other; other = other->next)
        held += other != conn && other->uid == conn->uid;
    if (!c->user_share || held < c->user_share)
        return false;
    unsigned lines;
    if (gt_log_limit_pass(&c->share_log, &lines))
        gt_log_warn("closed a new HTTP connection of uid %u: it holds %u, its share of --http-max-connections in "
                    "system mode (%u more such lines held)", (unsigned)cred.uid, held, lines);
    return true;
}

/* On the loop's next turn after new_connection, when evhttp has given the bufferevent its
   descriptor: close it if its user holds its share, else watch it for the peer's close, where
   the backend can. */
static void on_adopt(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    http_conn *conn = arg;
    evutil_socket_t sock = bufferevent_getfd(conn->bev);
    struct event_base *base = bufferevent_get_base(conn->bev);
    if (sock >= 0 && past_user_share(conn, sock)) {
        on_deadline(sock, 0, conn);
        return;
    }
    if (sock < 0 || !(event_base_get_features(base) & EV_FEATURE_EARLY_CLOSE))
        return;
    event_del(conn->peer_closed);
    if (event_assign(conn->peer_closed, base, sock, EV_CLOSED, on_peer_closed, conn) == 0)
        event_add(conn->peer_closed, NULL);
}

/* evhttp's bevcb: a connection was accepted. NULL (no memory) lets evhttp make its own, which
   is then neither counted nor timed. */
static struct bufferevent *new_connection(struct event_base *base, void *arg)
{
    gt_http_conns *c = arg;
    http_conn *conn = calloc(1, sizeof *conn);
    if (!conn)
        return NULL;
    conn->owner = c;
    conn->uid = NO_UID;
    conn->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    conn->deadline = evtimer_new(base, on_deadline, conn);
    conn->peer_closed = event_new(base, -1, 0, on_adopt, conn);
    if (!conn->bev || !conn->deadline || !conn->peer_closed) {
        if (conn->peer_closed)
            event_free(conn->peer_closed);
        if (conn->deadline)
            event_free(conn->deadline);
        if (conn->bev)
            bufferevent_free(conn->bev);
        free(conn);
        return NULL;
    }
    bufferevent_incref(conn->bev);
    evtimer_add(conn->deadline, &c->deadline);
    event_active(conn->peer_closed, 0, 0);
    conn->next = c->list;
    if (c->list)
        c->list->prev = conn;
    c->list = conn;
    c->open++;
    gt_accept_guard_accepted(c->guard);
    hold_if_full(c);
    return conn->bev;
}

gt_http_conns *gt_http_conns_new(struct evhttp *http, unsigned max, unsigned user_share, unsigned deadline_s)
{
    gt_http_conns *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = (gt_http_conns){.max = max ? max : 1, .user_share = user_share, .deadline = {.tv_sec = deadline_s}};
    evhttp_set_bevcb(http, new_connection, c);
    return c;
}

void gt_http_conns_set_guard(gt_http_conns *c, gt_accept_guard *guard)
{
    c->guard = guard;
    hold_if_full(c);
}

void gt_http_conns_request(gt_http_conns *c, struct evhttp_request *req)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    for (http_conn *conn = c->list; conn; conn = conn->next)
        if (conn->bev == bev) {
            if (!conn->evcon) {
                conn->evcon = evcon;
                evhttp_connection_set_closecb(evcon, on_close, conn);
            }
            evtimer_add(conn->deadline, &c->deadline);
            return;
        }
}

unsigned gt_http_conns_open(const gt_http_conns *c)
{
    return c->open;
}

void gt_http_conns_free(gt_http_conns *c)
{
    if (!c)
        return;
    while (c->list)
        connection_end(c->list);
    free(c);
}
