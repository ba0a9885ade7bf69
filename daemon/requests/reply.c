/* reply.c: answering requests and reading their fields (reply.h). */
#include "reply.h"

#include "daemon/log.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool add_header(cJSON *msg, const char *type, uint64_t id)
{
    return cJSON_AddStringToObject(msg, "type", type) &&
           (id ? cJSON_AddNumberToObject(msg, "id", (double)id) != NULL : cJSON_AddNullToObject(msg, "id") != NULL);
}

cJSON *gt_result_message(uint64_t id, cJSON *result)
{
    if (!result)
        result = cJSON_CreateObject();
    /* The header goes first for readability, so build the frame around the result's fields. */
    cJSON *msg = cJSON_CreateObject();
    if (!msg || !result || !add_header(msg, "result", id)) {
        cJSON_Delete(msg);
        cJSON_Delete(result);
        return NULL;
    }
    while (result->child) {
        cJSON *item = cJSON_DetachItemViaPointer(result, result->child);
        cJSON_AddItemToObject(msg, item->string, item);
    }
    cJSON_Delete(result);
    return msg;
}

void gt_reply_result(gt_session *s, uint64_t id, const char *type, cJSON *result)
{
    cJSON *msg = gt_result_message(id, result);
    if (!msg) {
        gt_reply_error(s, id, type, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory building the answer");
        return;
    }
    gt_session_send(s, msg, type);
}

void gt_reply_error(gt_session *s, uint64_t id, const char *type, const char *code, int errnum, const char *message)
{
    s->d->stats.errors++;
    gt_log_debug("client %d: %s %s: %s", (int)s->pid, type ? type : "frame", code, message);
    cJSON *msg = cJSON_CreateObject();
    if (!msg || !add_header(msg, "error", id) || !cJSON_AddStringToObject(msg, "code", code) ||
        !cJSON_AddNumberToObject(msg, "errno", errnum > 0 ? errnum : EIO) ||
        !cJSON_AddStringToObject(msg, "message", message)) {
        cJSON_Delete(msg);
        gt_session_close(s, "out of memory answering it");
        return;
    }
    gt_session_send(s, msg, type);
}

void gt_request_reply(const gt_request *r, cJSON *result)
{
    gt_reply_result(r->s, r->id, r->type, result);
}

void gt_request_fail(const gt_request *r, const char *code, int errnum, const char *fmt, ...)
{
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    gt_reply_error(r->s, r->id, r->type, code, errnum, message);
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

static void fail_field(const gt_request *r, const char *key, const cJSON *v, const char *expected)
{
    if (v)
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "%s: field \"%s\" is %s; expected %s", r->type ? r->type : "request",
                        key, type_name(v), expected);
    else
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "%s: field \"%s\" is missing; expected %s",
                        r->type ? r->type : "request", key, expected);
}

static bool integer_in(const cJSON *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d))
        return false;
    *out = (uint64_t)d;
    return true;
}

bool gt_field_id(const gt_request *r, const cJSON *obj, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (integer_in(v, 1, GT_ID_MAX, out))
        return true;
    fail_field(r, key, v, "an id (an integer from 1 to 2^53-1)");
    return false;
}

bool gt_field_uint(const gt_request *r, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi, bool optional,
                   uint64_t dflt, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && optional) {
        *out = dflt;
        return true;
    }
    if (integer_in(v, lo, hi, out))
        return true;
    char expected[96];
    snprintf(expected, sizeof expected, "an integer from %llu to %llu", (unsigned long long)lo, (unsigned long long)hi);
    fail_field(r, key, v, expected);
    return false;
}

bool gt_field_string(const gt_request *r, const cJSON *obj, const char *key, bool optional, bool allow_empty,
                     const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && optional) {
        *out = NULL;
        return true;
    }
    if (cJSON_IsString(v) && (allow_empty || v->valuestring[0])) {
        *out = v->valuestring;
        return true;
    }
    fail_field(r, key, v, allow_empty ? "a string" : "a non-empty string");
    return false;
}

bool gt_field_typed(const gt_request *r, const cJSON *obj, const char *key, int cjson_type, const char *expected,
                    const cJSON **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = v;
    if (!v || (v->type & 0xff) == cjson_type)
        return true;
    fail_field(r, key, v, expected);
    return false;
}

static bool word_in(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

bool gt_fields_known(const gt_request *r, const cJSON *obj, const char *allowed, const char *also)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (word_in(allowed, item->string) || (also && word_in(also, item->string)))
            continue;
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "%s: unknown field \"%s\"; expected %s%s%s",
                        r->type ? r->type : "request", item->string, *allowed ? allowed : "no fields",
                        also ? " " : "", also ? also : "");
        return false;
    }
    return true;
}
