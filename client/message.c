/* message.c: requests built and results read with cJSON (message.h). A result the daemon
 * sends in the wrong shape is a broken contract, reported as -EPROTO with the field named. */
#include "message.h"

#include "last_error.h"

#include <errno.h>
#include <math.h>

cJSON *gt_msg_request(const char *type)
{
    cJSON *msg = cJSON_CreateObject();
    if (msg && !cJSON_AddStringToObject(msg, "type", type)) {
        cJSON_Delete(msg);
        return NULL;
    }
    return msg;
}

int gt_msg_add_id(cJSON *msg, const char *field, uint64_t id)
{
    return cJSON_AddNumberToObject(msg, field, (double)id) ? 0 : -ENOMEM;
}

int gt_msg_result_id(gt_client *c, const cJSON *result, const char *type, const char *field, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, field);
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(d >= 1 && d <= (double)GT_JSON_INT_MAX && d == (double)(uint64_t)d))
        return gt_fail(c, -EPROTO, "gridtuned answered %s without a valid \"%s\" (an integer 1 .. 2^53-1)", type,
                       field);
    *out = (uint64_t)d;
    return 0;
}

int gt_msg_result_json(gt_client *c, const cJSON *result, const char *type, const char *field, char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, field);
    if (!v)
        return gt_fail(c, -EPROTO, "gridtuned answered %s without \"%s\"", type, field);
    *out = cJSON_PrintUnformatted(v);
    if (!*out)
        return gt_fail(c, -ENOMEM, "no memory for the \"%s\" of gridtuned's answer to %s", field, type);
    return 0;
}
