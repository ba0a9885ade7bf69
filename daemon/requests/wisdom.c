/* wisdom.c: wisdom_import and wisdom_clear, so that `gridtune wisdom import|clear`
 * change the wisdom of a running daemon (which would otherwise write its own copy over an
 * edited file). The wisdom belongs to the launcher thread, so both run as jobs on its queue,
 * between launches, and the file is saved before the answer goes out. Only the daemon's own
 * user (or root) may change it: in system mode the group shares the decisions. */
#include "dispatch.h"

#include "daemon/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct wisdom_job {
    gt_job job;
    gt_session *s;
    uint64_t request;
    const char *type;
    char *text; /* import: the document; NULL: clear */
    size_t changed, entries;
    int rc;
    char err[1024];
} wisdom_job;

static void wisdom_run(gt_job *job)
{
    wisdom_job *j = (wisdom_job *)job;
    gt_wisdom *w = j->s->d->wisdom;
    pthread_mutex_lock(&j->s->d->wisdom_lock);
    if (j->text) {
        j->rc = gt_wisdom_merge_text(w, j->text, strlen(j->text), "the client's wisdom", &j->changed, j->err,
                                     sizeof j->err);
    } else {
        j->changed = gt_wisdom_count(w);
        gt_wisdom_clear(w);
    }
    if (j->rc == 0)
        gt_wisdom_saver_changed(j->s->d->wisdom_saver);
    j->entries = gt_wisdom_count(w);
    pthread_mutex_unlock(&j->s->d->wisdom_lock);
    if (j->rc == 0)
        j->rc = gt_wisdom_saver_save_now(j->s->d->wisdom_saver, j->err, sizeof j->err);
}

static void wisdom_done(gt_job *job)
{
    wisdom_job *j = (wisdom_job *)job;
    gt_session *s = j->s;
    if (j->rc) {
        gt_reply_error(s, j->request, j->type, j->rc == -EINVAL ? GT_ERR_REQUEST : GT_ERR_INTERNAL, -j->rc, j->err);
    } else {
        cJSON *res = cJSON_CreateObject();
        cJSON_AddNumberToObject(res, j->text ? "merged" : "cleared", (double)j->changed);
        cJSON_AddNumberToObject(res, "entries", (double)j->entries);
        gt_log_info("client %d: wisdom %s: %zu entries now", (int)s->pid, j->text ? "imported" : "cleared",
                    j->entries);
        gt_reply_result(s, j->request, j->type, res);
    }
    gt_session_unref(s);
    free(j->text);
    free(j);
}

static void queue_wisdom_job(const gt_request *r, char *text)
{
    gt_session *s = r->s;
    if (s->uid != getuid() && s->uid != 0) {
        free(text);
        gt_request_fail(r, GT_ERR_REQUEST, EPERM, "%s: only the daemon's own user (uid %u) or root may change its "
                        "wisdom", r->type, (unsigned)getuid());
        return;
    }
    wisdom_job *j = calloc(1, sizeof *j);
    if (!j) {
        free(text);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory");
        return;
    }
    *j = (wisdom_job){.job = {.run = wisdom_run, .done = wisdom_done}, .s = gt_session_ref(s), .request = r->id,
                      .type = r->type, .text = text};
    gt_jobq_push(s->d->launcher, &j->job);
}

void gt_handle_wisdom_import(const gt_request *r)
{
    const cJSON *doc;
    if (!gt_field_typed(r, r->msg, "wisdom", cJSON_Object, "a wisdom document (schemas/wisdom.schema.json)", &doc))
        return;
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    if (!doc)
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "wisdom_import: field \"wisdom\" is missing; expected a wisdom "
                        "document (schemas/wisdom.schema.json)");
    else if (!text)
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory");
    else
        queue_wisdom_job(r, text);
}

void gt_handle_wisdom_clear(const gt_request *r)
{
    queue_wisdom_job(r, NULL);
}
