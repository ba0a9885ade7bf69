/* requests.c: request dispatch, the handshake, status, reports and buffers. */
#include "requests.h"

#include "shm.h"
#include "status.h"
#include "usage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void handle_hello(const gt_request *r);
static void handle_status(const gt_request *r);
static void handle_reports(const gt_request *r);
static void handle_buffer_create(const gt_request *r);
static void handle_buffer_release(const gt_request *r);

static const struct handler {
    const char *type;
    void (*run)(const gt_request *r);
    unsigned fds;        /* descriptors the request carries */
    const char *fields;  /* the fields it may have besides type and id */
} handlers[] = {
    {"hello", handle_hello, 0, "protocol client"},
    {"buffer_create", handle_buffer_create, 1, "size"},
    {"buffer_release", handle_buffer_release, 0, "buffer"},
    {"kernel_load", gt_handle_kernel_load, 0, "path name"},
    {"kernel_build", gt_handle_kernel_build, 0, "source name options"},
    {"kernel_release", gt_handle_kernel_release, 0, "kernel"},
    {"launch", gt_handle_launch, 0, "kernel range args options wait"},
    {"wait", gt_handle_wait, 0, "event"},
    {"report", gt_handle_report, 0, "event"},
    {"event_release", gt_handle_event_release, 0, "event"},
    {"status", handle_status, 0, ""},
    {"reports", handle_reports, 0, "limit"},
    {"wisdom_import", gt_handle_wisdom_import, 0, "wisdom"},
    {"wisdom_clear", gt_handle_wisdom_clear, 0, ""},
};
#define NHANDLERS (sizeof handlers / sizeof handlers[0])

/* "hello, buffer_create, ... and wisdom_clear", from the table, for the unknown-type error;
 * test_daemon checks that this list and schemas/protocol name the same request types. */
static const char *known_types(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NHANDLERS && len < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == NHANDLERS ? " and " : ", ";
        int n = snprintf(buf + len, size - len, "%s%s", sep, handlers[i].type);
        len += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

void gt_requests_dispatch(gt_session *s, const cJSON *msg, int *fds, unsigned nfds)
{
    gt_request r = {.s = s, .msg = msg, .fds = fds, .nfds = nfds};
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    if (!gt_field_id(&r, msg, "id", &r.id))
        return;
    const struct handler *h = NULL;
    for (size_t i = 0; cJSON_IsString(type) && i < NHANDLERS && !h; i++)
        if (strcmp(type->valuestring, handlers[i].type) == 0)
            h = &handlers[i];
    if (!h) {
        char known[512];
        gt_request_fail(&r, GT_ERR_TYPE, EOPNOTSUPP, "unknown request type %s%s%s; protocol %d has %s",
                        cJSON_IsString(type) ? "\"" : "", cJSON_IsString(type) ? type->valuestring : type ? "(not a string)" : "(none)",
                        cJSON_IsString(type) ? "\"" : "", GT_PROTOCOL_VERSION, known_types(known, sizeof known));
        return;
    }
    r.type = h->type;
    if (!s->greeted && h->run != handle_hello) {
        gt_request_fail(&r, GT_ERR_REQUEST, EPROTO, "the first request on a connection must be hello (protocol %d)",
                        GT_PROTOCOL_VERSION);
        return;
    }
    if (!gt_fields_known(&r, msg, h->fields, "type id"))
        return;
    if (nfds != h->fds) {
        gt_request_fail(&r, GT_ERR_REQUEST, EINVAL, "%s carries %u file descriptor%s, but %u came with it", h->type,
                        h->fds, h->fds == 1 ? "" : "s", nfds);
        return;
    }
    h->run(&r);
}

static void handle_hello(const gt_request *r)
{
    gt_session *s = r->s;
    uint64_t protocol;
    const char *client;
    if (s->greeted) {
        gt_request_fail(r, GT_ERR_REQUEST, EALREADY, "hello was already sent on this connection");
        return;
    }
    if (s->refusal[0]) {
        gt_request_fail(r, GT_ERR_LIMIT, s->refusal_errno, "%s", s->refusal);
        gt_session_flush(s);
        gt_session_close(s, "it was over a connection limit");
        return;
    }
    if (!gt_field_uint(r, r->msg, "protocol", 0, UINT32_MAX, false, 0, &protocol) ||
        !gt_field_string(r, r->msg, "client", true, true, &client))
        return;
    if (protocol != GT_PROTOCOL_VERSION) {
        gt_request_fail(r, GT_ERR_VERSION, EPROTONOSUPPORT,
                        "this gridtuned speaks protocol %d, and the client asked for protocol %" PRIu64
                        "; use a libgridtune of the same release as the daemon",
                        GT_PROTOCOL_VERSION, protocol);
        gt_session_flush(s);
        gt_session_close(s, "it asked for another protocol version");
        return;
    }
    s->greeted = true;
    cJSON *res = cJSON_CreateObject();
    if (res) {
        cJSON_AddNumberToObject(res, "protocol", GT_PROTOCOL_VERSION);
        cJSON_AddStringToObject(res, "daemon", "gridtuned " GT_VERSION);
        cJSON_AddNumberToObject(res, "pid", (double)getpid());
        cJSON_AddNumberToObject(res, "workers", gt_pool_workers(s->d->pool));
    }
    gt_request_reply(r, res);
}

static void handle_status(const gt_request *r)
{
    cJSON *res = cJSON_CreateObject(), *status = gt_status_build(r->s->d);
    if (res && status && cJSON_AddItemToObject(res, "status", status)) {
        gt_request_reply(r, res);
        return;
    }
    cJSON_Delete(res);
    cJSON_Delete(status);
    gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory building its status");
}

static void handle_reports(const gt_request *r)
{
    uint64_t limit;
    if (!gt_field_uint(r, r->msg, "limit", 1, 1000, true, 20, &limit))
        return;
    const gt_report_ring *ring = r->s->d->reports;
    bool all = gt_report_reader_sees_all(r->s->d->cfg->system, (unsigned)r->s->uid);
    cJSON *res = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(res, "reports");
    unsigned uid;
    const char *json;
    for (size_t i = 0, n = 0; list && n < limit && (json = gt_report_ring_get(ring, i, NULL, &uid)); i++) {
        if (!all && uid != (unsigned)r->s->uid)
            continue;
        cJSON *report = cJSON_Parse(json);
        if (!report || !cJSON_AddItemToArray(list, report)) {
            cJSON_Delete(report);
            list = NULL;
        }
        n++;
    }
    if (!list) {
        cJSON_Delete(res);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory listing reports");
        return;
    }
    gt_request_reply(r, res);
}

static void handle_buffer_create(const gt_request *r)
{
    gt_session *s = r->s;
    const gt_limits *lim = &s->d->cfg->limits;
    uint64_t size;
    char err[512];
    if (!gt_field_uint(r, r->msg, "size", 1, GT_ID_MAX, false, 0, &size))
        return;
    if (s->buffers.count >= lim->max_buffers) {
        gt_request_fail(r, GT_ERR_LIMIT, ENOSPC, "this client holds %zu buffers, the most gridtuned allows "
                        "(--max-buffers %u); release some first", s->buffers.count, lim->max_buffers);
        return;
    }
    if (size > lim->max_buffer_bytes - s->buffer_bytes) {
        gt_request_fail(r, GT_ERR_LIMIT, ENOSPC, "a buffer of %" PRIu64 " bytes would bring this client's buffers "
                        "to more than %" PRIu64 " bytes (--max-buffer-bytes); it holds %" PRIu64 " now",
                        size, lim->max_buffer_bytes, s->buffer_bytes);
        return;
    }
    int rc = gt_usage_buffer_add(s->d->usage, s->uid, size, err, sizeof err);
    if (rc) {
        gt_request_fail(r, rc == -ENOMEM ? GT_ERR_INTERNAL : GT_ERR_LIMIT, -rc, "%s", err);
        return;
    }
    gt_shm *b;
    rc = gt_shm_map(r->fds[0], size, &b, err, sizeof err);
    if (rc) {
        gt_usage_buffer_remove(s->d->usage, s->uid, size);
        gt_request_fail(r, rc == -ENOMEM ? GT_ERR_INTERNAL : GT_ERR_BUFFER, -rc, "%s", err);
        return;
    }
    b->usage = s->d->usage;
    b->uid = s->uid;
    uint64_t id = gt_session_new_id(s);
    cJSON *res = cJSON_CreateObject();
    if (!res || !cJSON_AddNumberToObject(res, "buffer", (double)id) || gt_idtable_add(&s->buffers, id, b) != 0) {
        cJSON_Delete(res);
        gt_shm_unref(b);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory recording the buffer");
        return;
    }
    s->buffer_bytes += size;
    gt_request_reply(r, res);
}

static void handle_buffer_release(const gt_request *r)
{
    uint64_t id;
    if (!gt_field_id(r, r->msg, "buffer", &id))
        return;
    gt_shm *b = gt_idtable_remove(&r->s->buffers, id);
    if (!b) {
        gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "buffer_release: this connection has no buffer %" PRIu64, id);
        return;
    }
    r->s->buffer_bytes -= b->size;
    gt_shm_unref(b);
    gt_request_reply(r, NULL);
}
