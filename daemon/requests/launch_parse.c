/* launch_parse.c: reading a launch request's range, arguments and options (launch_parse.h). */
#include "launch_parse.h"

#include "tuner/grid.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool size_list(const gt_request *r, const cJSON *range, const char *key, uint64_t dims, size_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(range, key);
    if (!cJSON_IsArray(v) || (uint64_t)cJSON_GetArraySize(v) != dims) {
        gt_request_fail(r, GT_ERR_RANGE, EINVAL, "range: \"%s\" must be an array of %" PRIu64 " sizes, one per dimension",
                        key, dims);
        return false;
    }
    for (uint64_t d = 0; d < dims; d++) {
        const cJSON *e = cJSON_GetArrayItem(v, (int)d);
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble <= (double)GT_ID_MAX) ||
            e->valuedouble != floor(e->valuedouble)) {
            gt_request_fail(r, GT_ERR_RANGE, EINVAL, "range: %s[%" PRIu64 "] must be a size (an integer >= 0)", key, d);
            return false;
        }
        out[d] = (size_t)e->valuedouble;
    }
    return true;
}

bool gt_parse_range(const gt_request *r, const cJSON *v, gt_range *out)
{
    if (!cJSON_IsObject(v)) {
        gt_request_fail(r, GT_ERR_RANGE, EINVAL, "launch: \"range\" must be an object {dims, global, local}");
        return false;
    }
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(v, "dims");
    if (!cJSON_IsNumber(dims) || dims->valuedouble != floor(dims->valuedouble) || dims->valuedouble < 1 ||
        dims->valuedouble > 3) {
        if (cJSON_IsNumber(dims))
            gt_request_fail(r, GT_ERR_RANGE, EINVAL, "range: dims %g: expected 1, 2 or 3 dimensions", dims->valuedouble);
        else
            gt_request_fail(r, GT_ERR_RANGE, EINVAL, "range: dims is missing or not a number: expected 1, 2 or 3");
        return false;
    }
    if (!gt_fields_known(r, v, "dims global local", NULL))
        return false;
    gt_range range = {.dims = (unsigned)dims->valuedouble, .global = {1, 1, 1}, .local = {1, 1, 1}};
    char err[256];
    if (!size_list(r, v, "global", range.dims, range.global) || !size_list(r, v, "local", range.dims, range.local))
        return false;
    if (gt_range_check(&range, err, sizeof err) != 0) {
        gt_request_fail(r, GT_ERR_RANGE, EINVAL, "range: %s", err);
        return false;
    }
    *out = range;
    return true;
}

/* A decimal string into a 64-bit integer, signed or not: digits only, an optional minus for
 * signed ones, no leading zeros, spaces or plus signs (strtoll would take those). */
static bool decimal(const char *s, bool is_signed, gt_arg_value *a)
{
    char *end;
    errno = 0;
    const char *digits = is_signed && s[0] == '-' ? s + 1 : s;
    if (!digits[0] || strspn(digits, "0123456789") != strlen(digits) || (digits[0] == '0' && digits[1]) ||
        (digits != s && strcmp(digits, "0") == 0))
        return false;
    if (is_signed)
        a->v.i64 = strtoll(s, &end, 10);
    else
        a->v.u64 = strtoull(s, &end, 10);
    return !errno && end != s && !*end;
}

static bool float_value(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v))
        return false;
    if (strcmp(v->valuestring, "nan") == 0)
        *out = NAN;
    else if (strcmp(v->valuestring, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(v->valuestring, "-inf") == 0)
        *out = -INFINITY;
    else
        return false;
    return true;
}

static bool integer_value(const cJSON *v, double lo, double hi, double *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return false;
    *out = v->valuedouble;
    return true;
}

/* One argument object: exactly one key naming its kind. */
static bool parse_arg(const gt_request *r, unsigned i, const cJSON *v, gt_arg_value *a, gt_shm **buf)
{
    const char *kind = cJSON_IsObject(v) && v->child && !v->child->next ? v->child->string : NULL;
    const cJSON *x = kind ? v->child : NULL;
    double d;
    bool ok = false;
    *a = (gt_arg_value){0};
    *buf = NULL;
    if (!kind) {
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: argument %u must be an object with one key: buffer, i32, u32, "
                        "i64, u64, f32 or f64", i);
        return false;
    }
    if (strcmp(kind, "buffer") == 0) {
        uint64_t id;
        if (!gt_field_id(r, v, "buffer", &id))
            return false;
        if (!(*buf = gt_idtable_find(&r->s->buffers, id))) {
            gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "launch: argument %u names buffer %" PRIu64
                            ", which this connection does not have", i, id);
            return false;
        }
        a->is_buffer = true;
        a->v.ptr = (*buf)->data;
        return true;
    }
    if (strcmp(kind, "i32") == 0 && (ok = integer_value(x, INT32_MIN, INT32_MAX, &d)))
        a->v.i32 = (int32_t)d, a->size = 4;
    else if (strcmp(kind, "u32") == 0 && (ok = integer_value(x, 0, UINT32_MAX, &d)))
        a->v.u32 = (uint32_t)d, a->size = 4;
    else if (strcmp(kind, "i64") == 0 && cJSON_IsString(x) && (ok = decimal(x->valuestring, true, a)))
        a->size = 8;
    else if (strcmp(kind, "u64") == 0 && cJSON_IsString(x) && (ok = decimal(x->valuestring, false, a)))
        a->size = 8;
    else if (strcmp(kind, "f32") == 0 && (ok = float_value(x, &d) && !(isfinite(d) && fabs(d) > FLT_MAX)))
        a->v.f32 = (float)d, a->size = 4;
    else if (strcmp(kind, "f64") == 0 && (ok = float_value(x, &d)))
        a->v.f64 = d, a->size = 8;
    if (!ok)
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: argument %u {\"%s\": ...}: expected buffer (an id), i32 or u32 "
                        "(an integer in range), i64 or u64 (a decimal string), f32 or f64 (a number, \"nan\", "
                        "\"inf\" or \"-inf\")", i, kind);
    return ok;
}

/* Whether a scalar parameter's C type, as written in GT_KERNEL, is a floating type ('f'), an
 * integer type ('i'), or a name gridtune cannot see through, such as a typedef ('?'). */
static char type_family(const char *type)
{
    if (strstr(type, "float") || strstr(type, "double"))
        return 'f';
    static const char *const integers[] = {"int", "long", "short", "char", "size_t", "unsigned", "signed", "_Bool",
                                           "bool"};
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strstr(type, integers[i]))
            return 'i';
    return '?';
}

/* The sizes already match (gt_args_check): a float sent for an integer parameter, or the
 * other way round, would pass as bytes of the same size and mean something else. */
static bool check_families(const gt_request *r, const gt_kernel_desc *desc, const cJSON *v, unsigned nargs)
{
    for (unsigned i = 0; i < nargs; i++) {
        const gt_param_desc *p = &desc->params[i];
        const char *kind = cJSON_GetArrayItem(v, (int)i)->child->string;
        char want = type_family(p->type), got = kind[0] == 'f' ? 'f' : 'i';
        if (p->kind != GT_PARAM_SCALAR || want == '?' || want == got)
            continue;
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: argument %u (%s) of %s: expected %s scalar (%s), got %s", i,
                        p->name, desc->name, want == 'f' ? "a floating-point" : "an integer", p->type, kind);
        return false;
    }
    return true;
}

bool gt_parse_args(const gt_request *r, const cJSON *v, const gt_kernel_desc *desc, gt_arg_value *args,
                   gt_shm **bufs, unsigned *nargs)
{
    if (v && !cJSON_IsArray(v)) {
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: \"args\" must be an array");
        return false;
    }
    int n = v ? cJSON_GetArraySize(v) : 0;
    if (n > GT_MAX_ARGS) {
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: %d arguments; kernels take at most %d", n, GT_MAX_ARGS);
        return false;
    }
    for (int i = 0; i < n; i++)
        if (!parse_arg(r, (unsigned)i, cJSON_GetArrayItem(v, i), &args[i], &bufs[i]))
            return false;
    char err[512];
    if (gt_args_check(desc, args, (unsigned)n, err, sizeof err) != 0) {
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: %s", err);
        return false;
    }
    if (!check_families(r, desc, v, (unsigned)n))
        return false;
    *nargs = (unsigned)n;
    return true;
}

bool gt_check_extents(const gt_request *r, const gt_kernel_info *info, const gt_range *range, gt_shm *const *bufs,
                      unsigned nargs)
{
    size_t bytes[GT_MAX_ARGS] = {0};
    for (unsigned i = 0; i < nargs; i++)
        bytes[i] = bufs[i] ? bufs[i]->size : 0;
    /* gt_range_check allows at most 2^32 workgroups of at most 2^16 items: no overflow */
    uint64_t items = (uint64_t)range->global[0] * range->global[1] * range->global[2];
    char err[1024];
    if (gt_kernel_info_check_extents(info, items, bytes, err, sizeof err) != 0) {
        gt_request_fail(r, GT_ERR_ARGS, EINVAL, "launch: %s", err);
        return false;
    }
    return true;
}

bool gt_parse_answer(const gt_request *r, const cJSON *msg, gt_launch_answer *out)
{
    const char *answer;
    const cJSON *keep = cJSON_GetObjectItemCaseSensitive(msg, "keep_event");
    if (!gt_field_string(r, msg, "answer", true, false, &answer))
        return false;
    if (answer && strcmp(answer, "queued") != 0 && strcmp(answer, "completed") != 0) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: answer \"%s\": expected queued or completed", answer);
        return false;
    }
    if (keep && !cJSON_IsBool(keep)) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: field \"keep_event\" must be true or false");
        return false;
    }
    out->on_completion = answer && strcmp(answer, "completed") == 0;
    out->keep_event = !cJSON_IsFalse(keep);
    if (!out->keep_event && !out->on_completion) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: \"keep_event\": false needs \"answer\": \"completed\"; "
                        "a launch answered when queued is waited for through its event");
        return false;
    }
    return true;
}

bool gt_parse_options(const gt_request *r, const cJSON *v, gt_tune_config *cfg, unsigned *deadline_ms)
{
    if (!v)
        return true;
    const char *schedule, *tuning, *metric;
    const cJSON *budget;
    char err[256];
    if (!cJSON_IsObject(v)) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: \"options\" must be an object");
        return false;
    }
    if (!gt_fields_known(r, v, "schedule tuning budget metric deadline_ms", NULL))
        return false;
    uint64_t deadline;
    if (!gt_field_uint(r, v, "deadline_ms", 1, GT_DEADLINE_MS_MAX, true, 0, &deadline))
        return false;
    if (deadline)
        *deadline_ms = (unsigned)deadline;
    if (!gt_field_string(r, v, "schedule", true, false, &schedule) || !gt_field_string(r, v, "tuning", true, false, &tuning) ||
        !gt_field_string(r, v, "metric", true, false, &metric) ||
        !gt_field_typed(r, v, "budget", cJSON_Number, "a fraction above 0 and below 0.5", &budget))
        return false;
    if (schedule) {
        if (gt_schedule_parse(schedule, &cfg->schedule, err, sizeof err) != 0) {
            gt_request_fail(r, GT_ERR_SCHEDULE, EINVAL, "launch: schedule \"%s\": %s", schedule, err);
            return false;
        }
        cfg->forced = true;
    }
    if (tuning && gt_tune_mode_parse(tuning, &cfg->mode) != 0) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: tuning \"%s\": expected auto, off or retune", tuning);
        return false;
    }
    if (metric && gt_metric_parse(metric, &cfg->metric) != 0) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: metric \"%s\": expected time, ipc, l1, l2 or energy", metric);
        return false;
    }
    if (budget) {
        if (!(budget->valuedouble > 0 && budget->valuedouble < 0.5)) {
            gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: budget %g: expected a fraction of the workgroups above 0 "
                            "and below 0.5", budget->valuedouble);
            return false;
        }
        cfg->budget = budget->valuedouble;
    }
    return true;
}
