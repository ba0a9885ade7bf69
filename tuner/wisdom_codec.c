/* wisdom_codec.c: the wisdom file's JSON (schemas/wisdom.schema.json), to and from a set.
 * Reading checks every field's type and range, then the checks gt_wisdom_store uses too
 * (wisdom.c), so that a file which fails them is refused whole rather than half-trusted.
 * Writing prints numbers exactly (json.h). */
#include "wisdom_private.h"

#include "grid.h"
#include "json.h"
#include "space.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "gridtune-wisdom"
#define FORMAT_VERSION 1

/* ---- JSON to a set: every field's type and range, then the shared checks ---- */

static bool read_integer(const cJSON *v, double min, double max, double *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || floor(v->valuedouble) != v->valuedouble ||
        v->valuedouble < min || v->valuedouble > max)
        return false;
    *out = v->valuedouble;
    return true;
}

static int read_text(const cJSON *v, char *out, size_t size, char *err, size_t errlen)
{
    if (!cJSON_IsString(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "must be a string");
    if (strlen(v->valuestring) >= size)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"%.40s...\" is longer than %zu characters", v->valuestring, size - 1);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int read_sizes(const cJSON *v, const char *name, size_t out[3], char *err, size_t errlen)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" must be an array of 3 whole numbers", name);
    int d = 0;
    for (const cJSON *x = v->child; x; x = x->next, d++) {
        double size;
        double max = GT_WISDOM_JSON_INT_MAX < (double)SIZE_MAX ? GT_WISDOM_JSON_INT_MAX : (double)SIZE_MAX;
        if (!read_integer(x, 1, max, &size))
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\"[%d] must be a whole number of at least 1", name, d);
        out[d] = (size_t)size;
    }
    return 0;
}

/* The fields of object v by name, into f (NULL for an absent one): the first `required` names
   must be there, the others may be; an unknown or repeated name is refused. */
static int read_fields(const cJSON *v, const char *const *names, int n, int required, const cJSON **f, char *err,
                       size_t errlen)
{
    for (int k = 0; k < n; k++)
        f[k] = NULL;
    for (const cJSON *x = v->child; x; x = x->next) {
        int k = 0;
        while (k < n && strcmp(x->string, names[k]) != 0)
            k++;
        if (k == n)
            return gt_sentence_fail(err, errlen, -EINVAL, "unknown field \"%.40s\"", x->string);
        if (f[k])
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" appears twice", names[k]);
        f[k] = x;
    }
    for (int k = 0; k < required; k++)
        if (!f[k])
            return gt_sentence_fail(err, errlen, -EINVAL, "missing \"%s\"", names[k]);
    return 0;
}

static int read_range(const cJSON *v, gt_range *out, char *err, size_t errlen)
{
    if (!cJSON_IsObject(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "must be an object with dims, global and local");
    static const char *const names[] = {"dims", "global", "local"};
    const cJSON *f[3];
    int rc = read_fields(v, names, 3, 3, f, err, errlen);
    if (rc)
        return rc;
    double dims;
    if (!read_integer(f[0], 1, 3, &dims))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"dims\" must be 1, 2 or 3");
    gt_range r = {.dims = (unsigned)dims};
    rc = read_sizes(f[1], "global", r.global, err, errlen);
    if (rc == 0)
        rc = read_sizes(f[2], "local", r.local, err, errlen);
    if (rc == 0)
        *out = r; /* the range check itself is gt_wisdom_key_check's */
    return rc;
}

/* ---- An entry's refinement: its ranges are gt_wisdom_entry_check's ---- */

static int read_count(const cJSON *v, const char *name, unsigned *out, char *err, size_t errlen)
{
    double x;
    if (!read_integer(v, 0, UINT_MAX, &x))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" must be a whole number from 0 to %u", name, UINT_MAX);
    *out = (unsigned)x;
    return 0;
}

/* An array of distinct axis names, as bits 1 << gt_axis. */
static int read_axes(const cJSON *v, const char *name, unsigned *out, char *err, size_t errlen)
{
    if (!cJSON_IsArray(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" must be an array of axis names", name);
    unsigned axes = 0;
    for (const cJSON *x = v->child; x; x = x->next) {
        int a = cJSON_IsString(x) ? gt_axis_parse(x->valuestring, strlen(x->valuestring)) : -1;
        if (a < 0)
            return gt_sentence_fail(err, errlen, -EINVAL,
                                  "\"%s\" holds something other than an axis name: assign, item, group or span", name);
        if (axes & (1u << a))
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" names %s twice", name, gt_axis_name((gt_axis)a));
        axes |= 1u << a;
    }
    *out = axes;
    return 0;
}

static int read_costs(const cJSON *v, const char *name, double out[GT_REFINE_OBSERVATIONS], unsigned *n, char *err,
                      size_t errlen)
{
    if (!cJSON_IsArray(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" must be an array of at most %d numbers", name,
                              GT_REFINE_OBSERVATIONS);
    if (cJSON_GetArraySize(v) > GT_REFINE_OBSERVATIONS)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" has %d numbers; at most %d are kept", name,
                              cJSON_GetArraySize(v), GT_REFINE_OBSERVATIONS);
    unsigned k = 0;
    for (const cJSON *x = v->child; x; x = x->next, k++) {
        if (!cJSON_IsNumber(x))
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\"[%u] must be a number", name, k);
        out[k] = x->valuedouble;
    }
    *n = k;
    return 0;
}

static int read_contender(const cJSON *v, gt_refine_contender *out, char *err, size_t errlen)
{
    if (!cJSON_IsObject(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "must be an object with schedule, costs and incumbent_costs");
    static const char *const names[] = {"schedule", "costs", "incumbent_costs"};
    const cJSON *f[3];
    int rc = read_fields(v, names, 3, 3, f, err, errlen);
    if (rc)
        return rc;
    gt_refine_contender c = {0};
    char why[GT_WISDOM_PROBLEM_MAX];
    if (!cJSON_IsString(f[0]))
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"schedule\" must be a string such as group=tiled:4x4,item=linear,assign=block");
    if (gt_schedule_parse(f[0]->valuestring, &c.schedule, why, sizeof why) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"schedule\": %s", why);
    unsigned incumbents;
    rc = read_costs(f[1], "costs", c.cost, &c.n, err, errlen);
    if (rc == 0)
        rc = read_costs(f[2], "incumbent_costs", c.incumbent, &incumbents, err, errlen);
    if (rc)
        return rc;
    /* cost[i] and incumbent[i] were measured in the same launch: one without the other is no pair */
    if (incumbents != c.n)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"costs\" has %u numbers and \"incumbent_costs\" %u; they pair launch by launch "
                              "and must have the same length",
                              c.n, incumbents);
    *out = c;
    return 0;
}

static int read_contenders(const cJSON *v, gt_wisdom_refine *out, char *err, size_t errlen)
{
    if (!cJSON_IsArray(v))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"contenders\" must be an array of at most %d contenders",
                              GT_REFINE_CONTENDERS);
    if (cJSON_GetArraySize(v) > GT_REFINE_CONTENDERS)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"contenders\" has %d contenders; expected at most %d",
                              cJSON_GetArraySize(v), GT_REFINE_CONTENDERS);
    char why[GT_WISDOM_PROBLEM_MAX];
    unsigned i = 0;
    for (const cJSON *x = v->child; x; x = x->next, i++)
        if (read_contender(x, &out->contenders[i], why, sizeof why) != 0)
            return gt_sentence_fail(err, errlen, -EINVAL, "\"contenders\"[%u]: %s", i, why);
    out->ncontenders = i;
    return 0;
}

static int read_refine(const cJSON *v, gt_wisdom_refine *out, char *err, size_t errlen)
{
    if (!cJSON_IsObject(v))
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "must be an object with state, launches, settled_cost, drifted and contenders, "
                              "and optionally unexplored and resumes");
    /* unexplored and resumes came later: an entry without them has nothing to resume */
    static const char *const names[] = {"state",      "launches",   "settled_cost", "drifted",
                                        "contenders", "unexplored", "resumes"};
    const cJSON *f[7];
    int rc = read_fields(v, names, 7, 5, f, err, errlen);
    if (rc)
        return rc;
    gt_wisdom_refine r = {0};
    if (!cJSON_IsString(f[0]))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"state\" must be a string: settled, refining or reopened");
    if (gt_refine_state_parse(f[0]->valuestring, &r.state) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"state\": unknown state \"%.40s\"; expected settled, refining or reopened",
                              f[0]->valuestring);
    if (!cJSON_IsNumber(f[2]) && !cJSON_IsNull(f[2]))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"settled_cost\" must be a number or null");
    r.settled_cost = cJSON_IsNull(f[2]) ? NAN : f[2]->valuedouble;
    rc = read_count(f[1], "launches", &r.launches, err, errlen);
    if (rc == 0)
        rc = read_count(f[3], "drifted", &r.drifted, err, errlen);
    if (rc == 0)
        rc = read_contenders(f[4], &r, err, errlen);
    if (rc == 0 && f[5])
        rc = read_axes(f[5], "unexplored", &r.unexplored, err, errlen);
    if (rc == 0 && f[6])
        rc = read_count(f[6], "resumes", &r.resumes, err, errlen);
    if (rc == 0)
        *out = r;
    return rc;
}

/* Every field is required but refine and uid: an entry written before refinement existed has
 * none, and reads as settled with no contenders; one without uid has no known owner. */
enum {
    F_KERNEL, F_KERNEL_HASH, F_MACHINE, F_RANGE, F_WORKERS,
    F_SCHEDULE, F_METRIC, F_COST, F_GAIN, F_DECIDED, F_REFINE, F_UID, NFIELDS
};
static const char *const field_names[NFIELDS] = {
    "kernel", "kernel_hash", "machine", "range", "workers", "schedule", "metric", "cost", "gain", "decided", "refine",
    "uid",
};
/* The largest uid: (uid_t)-1 stands for no user. */
#define UID_MAX_VALID 4294967294.0

/* Converts one field's JSON value; the meaning is checked afterwards by gt_wisdom_key_check and
 * gt_wisdom_entry_check. */
static int read_field(int f, const cJSON *v, gt_wisdom_record *r, char *err, size_t errlen)
{
    gt_wisdom_key *k = &r->key;
    gt_wisdom_entry *e = &r->entry;
    double x;
    switch (f) {
    case F_KERNEL:
        return read_text(v, k->kernel, sizeof k->kernel, err, errlen);
    case F_KERNEL_HASH:
        return read_text(v, k->kernel_hash, sizeof k->kernel_hash, err, errlen);
    case F_MACHINE:
        return read_text(v, k->machine, sizeof k->machine, err, errlen);
    case F_RANGE:
        return read_range(v, &k->range, err, errlen);
    case F_WORKERS:
        if (!read_integer(v, 1, UINT_MAX, &x))
            return gt_sentence_fail(err, errlen, -EINVAL, "must be a whole number from 1 to %u", UINT_MAX);
        k->workers = (unsigned)x;
        return 0;
    case F_SCHEDULE:
        if (!cJSON_IsString(v))
            return gt_sentence_fail(err, errlen, -EINVAL,
                                  "must be a string such as group=tiled:4x4,item=linear,assign=block");
        return gt_schedule_parse(v->valuestring, &e->schedule, err, errlen);
    case F_METRIC:
        return read_text(v, e->metric, sizeof e->metric, err, errlen);
    case F_COST:
        if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
            return gt_sentence_fail(err, errlen, -EINVAL, "must be a number or null");
        e->cost = cJSON_IsNull(v) ? NAN : v->valuedouble;
        return 0;
    case F_GAIN:
        if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
            return gt_sentence_fail(err, errlen, -EINVAL, "must be a number or null");
        e->gain = cJSON_IsNull(v) ? NAN : v->valuedouble;
        return 0;
    case F_REFINE:
        return read_refine(v, &e->refine, err, errlen);
    case F_UID:
        if (!read_integer(v, 0, UID_MAX_VALID, &x))
            return gt_sentence_fail(err, errlen, -EINVAL, "must be a user id, a whole number from 0 to %.0f",
                                    UID_MAX_VALID);
        r->owner = (uint64_t)x + 1;
        return 0;
    default:
        if (!read_integer(v, 0, GT_WISDOM_JSON_INT_MAX, &x))
            return gt_sentence_fail(err, errlen, -EINVAL, "must be a unix time, a whole number from 0 to 2^53-1");
        e->decided = (int64_t)x;
        return 0;
    }
}

static int read_entry(const cJSON *obj, gt_wisdom_record *r, char *err, size_t errlen)
{
    if (!cJSON_IsObject(obj))
        return gt_sentence_fail(err, errlen, -EINVAL, "is not an object");
    *r = (gt_wisdom_record){0};
    bool seen[NFIELDS] = {false};
    char why[GT_WISDOM_PROBLEM_MAX];
    for (const cJSON *x = obj->child; x; x = x->next) {
        int f = 0;
        while (f < NFIELDS && strcmp(x->string, field_names[f]) != 0)
            f++;
        if (f == NFIELDS)
            return gt_sentence_fail(err, errlen, -EINVAL, "unknown field \"%.40s\"", x->string);
        if (seen[f])
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" appears twice", field_names[f]);
        seen[f] = true;
        if (read_field(f, x, r, why, sizeof why) != 0)
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\": %s", field_names[f], why);
    }
    for (int f = 0; f < NFIELDS; f++)
        if (!seen[f] && f != F_REFINE && f != F_UID)
            return gt_sentence_fail(err, errlen, -EINVAL, "missing \"%s\"", field_names[f]);
    int rc = gt_wisdom_key_check(&r->key, err, errlen);
    if (rc == 0)
        rc = gt_wisdom_entry_check(&r->entry, err, errlen);
    r->key.range = gt_range_normalized(&r->key.range);
    return rc;
}

static void error_position(const char *text, const char *at, int *line, int *column)
{
    *line = 1;
    *column = 1;
    for (const char *p = text; p < at; p++) {
        if (*p == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}

static int read_top(const cJSON *doc, const cJSON **entries, char *err, size_t errlen)
{
    if (!cJSON_IsObject(doc))
        return gt_sentence_fail(err, errlen, -EINVAL, "the top level is not an object");
    const char *names[] = {"format", "version", "entries"};
    const cJSON *f[3] = {NULL};
    for (const cJSON *x = doc->child; x; x = x->next) {
        int k = 0;
        while (k < 3 && strcmp(x->string, names[k]) != 0)
            k++;
        if (k == 3)
            return gt_sentence_fail(err, errlen, -EINVAL, "unknown top-level field \"%.40s\"", x->string);
        if (f[k])
            return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" appears twice", names[k]);
        f[k] = x;
    }
    if (!f[0] || !cJSON_IsString(f[0]) || strcmp(f[0]->valuestring, FORMAT_NAME) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"format\" is not \"" FORMAT_NAME "\"");
    if (!f[1] || !cJSON_IsNumber(f[1]))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"version\" is missing or not a number");
    if (f[1]->valuedouble != FORMAT_VERSION)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"version\" is %g; this gridtune reads version %d", f[1]->valuedouble,
                              FORMAT_VERSION);
    if (!f[2] || !cJSON_IsArray(f[2]))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"entries\" is missing or not an array");
    *entries = f[2];
    return 0;
}

int gt_wisdom_codec_parse(const char *text, size_t len, gt_wisdom_set *out, char *err, size_t errlen)
{
    if (len == 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "empty file, not JSON");
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line, column;
        error_position(text, nul, &line, &column);
        return gt_sentence_fail(err, errlen, -EINVAL, "a NUL byte at line %d, column %d", line, column);
    }
    /* Trailing data is checked here: cJSON's own check wants the terminator inside len. */
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
    const char *rest = doc ? end : NULL;
    while (rest && rest < text + len && strchr(" \t\r\n", *rest))
        rest++;
    if (!doc || rest < text + len) {
        int line, column;
        const char *at = doc ? rest : end;
        error_position(text, at && at >= text && at <= text + len ? at : text, &line, &column);
        cJSON_Delete(doc);
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "%s at line %d, column %d", doc ? "data after the JSON" : "not valid JSON",
                              line, column);
    }
    const cJSON *entries = NULL;
    int rc = read_top(doc, &entries, err, errlen);
    if (rc == 0)
        rc = gt_wisdom_set_reserve(out, (size_t)cJSON_GetArraySize(entries));
    size_t i = 0;
    for (const cJSON *x = entries ? entries->child : NULL; rc == 0 && x; x = x->next, i++) {
        gt_wisdom_record r;
        char why[GT_WISDOM_PROBLEM_MAX];
        rc = read_entry(x, &r, why, sizeof why);
        if (rc)
            gt_sentence_fail(err, errlen, rc, "entry %zu: %s", i, why);
        else
            rc = gt_wisdom_set_put(out, &r); /* a later duplicate replaces an earlier one */
    }
    if (rc == -ENOMEM)
        gt_sentence_fail(err, errlen, rc, "out of memory reading the wisdom");
    cJSON_Delete(doc);
    return rc;
}

/* ---- A set to JSON ---- */

/* Adds item to obj (an object if name is set, else an array); false when out of memory. */
static bool add(cJSON *obj, const char *name, cJSON *item)
{
    if (!item)
        return false;
    if (name ? cJSON_AddItemToObject(obj, name, item) : cJSON_AddItemToArray(obj, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static cJSON *sizes_node(const size_t v[3])
{
    cJSON *a = cJSON_CreateArray();
    for (int d = 0; a && d < 3; d++)
        if (!add(a, NULL, gt_json_uint(v[d]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *reals_node(const double *v, unsigned n)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned k = 0; a && k < n; k++)
        if (!add(a, NULL, gt_json_real(v[k]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

/* Each node below is built only when the && before it held, so a failure leaks nothing. */
static cJSON *contender_node(const gt_refine_contender *c)
{
    char schedule[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&c->schedule, schedule, sizeof schedule);
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add(o, "schedule", cJSON_CreateString(schedule)) && add(o, "costs", reals_node(c->cost, c->n)) &&
              add(o, "incumbent_costs", reals_node(c->incumbent, c->n));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *contenders_node(const gt_wisdom_refine *r)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; a && i < r->ncontenders; i++)
        if (!add(a, NULL, contender_node(&r->contenders[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *refine_node(const gt_wisdom_refine *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add(o, "state", cJSON_CreateString(gt_refine_state_name(r->state))) &&
              add(o, "launches", gt_json_uint(r->launches)) && add(o, "settled_cost", gt_json_real(r->settled_cost)) &&
              add(o, "drifted", gt_json_uint(r->drifted)) && add(o, "contenders", contenders_node(r)) &&
              add(o, "unexplored", gt_json_axes(r->unexplored)) && add(o, "resumes", gt_json_uint(r->resumes));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *entry_node(const gt_wisdom_record *r)
{
    const gt_wisdom_key *k = &r->key;
    const gt_wisdom_entry *e = &r->entry;
    char schedule[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&e->schedule, schedule, sizeof schedule);
    cJSON *o = cJSON_CreateObject(), *range = cJSON_CreateObject();
    bool ok = o && range && add(range, "dims", gt_json_uint(k->range.dims)) &&
              add(range, "global", sizes_node(k->range.global)) && add(range, "local", sizes_node(k->range.local));
    ok = ok && add(o, "kernel", cJSON_CreateString(k->kernel)) &&
         add(o, "kernel_hash", cJSON_CreateString(k->kernel_hash)) &&
         add(o, "machine", cJSON_CreateString(k->machine));
    if (ok) {
        ok = add(o, "range", range);
        range = NULL; /* owned by o now, or freed by add */
    }
    ok = ok && add(o, "workers", gt_json_uint(k->workers)) && add(o, "schedule", cJSON_CreateString(schedule)) &&
         add(o, "metric", cJSON_CreateString(e->metric)) && add(o, "cost", gt_json_real(e->cost)) &&
         add(o, "gain", gt_json_real(e->gain)) &&
         add(o, "decided", gt_json_uint((uint64_t)e->decided)) && add(o, "refine", refine_node(&e->refine)) &&
         (!r->owner || add(o, "uid", gt_json_uint(r->owner - 1)));
    cJSON_Delete(range);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *gt_wisdom_codec_print(const gt_wisdom_set *s)
{
    cJSON *doc = cJSON_CreateObject(), *entries = cJSON_CreateArray();
    bool ok = doc && entries && add(doc, "format", cJSON_CreateString(FORMAT_NAME)) &&
              add(doc, "version", gt_json_uint(FORMAT_VERSION));
    cJSON *list = entries;
    if (ok) {
        ok = add(doc, "entries", entries);
        entries = NULL; /* owned by doc now, or freed by add */
    }
    for (size_t i = 0; ok && i < s->n; i++)
        ok = add(list, NULL, entry_node(&s->v[i]));
    cJSON_Delete(entries);
    char *printed = ok ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!printed)
        return NULL;
    size_t n = strlen(printed);
    char *text = malloc(n + 2);
    if (text) {
        memcpy(text, printed, n);
        memcpy(text + n, "\n", 2);
    }
    cJSON_free(printed);
    return text;
}
