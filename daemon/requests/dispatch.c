/* dispatch.c: the table of request types gridtuned answers, the dispatch that checks a
 * request against its row (id, type, fields, descriptors) and runs its handler, and the
 * handshake (hello). Each family of requests has its handlers in a file of its own here. */
#include "dispatch.h"

#include "daemon/buffer_store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void handle_hello(const gt_request *r);

static const struct handler {
    const char *type;
    void (*run)(const gt_request *r);
    unsigned fds;        /* descriptors the request carries */
    const char *fields;  /* the fields it may have besides type and id */
} handlers[] = {
    {"hello", handle_hello, 0, "protocol client"},
    {"buffer_create", gt_handle_buffer_create, 1, "size"},
    {"buffer_release", gt_handle_buffer_release, 0, "buffer"},
    {"kernel_load", gt_handle_kernel_load, 0, "path name"},
    {"kernel_build", gt_handle_kernel_build, 0, "source name options"},
    {"kernel_release", gt_handle_kernel_release, 0, "kernel"},
    {"launch", gt_handle_launch, 0, "kernel range args options wait answer keep_event"},
    {"wait", gt_handle_wait, 0, "event"},
    {"report", gt_handle_report, 0, "event"},
    {"event_release", gt_handle_event_release, 0, "event"},
    {"cancel", gt_handle_cancel, 0, "event"},
    {"status", gt_handle_status, 0, ""},
    {"reports", gt_handle_reports, 0, "limit"},
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
        cJSON_AddNumberToObject(res, "workers", s->d->workers);
    }
    /* with the user's buffer store, where the client makes its buffers (buffer_store.h) */
    cJSON *msg = gt_result_message(r->id, res);
    if (msg)
        gt_session_send_fd(s, msg, r->type, gt_buffer_stores_get(s->d->stores, s->uid));
    else
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory building the answer");
}
