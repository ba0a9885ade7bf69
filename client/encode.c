/* encode.c: launch fields as JSON (encode.h). JSON numbers are doubles, so the values a
 * double cannot carry exactly travel as text, as protocol.h says: 64-bit integers as decimal
 * strings, and non-finite floats as "nan", "inf" or "-inf" (cJSON would print them as null). */
#include "encode.h"

#include "handle.h"
#include "last_error.h"
#include "message.h"

#include "protocol/protocol.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* Adds item to array, or frees it; false without memory (item NULL included). */
static bool append(cJSON *array, cJSON *item)
{
    if (item && cJSON_AddItemToArray(array, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static bool put(cJSON *object, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(object, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static int no_memory(gt_client *c, const char *what)
{
    return gt_fail(c, -ENOMEM, "no memory to encode the launch's %s", what);
}

static cJSON *float_value(double v)
{
    if (isnan(v))
        return cJSON_CreateString("nan");
    if (isinf(v))
        return cJSON_CreateString(v > 0 ? "inf" : "-inf");
    return cJSON_CreateNumber(v);
}

static cJSON *decimal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cJSON *decimal(const char *fmt, ...)
{
    char text[24]; /* "-9223372036854775808" and its terminator fit */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cJSON_CreateString(text);
}

int gt_encode_range(gt_client *c, cJSON *req, const gt_range *range)
{
    if (range->dims < 1 || range->dims > 3)
        return gt_fail(c, -EINVAL, "the launch range has %u dimensions; expected 1, 2 or 3", range->dims);
    for (unsigned d = 0; d < range->dims; d++) {
        size_t big = range->global[d] > range->local[d] ? range->global[d] : range->local[d];
        if ((uint64_t)big > GT_JSON_INT_MAX)
            return gt_fail(c, -EINVAL,
                           "the launch range's size %zu in dimension %u is over 2^53-1, the most it can carry", big, d);
    }
    cJSON *r = cJSON_CreateObject();
    bool ok = r && cJSON_AddNumberToObject(r, "dims", range->dims);
    cJSON *global = ok ? cJSON_AddArrayToObject(r, "global") : NULL;
    cJSON *local = global ? cJSON_AddArrayToObject(r, "local") : NULL;
    ok = local != NULL;
    for (unsigned d = 0; ok && d < range->dims; d++)
        ok = append(global, cJSON_CreateNumber((double)range->global[d])) &&
             append(local, cJSON_CreateNumber((double)range->local[d]));
    if (!ok) {
        cJSON_Delete(r);
        return no_memory(c, "range");
    }
    return put(req, "range", r) ? 0 : no_memory(c, "range");
}

/* The one-key object for argument i, or NULL with a sentence in *rc (0 for no memory). */
static cJSON *encode_arg(gt_client *c, const gt_arg *a, unsigned i, int *rc)
{
    const char *key;
    cJSON *v;
    switch (a->kind) {
    case GT_ARG_BUFFER:
        if (!a->value.buffer) {
            *rc = gt_fail(c, -EINVAL, "argument %u is a buffer argument holding no buffer (NULL)", i);
            return NULL;
        }
        if (a->value.buffer->client != c) {
            *rc = gt_fail(c, -EINVAL,
                          "argument %u is a buffer of another gridtune handle; a launch takes only its own "
                          "handle's buffers", i);
            return NULL;
        }
        key = "buffer";
        v = cJSON_CreateNumber((double)a->value.buffer->id);
        break;
    case GT_ARG_I32: key = "i32"; v = cJSON_CreateNumber(a->value.i32); break;
    case GT_ARG_U32: key = "u32"; v = cJSON_CreateNumber(a->value.u32); break;
    case GT_ARG_I64: key = "i64"; v = decimal("%" PRId64, a->value.i64); break;
    case GT_ARG_U64: key = "u64"; v = decimal("%" PRIu64, a->value.u64); break;
    case GT_ARG_F32: key = "f32"; v = float_value(a->value.f32); break;
    case GT_ARG_F64: key = "f64"; v = float_value(a->value.f64); break;
    default:
        *rc = gt_fail(c, -EINVAL, "argument %u has kind %d; expected a gt_arg_kind (make arguments with gt_arg_*)", i,
                      (int)a->kind);
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    if (!put(o, key, v)) {
        cJSON_Delete(o);
        *rc = no_memory(c, "arguments");
        return NULL;
    }
    return o;
}

int gt_encode_args(gt_client *c, cJSON *req, const gt_arg *args, unsigned nargs)
{
    if (nargs > 0 && !args)
        return gt_fail(c, -EINVAL, "the launch has %u arguments but args is NULL", nargs);
    cJSON *list = cJSON_CreateArray();
    if (!list)
        return no_memory(c, "arguments");
    for (unsigned i = 0; i < nargs; i++) {
        int rc = 0;
        cJSON *a = encode_arg(c, &args[i], i, &rc);
        if (!a || !append(list, a)) {
            cJSON_Delete(list);
            return a ? no_memory(c, "arguments") : rc;
        }
    }
    return put(req, "args", list) ? 0 : no_memory(c, "arguments");
}

static int encode_wait(gt_client *c, cJSON *req, const gt_launch_options *o)
{
    if (o->nwait == 0)
        return 0;
    if (!o->wait)
        return gt_fail(c, -EINVAL, "the launch options name %u events to wait for but wait is NULL", o->nwait);
    cJSON *list = cJSON_CreateArray();
    if (!list)
        return no_memory(c, "wait list");
    for (unsigned i = 0; i < o->nwait; i++) {
        if (o->wait[i] < 1 || o->wait[i] > GT_JSON_INT_MAX) {
            cJSON_Delete(list);
            return gt_fail(c, -EINVAL, "entry %u of the wait list is %" PRIu64 ", which is not an event", i,
                           o->wait[i]);
        }
        if (!append(list, cJSON_CreateNumber((double)o->wait[i]))) {
            cJSON_Delete(list);
            return no_memory(c, "wait list");
        }
    }
    return put(req, "wait", list) ? 0 : no_memory(c, "wait list");
}

static const char *tuning_name(gt_tuning t)
{
    switch (t) {
    case GT_TUNING_AUTO: return "auto";
    case GT_TUNING_OFF: return "off";
    case GT_TUNING_RETUNE: return "retune";
    }
    return NULL;
}

int gt_encode_options(gt_client *c, cJSON *req, const gt_launch_options *opts)
{
    gt_launch_options o = opts ? *opts : gt_launch_options_default();
    const char *tuning = tuning_name(o.tuning);
    if (!tuning)
        return gt_fail(c, -EINVAL, "the launch options' tuning is %d; expected GT_TUNING_AUTO, _OFF or _RETUNE",
                       (int)o.tuning);
    if (o.budget > 0 && !isfinite(o.budget))
        return gt_fail(c, -EINVAL, "the launch options' budget is %g; expected a share in (0, 0.5), or 0", o.budget);
    if (o.deadline_ms > GT_DEADLINE_MS_MAX)
        return gt_fail(c, -EINVAL, "the launch options' deadline is %u ms; at most %u (a day), or 0 for the daemon's",
                       o.deadline_ms, GT_DEADLINE_MS_MAX);
    cJSON *j = cJSON_CreateObject();
    bool ok = j != NULL;
    /* only what differs from the defaults travels, so the daemon's own defaults apply */
    if (ok && o.schedule)
        ok = cJSON_AddStringToObject(j, "schedule", o.schedule) != NULL;
    if (ok && o.tuning != GT_TUNING_AUTO)
        ok = cJSON_AddStringToObject(j, "tuning", tuning) != NULL;
    if (ok && o.budget > 0)
        ok = cJSON_AddNumberToObject(j, "budget", o.budget) != NULL;
    if (ok && o.metric)
        ok = cJSON_AddStringToObject(j, "metric", o.metric) != NULL;
    if (ok && o.deadline_ms)
        ok = cJSON_AddNumberToObject(j, "deadline_ms", o.deadline_ms) != NULL;
    if (!ok || !put(req, "options", j)) {
        if (!ok)
            cJSON_Delete(j);
        return no_memory(c, "options");
    }
    return encode_wait(c, req, &o);
}
