/* buffers.c: buffer_create and buffer_release. A buffer is a sealed memfd, or a file on the
 * user's store (buffer_store.h), that the client passes with buffer_create, mapped here
 * (daemon/shm.c) and counted against the client's, its user's and the daemon's limits
 * (daemon/usage.c). */
#include "dispatch.h"

#include "daemon/buffer_store.h"
#include "daemon/shm.h"
#include "daemon/usage.h"

#include "daemon/jobq.h"
#include "daemon/log.h"
#include "daemon/executor/exec_jobs.h"
#include "daemon/executor/executors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A new buffer's pages are mapped into gridtuned before any launch uses it, on the launcher
 * thread and so in order with the launches: the event loop is never held, and no analysis
 * sample of the next launch measures first-touch page faults instead of its schedule (two
 * 256 MiB buffers took 131k faults inside a cold launch). */
typedef struct populate_job {
    gt_job job;
    gt_daemon *d;
    gt_shm *b; /* a reference of the job's own */
    int rc;
} populate_job;

/* With executor processes, the buffer is mapped (and populated) in its user's executor,
 * whose mapping the kernels use, which also starts that process ahead of the first launch. */
static void populate_run(gt_job *job)
{
    populate_job *j = (populate_job *)job;
    gt_daemon *d = j->d;
    if (atomic_load(&d->stopping))
        return;
    if (!d->executors) {
        j->rc = gt_shm_populate(j->b);
        return;
    }
    gt_exec_proc *p = gt_executors_for(d->executors, j->b->uid);
    char err[512];
    gt_executors_take_cpus(d->executors, j->b->uid); /* populating is work, as a launch is */
    j->rc = p ? gt_exec_proc_map(p, j->b->serial, j->b->fd, j->b->size, err, sizeof err) : -ENOMEM;
    gt_executors_give_cpus(d->executors, j->b->uid);
    if (j->rc)
        gt_log_warn("buffer %" PRIu64 " could not be mapped ahead of its launches: %s", j->b->serial,
                    p ? err : "out of memory");
}

/* The executors still name the buffer's descriptor until the job has run, so it must not be
 * closed (and its number reused for another buffer) before: without the job (gridtuned stopping,
 * or no memory) it is left open for the rest of gridtuned's life. */
static void on_released(void *ctx, gt_shm *b)
{
    (void)gt_exec_jobs_unmap(ctx, b->uid, b->serial, b->fd);
    b->fd = -1;
}

static void populate_done(gt_job *job)
{
    populate_job *j = (populate_job *)job;
    static bool warned;
    j->d->stats.populating--;
    if (j->rc && !warned) {
        warned = true;
        gt_log_warn("cannot map new buffers' pages in ahead of their launches (%s%s); their first launch takes "
                    "the page faults", strerror(-j->rc), j->rc == -EINVAL ? ": the kernel predates Linux 5.14" : "");
    }
    gt_shm_unref(j->b);
    free(j);
}

/* Without memory the buffer is simply faulted in by its first launch. */
static void queue_populate(gt_daemon *d, gt_shm *b)
{
    populate_job *j = d->cfg->no_populate && !d->executors ? NULL : calloc(1, sizeof *j);
    if (!j)
        return;
    gt_jobq *queue = gt_exec_jobs_queue(d, b->uid);
    if (!queue) { /* its first launch maps it, or fails saying why */
        free(j);
        return;
    }
    *j = (populate_job){.job = {.run = populate_run, .done = populate_done}, .d = d, .b = gt_shm_ref(b)};
    d->stats.populating++;
    gt_jobq_push(queue, &j->job);
}

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
    rc = gt_shm_map(r->fds[0], size, !s->d->executors, gt_buffer_stores_holds(s->d->stores, s->uid, r->fds[0]), &b,
                    err, sizeof err);
    if (rc) {
        gt_usage_buffer_remove(s->d->usage, s->uid, size);
        gt_request_fail(r, rc == -ENOMEM ? GT_ERR_INTERNAL : GT_ERR_BUFFER, -rc, "%s", err);
        return;
    }
    b->usage = s->d->usage;
    b->uid = s->uid;
    if (s->d->executors) {
        b->released = on_released;
        b->released_ctx = s->d;
    }
    uint64_t id = gt_session_new_id(s);
    cJSON *res = cJSON_CreateObject();
    if (!res || !cJSON_AddNumberToObject(res, "buffer", (double)id) || gt_idtable_add(&s->buffers, id, b) != 0) {
        cJSON_Delete(res);
        gt_shm_unref(b);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory recording the buffer");
        return;
    }
    s->buffer_bytes += size;
    queue_populate(s->d, b);
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
