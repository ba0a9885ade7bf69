/* status.c: the status and reports requests: the daemon's state as /status shows it
 * (daemon/status.c builds it), and the recent launch reports this client may read. */
#include "dispatch.h"

#include "daemon/status.h"

#include <errno.h>
#include <stdbool.h>

void gt_handle_status(const gt_request *r)
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

void gt_handle_reports(const gt_request *r)
{
    uint64_t limit;
    if (!gt_field_uint(r, r->msg, "limit", 1, 1000, true, 20, &limit))
        return;
    gt_report_ring *ring = r->s->d->reports;
    bool all = gt_report_reader_sees_all(r->s->d->cfg->system, (unsigned)r->s->uid);
    cJSON *res = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(res, "reports");
    unsigned uid;
    gt_launch_report *kept;
    for (size_t i = 0, n = 0; list && n < limit && (kept = gt_report_ring_get(ring, i, NULL, &uid)); i++) {
        if (!all && uid != (unsigned)r->s->uid)
            continue;
        const char *json = gt_launch_report_text(kept);
        cJSON *report = json ? cJSON_Parse(json) : NULL;
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
