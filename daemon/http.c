/* http.c: GET /status, /reports, /reports/ID and /metrics (http.h). Everything served is
 * what the loop's thread already holds, so a request never waits for a launch. */
#include "http.h"

#include "status.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HTTP_DEFAULT_LIMIT 20
#define HTTP_MAX_LIMIT 1000

struct gt_http {
    gt_daemon *d;
    struct evhttp *http;
};

static void send_text(struct evhttp_request *req, int code, const char *reason, const char *type, struct evbuffer *body)
{
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", type);
    evhttp_send_reply(req, code, reason, body);
}

static void send_error(struct evhttp_request *req, int code, const char *reason, const char *message)
{
    struct evbuffer *body = evbuffer_new();
    if (body)
        evbuffer_add_printf(body, "%s\n", message);
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

static void serve_reports(struct gt_http *h, struct evhttp_request *req, const char *rest, const char *query)
{
    if (*rest == '/') {
        unsigned long id;
        const char *json = parse_count(rest + 1, ULONG_MAX, &id) ? gt_report_ring_find(h->d->reports, id) : NULL;
        if (!json) {
            send_error(req, 404, "Not Found", "no such report (it may be older than --keep-reports)");
            return;
        }
        struct evbuffer *body = evbuffer_new();
        if (body && evbuffer_add_printf(body, "%s\n", json) >= 0)
            send_text(req, 200, "OK", "application/json", body);
        else
            send_error(req, 500, "Internal Server Error", "out of memory");
        if (body)
            evbuffer_free(body);
        return;
    }
    unsigned long limit = HTTP_DEFAULT_LIMIT;
    struct evkeyvalq params = {0};
    if (query && evhttp_parse_query_str(query, &params) == 0) {
        const char *v = evhttp_find_header(&params, "limit");
        bool bad = v && !parse_count(v, HTTP_MAX_LIMIT, &limit);
        evhttp_clear_headers(&params);
        if (bad) {
            send_error(req, 400, "Bad Request", "limit: expected an integer from 1 to 1000");
            return;
        }
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < limit; i++) {
        const char *json = gt_report_ring_get(h->d->reports, i, NULL, NULL);
        if (!json)
            break;
        cJSON_AddItemToArray(list, cJSON_Parse(json));
    }
    send_json(req, list);
    cJSON_Delete(list);
}

static void on_request(struct evhttp_request *req, void *arg)
{
    struct gt_http *h = arg;
    if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET");
        send_error(req, 405, "Method Not Allowed", "only GET is served");
        return;
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = evhttp_uri_get_path(uri), *query = evhttp_uri_get_query(uri);
    if (!path)
        path = "/";
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
    } else if (strncmp(path, "/reports", 8) == 0 && (path[8] == '\0' || path[8] == '/')) {
        serve_reports(h, req, path + 8, query);
    } else {
        send_error(req, 404, "Not Found", "gridtuned serves GET /status, /reports?limit=N, /reports/ID and /metrics");
    }
}

int gt_http_start(gt_daemon *d, gt_http **out, char *err, size_t errlen)
{
    char addr[64];
    snprintf(addr, sizeof addr, "%s", d->cfg->http);
    char *colon = strrchr(addr, ':');
    *colon = '\0';
    unsigned port = (unsigned)strtoul(colon + 1, NULL, 10);
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
    struct evhttp_bound_socket *sock = evhttp_bind_socket_with_handle(h->http, addr, (ev_uint16_t)port);
    if (!sock) {
        snprintf(err, errlen, "cannot serve HTTP on %s: %s", d->cfg->http, strerror(errno));
        gt_http_free(h);
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
    *out = h;
    return 0;
}

void gt_http_free(gt_http *h)
{
    if (!h)
        return;
    evhttp_free(h->http);
    free(h);
}
