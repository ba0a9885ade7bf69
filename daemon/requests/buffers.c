/* buffers.c: buffer_create and buffer_release. A buffer is a sealed memfd the client passes
 * with buffer_create, mapped here (daemon/shm.c) and counted against the client's, its user's
 * and the daemon's limits (daemon/usage.c). */
#include "dispatch.h"

#include "daemon/shm.h"
#include "daemon/usage.h"

#include <errno.h>
#include <inttypes.h>

void gt_handle_buffer_create(const gt_request *r)
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

void gt_handle_buffer_release(const gt_request *r)
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
