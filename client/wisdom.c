/* wisdom.c: changing a running daemon's wisdom (gt_daemon_wisdom_import, _clear). The
 * daemon merges or clears and saves before it answers, so the file and the daemon agree. */
#include "connection.h"
#include "handle.h"
#include "handle_registry.h"
#include "last_error.h"
#include "message.h"

#include <errno.h>
#include <stdlib.h>

/* A count field of the result (0 .. 2^53-1) into *out when out is not NULL. */
static int result_count(gt_client *c, const cJSON *result, const char *type, const char *field, size_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, field);
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!(d >= 0 && d <= (double)GT_JSON_INT_MAX) || d != (double)(uint64_t)d)
        return gt_fail(c, -EPROTO, "gridtuned's answer to %s has no count \"%s\"", type, field);
    if (out)
        *out = (size_t)d;
    return 0;
}

static int call_counted(gt_client *c, cJSON *req, const char *type, const char *field, size_t *count)
{
    cJSON *result;
    int rc = gt_conn_call(c, req, NULL, 0, &result);
    if (rc)
        return rc;
    rc = result_count(c, result, type, field, count);
    cJSON_Delete(result);
    return rc;
}

int gt_daemon_wisdom_import(gt_client *c, const char *json, size_t *merged)
{
    int rc = gt_handle_check_client(c, "gt_daemon_wisdom_import");
    if (rc)
        return rc;
    if (!c || !json)
        return gt_fail(c, -EINVAL, "gt_daemon_wisdom_import needs a handle and a wisdom document (got NULL)");
    cJSON *doc = cJSON_Parse(json);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return gt_fail(c, -EINVAL, "the wisdom to import is not a JSON object; expected a wisdom file's content");
    }
    cJSON *req = gt_msg_request("wisdom_import");
    if (!req || !cJSON_AddItemToObject(req, "wisdom", doc)) {
        cJSON_Delete(req);
        cJSON_Delete(doc);
        return gt_fail(c, -ENOMEM, "no memory for a wisdom_import request");
    }
    return call_counted(c, req, "wisdom_import", "merged", merged);
}

int gt_daemon_wisdom_clear(gt_client *c, size_t *cleared)
{
    int rc = gt_handle_check_client(c, "gt_daemon_wisdom_clear");
    if (rc)
        return rc;
    if (!c)
        return gt_fail(c, -EINVAL, "gt_daemon_wisdom_clear needs a handle (got NULL)");
    cJSON *req = gt_msg_request("wisdom_clear");
    if (!req)
        return gt_fail(c, -ENOMEM, "no memory for a wisdom_clear request");
    return call_counted(c, req, "wisdom_clear", "cleared", cleared);
}
