/* http.c: GET /status, /reports, /reports/ID and /metrics (http.h). Everything served is
 * what the loop's thread already holds, so a request never waits for a launch. On a Unix
 * socket (--http unix:PATH) every request's peer is checked with SO_PEERCRED, as the main
 * socket's clients are (server.c); a TCP port has no peer to check, so it is served only with
 * --http-public, and then to anyone. */
#include "http.h"

#include "accept_guard.h"
#include "http_conns.h"
#include "log.h"
#include "status.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <arpa/inet.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define HTTP_DEFAULT_LIMIT 20
#define HTTP_MAX_LIMIT 1000
#define HTTP_LISTEN_BACKLOG 16
#define HTTP_MAX_BODY 4096     /* bytes of a request body (GET has none) */
#define HTTP_MAX_HEADERS 16384 /* bytes of a request's headers */

struct gt_http {
    gt_daemon *d;
    struct evhttp *http;
    struct evhttp_bound_socket *bound;
    gt_accept_guard *guard; /* pauses accepting while out of descriptors or at the connection limit */
    gt_http_conns *conns;
    char unix_path[sizeof ((struct sockaddr_un *)0)->sun_path]; /* "" on TCP; the socket we made */
};

/* Who asks: the peer's uid, and whether it may read every user's reports. */
typedef struct http_peer {
    unsigned uid;
    bool sees_all;
} http_peer;

static void send_text(struct evhttp_request *req, int code, const char *reason, const char *type, struct evbuffer *body)
{
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", type);
    evhttp_send_reply(req, code, reason, body);
}

static void send_error(struct evhttp_request *req, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void send_error(struct evhttp_request *req, int code, const char *reason, const char *fmt, ...)
{
    struct evbuffer *body = evbuffer_new();
    if (body) {
        va_list ap;
        va_start(ap, fmt);
        evbuffer_add_vprintf(body, fmt, ap);
        va_end(ap);
        evbuffer_add(body, "\n", 1);
    }
    send_text(req, code, reason, "text/plain; charset=utf-8", body);
    if (body)
        evbuffer_free(body);
}

static void send_json(struct evhttp_request *req, cJSON *json)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    struct evbuffer *body = text ? evbuffer_new() : NULL;
    if (!body || evbuffer_add(body, text, strlen(text)) != 0 || evbuffer_add(body, "\n", 1) != 0)
        send_error(req, 500, "Internal Server Error", "out of memory");
    else
        send_text(req, 200, "OK", "application/json", body);
    if (body)
        evbuffer_free(body);
    free(text);
}

static bool parse_count(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (!text || !*text || *text == '-')
        return false;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

/* On TCP everyone sees everything: --http-public said so. On the Unix socket the rule is the
   main socket's: per-user mode serves the daemon's uid and root; system mode serves whoever
   could open the socket (the group), each peer seeing only its own uid's reports unless it is
   the daemon's user or root, as the reports request does (requests/status.c). false: refused, and
   answered. */
static bool check_peer(const gt_http *h, struct evhttp_request *req, http_peer *out)
{
    *out = (http_peer){.sees_all = true};
    if (!h->unix_path[0])
        return true;
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (!bev || getsockopt(bufferevent_getfd(bev), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        gt_log_warn("refused an HTTP request: SO_PEERCRED failed: %s", strerror(errno));
        send_error(req, 403, "Forbidden", "gridtuned cannot tell who is asking");
        return false;
    }
    bool privileged = gt_report_reader_sees_all(h->d->cfg->system, (unsigned)cred.uid);
    unsigned held;
    if (!h->d->cfg->system && cred.uid != getuid() && cred.uid != 0) {
        if (gt_log_limit_pass(&h->d->refusal_log, &held))
            gt_log_warn("refused HTTP client %d: it runs as uid %u, and this per-user gridtuned serves uid %u only "
                        "(%u more refusals since the last such line)", (int)cred.pid, (unsigned)cred.uid,
                        (unsigned)getuid(), held);
        send_error(req, 403, "Forbidden", "this per-user gridtuned serves uid %u only", (unsigned)getuid());
        return false;
    }
    *out = (http_peer){.uid = cred.uid, .sees_all = privileged};
    return true;
}

static bool may_read(const http_peer *p, unsigned owner)
{
    return p->sees_all || owner == p->uid;
}

/* Another user's report is answered exactly as a missing one, so that its id tells nothing. */
static void serve_report(struct gt_http *h, struct evhttp_request *req, const http_peer *p, const char *id_text)
{
    unsigned long id;
    unsigned owner = 0;
    gt_launch_report *kept = parse_count(id_text, ULONG_MAX, &id) ? gt_report_ring_find(h->d->reports, id, &owner)
                                                                 : NULL;
    if (!kept || !may_read(p, owner)) {
        send_error(req, 404, "Not Found", "no such report (it may be older than --keep-reports)");
        return;
    }
    const char *json = gt_launch_report_text(kept);
    struct evbuffer *body = json ? evbuffer_new() : NULL;
    if (body && evbuffer_add_printf(body, "%s\n", json) >= 0)
        send_text(req, 200, "OK", "application/json", body);
    else
        send_error(req, 500, "Internal Server Error", "out of memory");
    if (body)
        evbuffer_free(body);
}

static void serve_reports(struct gt_http *h, struct evhttp_request *req, const http_peer *p, const char *query)
{
    unsigned long limit = HTTP_DEFAULT_LIMIT;
    struct evkeyvalq params = {0};
    if (query && evhttp_parse_query_str(query, &params) == 0) {
        const char *v = evhttp_find_header(&params, "limit");
        bool bad = v && !parse_count(v, HTTP_MAX_LIMIT, &limit);
        evhttp_clear_headers(&params);
        if (bad) {
            send_error(req, 400, "Bad Request", "limit: expected an integer from 1 to %d", HTTP_MAX_LIMIT);
            return;
        }
    }
    cJSON *list = cJSON_CreateArray();
    gt_launch_report *kept;
    unsigned owner;
    for (size_t i = 0, n = 0; list && n < limit && (kept = gt_report_ring_get(h->d->reports, i, NULL, &owner)); i++) {
        if (!may_read(p, owner))
            continue;
        const char *json = gt_launch_report_text(kept);
        cJSON_AddItemToArray(list, json ? cJSON_Parse(json) : NULL);
        n++;
    }
    send_json(req, list);
    cJSON_Delete(list);
}

static void on_request(struct evhttp_request *req, void *arg)
{
    struct gt_http *h = arg;
    http_peer peer;
    gt_http_conns_request(h->conns, req);
    if (!check_peer(h, req, &peer))
        return;
    if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET");
        send_error(req, 405, "Method Not Allowed", "only GET is served");
        return;
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = evhttp_uri_get_path(uri), *query = evhttp_uri_get_query(uri);
    if (!path)
        path = "/";
    /* /status and /metrics are the daemon's own figures and totals: no client's pid, uid or
       kernel is in them, so every peer gets them whole. */
    if (strcmp(path, "/status") == 0) {
        cJSON *status = gt_status_build(h->d);
        send_json(req, status);
        cJSON_Delete(status);
    } else if (strcmp(path, "/metrics") == 0) {
        struct evbuffer *body = evbuffer_new();
        if (body && gt_status_metrics(h->d, body) == 0)
            send_text(req, 200, "OK", "text/plain; version=0.0.4", body);
        else
            send_error(req, 500, "Internal Server Error", "out of memory");
        if (body)
            evbuffer_free(body);
    } else if (strcmp(path, "/reports") == 0) {
        serve_reports(h, req, &peer, query);
    } else if (strncmp(path, "/reports/", 9) == 0) {
        serve_report(h, req, &peer, path + 9);
    } else {
        send_error(req, 404, "Not Found", "gridtuned serves GET /status, /reports?limit=N, /reports/ID and /metrics");
    }
}

/* ---- the Unix socket ------------------------------------------------------------------ */

/* The socket's directory is made when missing. Per-user mode: it must be ours and closed to
   everyone else, as the main socket's is (server.c), since a socket's own mode is not a
   reliable barrier on every system. System mode: one made here is open to the group; one that
   exists is left as it is, since it may be shared (/run, /tmp). */
static int socket_dir(const gt_daemon_config *cfg, const char *path, gid_t gid, char *err, size_t errlen)
{
    char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (mkdir(dir, cfg->system ? 0750 : 0700) == 0) {
        if (cfg->system && (chown(dir, (uid_t)-1, gid) != 0 || chmod(dir, 0750) != 0)) {
            snprintf(err, errlen, "cannot give the HTTP socket's directory %s to the group %s: %s", dir, cfg->group,
                     strerror(errno));
            return -errno;
        }
        return 0;
    }
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create the HTTP socket's directory %s: %s", dir, strerror(errno));
        return -errno;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the HTTP socket's directory %s is not a directory", dir);
        return -ENOTDIR;
    }
    if (!cfg->system && (st.st_uid != getuid() || (st.st_mode & 077))) {
        snprintf(err, errlen, "the HTTP socket's directory %s (uid %u, mode %03o) is not private to this user "
                 "(uid %u, mode 700); other users could reach the socket; give a path in a private directory",
                 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), (unsigned)getuid());
        return -EPERM;
    }
    return 0;
}

/* A socket file left at path is removed only when nothing answers on it: another daemon's
   HTTP socket is never taken over, and what is not a socket is never removed. */
static int clear_stale(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot serve HTTP on %s: %s", path, strerror(errno));
        return -errno;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "cannot serve HTTP on %s: it exists and is not a socket", path);
        return -EEXIST;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&addr, sizeof addr);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (rc == 0) {
        snprintf(err, errlen, "cannot serve HTTP on %s: another process listens there", path);
        return -EADDRINUSE;
    }
    if (e != ECONNREFUSED || unlink(path) != 0) {
        e = e != ECONNREFUSED ? e : errno;
        snprintf(err, errlen, "cannot serve HTTP on %s: the socket there cannot be checked or removed: %s", path,
                 strerror(e));
        return -e;
    }
    return 0;
}

/* Binds and listens as the main socket does: mode 0600 per user, 0660 and the group in
   system mode. */
static int bind_unix(gt_http *h, const char *path, char *err, size_t errlen)
{
    const gt_daemon_config *cfg = h->d->cfg;
    gid_t gid = (gid_t)-1;
    if (cfg->system) {
        struct group *g = getgrnam(cfg->group);
        if (!g) {
            snprintf(err, errlen, "the group \"%s\" does not exist; create it (groupadd %s) or give --group",
                     cfg->group, cfg->group);
            return -ENOENT;
        }
        gid = g->gr_gid;
    }
    int rc = socket_dir(cfg, path, gid, err, errlen);
    if (!rc)
        rc = clear_stale(path, err, errlen);
    if (rc)
        return rc;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
        return -errno;
    }
    mode_t old = umask(cfg->system ? 0007 : 0077);
    rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (rc == 0)
        snprintf(h->unix_path, sizeof h->unix_path, "%s", path); /* ours now: gt_http_free removes it */
    if (rc != 0 || (cfg->system && chown(path, (uid_t)-1, gid) != 0) || chmod(path, cfg->system ? 0660 : 0600) != 0 ||
        listen(fd, HTTP_LISTEN_BACKLOG) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot serve HTTP on %s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    if (!(h->bound = evhttp_accept_socket_with_handle(h->http, fd))) {
        snprintf(err, errlen, "cannot watch the HTTP socket %s", path);
        close(fd);
        return -ENOMEM;
    }
    return 0;
}

/* ---- TCP -------------------------------------------------------------------------------- */

static int bind_tcp(gt_http *h, char *err, size_t errlen)
{
    gt_daemon *d = h->d;
    char addr[64];
    snprintf(addr, sizeof addr, "%s", d->cfg->http);
    char *colon = strrchr(addr, ':');
    *colon = '\0';
    unsigned port = (unsigned)strtoul(colon + 1, NULL, 10);
    struct evhttp_bound_socket *sock = evhttp_bind_socket_with_handle(h->http, addr, (ev_uint16_t)port);
    h->bound = sock;
    if (!sock) {
        snprintf(err, errlen, "cannot serve HTTP on %s: %s", d->cfg->http, strerror(errno));
        return -EADDRNOTAVAIL;
    }
    /* Port 0 asks the kernel for a free port: report the one it gave. */
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[48] = "";
    if (getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&ss, &len) == 0 && ss.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        snprintf(d->http, sizeof d->http, "%s:%u", host, (unsigned)ntohs(in->sin_port));
    } else {
        snprintf(d->http, sizeof d->http, "%s", d->cfg->http);
    }
    gt_log_info("HTTP on %s is public (--http-public): anyone who can reach it reads every user's launch reports",
                d->http);
    return 0;
}

int gt_http_start(gt_daemon *d, gt_http **out, char *err, size_t errlen)
{
    const char *cfg_http = d->cfg->http;
    bool on_unix = strncmp(cfg_http, GT_HTTP_UNIX, strlen(GT_HTTP_UNIX)) == 0;
    if (on_unix && strlen(cfg_http) >= sizeof d->http) {
        snprintf(err, errlen, "--http %s: gridtuned can name an HTTP socket of at most %zu bytes; give a shorter path",
                 cfg_http, sizeof d->http - 1 - strlen(GT_HTTP_UNIX));
        return -ENAMETOOLONG;
    }
    gt_http *h = calloc(1, sizeof *h);
    if (!h || !(h->http = evhttp_new(d->base))) {
        free(h);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    h->d = d;
    /* Every method reaches on_request, which answers 405 with Allow: GET to all but GET;
       evhttp itself would answer 501 to the methods it was not told about. */
    evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                            EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(h->http, on_request, h);
    /* Requests are GETs: a peer may not make the daemon hold a body, endless headers, or a
       connection that says nothing. */
    evhttp_set_max_body_size(h->http, HTTP_MAX_BODY);
    evhttp_set_max_headers_size(h->http, HTTP_MAX_HEADERS);
    evhttp_set_timeout(h->http, (int)d->cfg->http_timeout_s);
    /* ... nor many connections, nor a request that trickles in under each read's timeout; in
       system mode, one user holds at most half of the connections */
    unsigned max = d->cfg->http_max_connections, share = d->cfg->system ? (max > 1 ? max / 2 : 1) : 0;
    if (!(h->conns = gt_http_conns_new(h->http, max, share, d->cfg->http_timeout_s))) {
        gt_http_free(h);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = on_unix ? bind_unix(h, cfg_http + strlen(GT_HTTP_UNIX), err, errlen) : bind_tcp(h, err, errlen);
    if (!rc && !(h->guard = gt_accept_guard_new(d->base, evhttp_bound_socket_get_listener(h->bound), "HTTP clients"))) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    }
    if (!rc) {
        gt_http_conns_set_guard(h->conns, h->guard);
        d->http_conns = h->conns;
    }
    if (rc) {
        gt_http_free(h);
        return rc;
    }
    if (on_unix)
        snprintf(d->http, sizeof d->http, "%s", cfg_http);
    *out = h;
    return 0;
}

void gt_http_free(gt_http *h)
{
    if (!h)
        return;
    if (h->d->http_conns == h->conns)
        h->d->http_conns = NULL;
    gt_http_conns_free(h->conns); /* before evhttp_free frees the connections it counts */
    gt_accept_guard_free(h->guard); /* ... and the listener the guard watches */
    if (h->http)
        evhttp_free(h->http);
    if (h->unix_path[0] && unlink(h->unix_path) != 0 && errno != ENOENT)
        gt_log_warn("cannot remove the HTTP socket %s: %s", h->unix_path, strerror(errno));
    free(h);
}
