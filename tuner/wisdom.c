/* wisdom.c: the remembered decisions and their JSON file (schemas/wisdom.schema.json).
 * Entries live in an array searched linearly: a machine holds a few hundred decisions, and a
 * launch looks one up once. The file is read and written whole. One set of checks guards both
 * what callers store and what files bring in, so whatever is saved loads again: a file that
 * fails them was damaged or hand-edited, and is set aside rather than half-trusted. */
#include "wisdom.h"

#include "durable_file.h"
#include "grid.h"
#include "json.h"
#include "machine.h"
#include "tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FORMAT_NAME "gridtune-wisdom"
#define FORMAT_VERSION 1
#define STATE_SUBPATH "gridtune/wisdom.json"
#define HOME_STATE_SUBPATH ".local/state/" STATE_SUBPATH
#define DIR_MODE 0700
/* Far beyond any real wisdom (entries are ~300 bytes); stops a runaway file from being read. */
#define FILE_MAX ((size_t)64 << 20)
/* The largest integer a JSON number (an IEEE double) holds exactly: 2^53 - 1. */
#define JSON_INT_MAX 9007199254740991.0
#define PROBLEM_MAX 512
#define WARNING_MAX (2 * PATH_MAX + PROBLEM_MAX + 128)
/* Tries of <path>.corrupt-<time>.N when files were set aside more than once in a second. */
#define ASIDE_TRIES 100


typedef struct record {
    gt_wisdom_key key;
    gt_wisdom_entry entry;
} record;

typedef struct records {
    record *v;
    size_t n, cap;
} records;

struct gt_wisdom {
    char *path;
    records r;
    char warning[WARNING_MAX];
    unsigned stale_removed; /* temporary files of dead writers removed at open */
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- Checks shared by store and load ---- */

static bool is_kernel_name(const char *s)
{
    size_t n = strnlen(s, GT_WISDOM_TEXT_MAX);
    if (n == 0 || n == GT_WISDOM_TEXT_MAX || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

static bool is_hash(const char *s)
{
    for (size_t i = 0; i < GT_HASH_TEXT_MAX - 1; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[GT_HASH_TEXT_MAX - 1] == '\0';
}

static int check_key(const gt_wisdom_key *k, char *err, size_t errlen)
{
    if (!is_kernel_name(k->kernel))
        return fail(err, errlen, -EINVAL,
                    "\"kernel\": \"%.*s\" is not a kernel name (a C identifier of 1 to %d characters)",
                    GT_WISDOM_TEXT_MAX - 1, k->kernel, GT_WISDOM_TEXT_MAX - 1);
    if (!is_hash(k->kernel_hash))
        return fail(err, errlen, -EINVAL, "\"kernel_hash\": \"%.*s\" is not %d lowercase hex digits",
                    GT_WISDOM_TEXT_MAX - 1, k->kernel_hash, GT_HASH_TEXT_MAX - 1);
    if (!is_hash(k->machine))
        return fail(err, errlen, -EINVAL, "\"machine\": \"%.*s\" is not %d lowercase hex digits",
                    GT_WISDOM_TEXT_MAX - 1, k->machine, GT_HASH_TEXT_MAX - 1);
    char why[256];
    if (gt_range_check(&k->range, why, sizeof why) != 0)
        return fail(err, errlen, -EINVAL, "\"range\": %s", why);
    if (k->workers < 1)
        return fail(err, errlen, -EINVAL, "\"workers\": 0 workers; expected at least 1");
    return 0;
}

/* The metric names are gt_metric's (tune.h); the schema lists the same names. */
static int metric_index(const char *name, size_t size)
{
    gt_metric m;
    if (!memchr(name, '\0', size) || gt_metric_parse(name, &m) < 0)
        return -1;
    return (int)m;
}

static int check_entry(const gt_wisdom_entry *e, char *err, size_t errlen)
{
    gt_schedule back;
    char text[GT_SCHEDULE_TEXT_MAX], why[256];
    const gt_schedule *s = &e->schedule;
    if (s->group.kind > GT_ORDER_MORTON || s->item.kind > GT_ORDER_MORTON || s->assign.kind > GT_ASSIGN_STEALING)
        return fail(err, errlen, -EINVAL, "\"schedule\": unknown order or assignment kind");
    int n = gt_schedule_format(&e->schedule, text, sizeof text);
    if (n <= 0 || (size_t)n >= sizeof text || gt_schedule_parse(text, &back, why, sizeof why) != 0 ||
        !gt_schedule_equal(&back, &e->schedule))
        return fail(err, errlen, -EINVAL, "\"schedule\": \"%s\" does not read back as the same schedule", text);
    if (metric_index(e->metric, sizeof e->metric) < 0)
        return fail(err, errlen, -EINVAL, "\"metric\": unknown metric \"%.*s\"; expected time, ipc, l1, l2 or energy",
                    (int)sizeof e->metric - 1, e->metric);
    if (isinf(e->cost) || e->cost < 0)
        return fail(err, errlen, -EINVAL, "\"cost\": %g is not a finite cost of at least 0 (NaN stands for unknown)",
                    e->cost);
    if (isinf(e->gain))
        return fail(err, errlen, -EINVAL, "\"gain\": %g is not finite (NaN stands for unknown)", e->gain);
    if (e->decided < 0 || (double)e->decided > JSON_INT_MAX)
        return fail(err, errlen, -EINVAL, "\"decided\": %" PRId64 " is not a unix time from 0 to 2^53-1", e->decided);
    return 0;
}

static bool key_equal(const gt_wisdom_key *a, const gt_wisdom_key *b)
{
    if (strncmp(a->kernel, b->kernel, GT_WISDOM_TEXT_MAX) != 0 ||
        strncmp(a->kernel_hash, b->kernel_hash, GT_WISDOM_TEXT_MAX) != 0 ||
        strncmp(a->machine, b->machine, GT_WISDOM_TEXT_MAX) != 0 || a->workers != b->workers ||
        a->range.dims != b->range.dims)
        return false;
    gt_range ra = gt_range_normalized(&a->range), rb = gt_range_normalized(&b->range);
    for (int d = 0; d < 3; d++)
        if (ra.global[d] != rb.global[d] || ra.local[d] != rb.local[d])
            return false;
    return true;
}

/* ---- The in-memory set ---- */

static record *records_find(const records *r, const gt_wisdom_key *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (key_equal(&r->v[i].key, key))
            return &r->v[i];
    return NULL;
}

static int records_reserve(records *r, size_t want)
{
    if (want <= r->cap)
        return 0;
    size_t cap = r->cap ? r->cap : 16;
    while (cap < want)
        cap *= 2;
    record *v = realloc(r->v, cap * sizeof *v);
    if (!v)
        return -ENOMEM;
    r->v = v;
    r->cap = cap;
    return 0;
}

/* Adds or replaces; with capacity reserved beforehand it cannot fail. */
static int records_put(records *r, const record *rec)
{
    record *old = records_find(r, &rec->key);
    if (old) {
        *old = *rec;
        return 0;
    }
    if (records_reserve(r, r->n + 1))
        return -ENOMEM;
    r->v[r->n++] = *rec;
    return 0;
}

static void records_free(records *r)
{
    free(r->v);
    *r = (records){0};
}

/* ---- JSON to records: every field's type and range, then the shared checks ---- */

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
        return fail(err, errlen, -EINVAL, "must be a string");
    if (strlen(v->valuestring) >= size)
        return fail(err, errlen, -EINVAL, "\"%.40s...\" is longer than %zu characters", v->valuestring, size - 1);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int read_sizes(const cJSON *v, const char *name, size_t out[3], char *err, size_t errlen)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return fail(err, errlen, -EINVAL, "\"%s\" must be an array of 3 whole numbers", name);
    int d = 0;
    for (const cJSON *x = v->child; x; x = x->next, d++) {
        double size;
        if (!read_integer(x, 1, JSON_INT_MAX < (double)SIZE_MAX ? JSON_INT_MAX : (double)SIZE_MAX, &size))
            return fail(err, errlen, -EINVAL, "\"%s\"[%d] must be a whole number of at least 1", name, d);
        out[d] = (size_t)size;
    }
    return 0;
}

static int read_range(const cJSON *v, gt_range *out, char *err, size_t errlen)
{
    if (!cJSON_IsObject(v))
        return fail(err, errlen, -EINVAL, "must be an object with dims, global and local");
    const char *names[] = {"dims", "global", "local"};
    const cJSON *f[3] = {NULL};
    for (const cJSON *x = v->child; x; x = x->next) {
        int k = 0;
        while (k < 3 && strcmp(x->string, names[k]) != 0)
            k++;
        if (k == 3)
            return fail(err, errlen, -EINVAL, "unknown field \"%.40s\"", x->string);
        if (f[k])
            return fail(err, errlen, -EINVAL, "\"%s\" appears twice", names[k]);
        f[k] = x;
    }
    for (int k = 0; k < 3; k++)
        if (!f[k])
            return fail(err, errlen, -EINVAL, "missing \"%s\"", names[k]);
    double dims;
    if (!read_integer(f[0], 1, 3, &dims))
        return fail(err, errlen, -EINVAL, "\"dims\" must be 1, 2 or 3");
    gt_range r = {.dims = (unsigned)dims};
    int rc = read_sizes(f[1], "global", r.global, err, errlen);
    if (rc == 0)
        rc = read_sizes(f[2], "local", r.local, err, errlen);
    if (rc == 0)
        *out = r; /* the range check itself is check_key's */
    return rc;
}

enum {
    F_KERNEL, F_KERNEL_HASH, F_MACHINE, F_RANGE, F_WORKERS,
    F_SCHEDULE, F_METRIC, F_COST, F_GAIN, F_DECIDED, NFIELDS
};
static const char *const field_names[NFIELDS] = {
    "kernel", "kernel_hash", "machine", "range", "workers", "schedule", "metric", "cost", "gain", "decided",
};

/* Converts one field's JSON value; the meaning is checked afterwards by check_key/check_entry. */
static int read_field(int f, const cJSON *v, record *r, char *err, size_t errlen)
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
            return fail(err, errlen, -EINVAL, "must be a whole number from 1 to %u", UINT_MAX);
        k->workers = (unsigned)x;
        return 0;
    case F_SCHEDULE:
        if (!cJSON_IsString(v))
            return fail(err, errlen, -EINVAL, "must be a string such as group=tiled:4x4,item=linear,assign=block");
        return gt_schedule_parse(v->valuestring, &e->schedule, err, errlen);
    case F_METRIC:
        return read_text(v, e->metric, sizeof e->metric, err, errlen);
    case F_COST:
        if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
            return fail(err, errlen, -EINVAL, "must be a number or null");
        e->cost = cJSON_IsNull(v) ? NAN : v->valuedouble;
        return 0;
    case F_GAIN:
        if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
            return fail(err, errlen, -EINVAL, "must be a number or null");
        e->gain = cJSON_IsNull(v) ? NAN : v->valuedouble;
        return 0;
    default:
        if (!read_integer(v, 0, JSON_INT_MAX, &x))
            return fail(err, errlen, -EINVAL, "must be a unix time, a whole number from 0 to 2^53-1");
        e->decided = (int64_t)x;
        return 0;
    }
}

static int read_entry(const cJSON *obj, record *r, char *err, size_t errlen)
{
    if (!cJSON_IsObject(obj))
        return fail(err, errlen, -EINVAL, "is not an object");
    *r = (record){0};
    bool seen[NFIELDS] = {false};
    char why[PROBLEM_MAX];
    for (const cJSON *x = obj->child; x; x = x->next) {
        int f = 0;
        while (f < NFIELDS && strcmp(x->string, field_names[f]) != 0)
            f++;
        if (f == NFIELDS)
            return fail(err, errlen, -EINVAL, "unknown field \"%.40s\"", x->string);
        if (seen[f])
            return fail(err, errlen, -EINVAL, "\"%s\" appears twice", field_names[f]);
        seen[f] = true;
        if (read_field(f, x, r, why, sizeof why) != 0)
            return fail(err, errlen, -EINVAL, "\"%s\": %s", field_names[f], why);
    }
    for (int f = 0; f < NFIELDS; f++)
        if (!seen[f])
            return fail(err, errlen, -EINVAL, "missing \"%s\"", field_names[f]);
    int rc = check_key(&r->key, err, errlen);
    if (rc == 0)
        rc = check_entry(&r->entry, err, errlen);
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
        return fail(err, errlen, -EINVAL, "the top level is not an object");
    const char *names[] = {"format", "version", "entries"};
    const cJSON *f[3] = {NULL};
    for (const cJSON *x = doc->child; x; x = x->next) {
        int k = 0;
        while (k < 3 && strcmp(x->string, names[k]) != 0)
            k++;
        if (k == 3)
            return fail(err, errlen, -EINVAL, "unknown top-level field \"%.40s\"", x->string);
        if (f[k])
            return fail(err, errlen, -EINVAL, "\"%s\" appears twice", names[k]);
        f[k] = x;
    }
    if (!f[0] || !cJSON_IsString(f[0]) || strcmp(f[0]->valuestring, FORMAT_NAME) != 0)
        return fail(err, errlen, -EINVAL, "\"format\" is not \"" FORMAT_NAME "\"");
    if (!f[1] || !cJSON_IsNumber(f[1]))
        return fail(err, errlen, -EINVAL, "\"version\" is missing or not a number");
    if (f[1]->valuedouble != FORMAT_VERSION)
        return fail(err, errlen, -EINVAL, "\"version\" is %g; this gridtune reads version %d", f[1]->valuedouble,
                    FORMAT_VERSION);
    if (!f[2] || !cJSON_IsArray(f[2]))
        return fail(err, errlen, -EINVAL, "\"entries\" is missing or not an array");
    *entries = f[2];
    return 0;
}

/* Parses and checks a whole document into out (empty on entry). Returns 0, -EINVAL with the
 * problem in err, or -ENOMEM. Entries are numbered from 0, as in the file's array. */
static int parse_document(const char *text, size_t len, records *out, char *err, size_t errlen)
{
    if (len == 0)
        return fail(err, errlen, -EINVAL, "empty file, not JSON");
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line, column;
        error_position(text, nul, &line, &column);
        return fail(err, errlen, -EINVAL, "a NUL byte at line %d, column %d", line, column);
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
        return fail(err, errlen, -EINVAL, "%s at line %d, column %d", doc ? "data after the JSON" : "not valid JSON",
                    line, column);
    }
    const cJSON *entries = NULL;
    int rc = read_top(doc, &entries, err, errlen);
    if (rc == 0)
        rc = records_reserve(out, (size_t)cJSON_GetArraySize(entries));
    size_t i = 0;
    for (const cJSON *x = entries ? entries->child : NULL; rc == 0 && x; x = x->next, i++) {
        record r;
        char why[PROBLEM_MAX];
        rc = read_entry(x, &r, why, sizeof why);
        if (rc)
            fail(err, errlen, rc, "entry %zu: %s", i, why);
        else
            rc = records_put(out, &r); /* a later duplicate replaces an earlier one */
    }
    if (rc == -ENOMEM)
        fail(err, errlen, rc, "out of memory reading the wisdom");
    cJSON_Delete(doc);
    return rc;
}

/* ---- Records to JSON ---- */

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

static cJSON *entry_node(const record *r)
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
         add(o, "decided", gt_json_uint((uint64_t)e->decided));
    cJSON_Delete(range);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The whole file's text, pretty-printed with a final newline; free() it. NULL: no memory. */
static char *document_text(const records *r)
{
    cJSON *doc = cJSON_CreateObject(), *entries = cJSON_CreateArray();
    bool ok = doc && entries && add(doc, "format", cJSON_CreateString(FORMAT_NAME)) &&
              add(doc, "version", gt_json_uint(FORMAT_VERSION));
    cJSON *list = entries;
    if (ok) {
        ok = add(doc, "entries", entries);
        entries = NULL; /* owned by doc now, or freed by add */
    }
    for (size_t i = 0; ok && i < r->n; i++)
        ok = add(list, NULL, entry_node(&r->v[i]));
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

/* ---- Files (written through durable_file.h) ---- */

/* Renames from to to unless to exists. Falls back to a check and a plain rename on file
 * systems without RENAME_NOREPLACE. */
static int rename_noreplace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -errno;
    struct stat st;
    if (lstat(to, &st) == 0)
        return -EEXIST;
    return rename(from, to) == 0 ? 0 : -errno;
}

/* Moves the wisdom's file to <path>.corrupt-<unix time> (.N appended if taken) and writes
 * the warning; what = why, as a predicate: "is corrupt: ...", "cannot be read (...)". */
static void set_aside(gt_wisdom *w, const char *what)
{
    long long now = (long long)time(NULL);
    char aside[PATH_MAX + 64];
    int rc = -EEXIST;
    for (int n = 0; n < ASIDE_TRIES && rc == -EEXIST; n++) {
        int len = n ? snprintf(aside, sizeof aside, "%s.corrupt-%lld.%d", w->path, now, n)
                    : snprintf(aside, sizeof aside, "%s.corrupt-%lld", w->path, now);
        rc = len > 0 && (size_t)len < sizeof aside ? rename_noreplace(w->path, aside) : -ENAMETOOLONG;
    }
    if (rc == 0)
        snprintf(w->warning, sizeof w->warning, "wisdom file %s %s; moved it to %s and started with empty wisdom",
                 w->path, what, aside);
    else
        snprintf(w->warning, sizeof w->warning,
                 "wisdom file %s %s; could not move it aside (%s), so it stays and will be replaced on the next "
                 "save; started with empty wisdom",
                 w->path, what, strerror(-rc));
}

/* Failures that say nothing about the file: the file is left alone and opening fails. */
static bool is_transient(int e)
{
    return e == ENOMEM || e == EMFILE || e == ENFILE || e == EINTR || e == ENOBUFS || e == EAGAIN;
}

/* Reads the wisdom's own file. Returns 0 (with the file set aside if it was bad), or a
 * negative errno for a failure that says nothing about the file. */
static int load_file(gt_wisdom *w, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO in the file's place must not hang the opener. */
    int fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT)
        return 0;
    char what[PROBLEM_MAX + 32];
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        set_aside(w, "is not a regular file");
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = fd < 0 ? -errno : gt_file_read_all(fd, FILE_MAX, &text, &len);
    if (fd >= 0)
        close(fd);
    if (rc && is_transient(-rc))
        return fail(err, errlen, rc, "cannot read wisdom file %s: %s", w->path, strerror(-rc));
    if (rc) {
        if (rc == -EFBIG)
            snprintf(what, sizeof what, "is larger than %zu MiB", FILE_MAX >> 20);
        else
            snprintf(what, sizeof what, "cannot be read (%s)", strerror(-rc));
        set_aside(w, what);
        return 0;
    }
    char problem[PROBLEM_MAX];
    records in = {0};
    rc = parse_document(text, len, &in, problem, sizeof problem);
    free(text);
    if (rc) {
        records_free(&in);
        if (rc == -ENOMEM)
            return fail(err, errlen, rc, "out of memory reading wisdom file %s", w->path);
        snprintf(what, sizeof what, "is corrupt: %s", problem);
        set_aside(w, what);
        return 0;
    }
    w->r = in;
    return 0;
}

/* ---- The API ---- */

static int env_dir(const char *name, const char **out)
{
    const char *v = getenv(name);
    /* The XDG base directory spec: relative paths are invalid and to be ignored. */
    if (!v || v[0] != '/')
        return -ENOENT;
    *out = v;
    return 0;
}

int gt_wisdom_default_path(char *buf, size_t len, char *err, size_t errlen)
{
    const char *base;
    int n;
    if (env_dir("XDG_STATE_HOME", &base) == 0)
        n = snprintf(buf, len, "%s/" STATE_SUBPATH, base);
    else if (env_dir("HOME", &base) == 0)
        n = snprintf(buf, len, "%s/" HOME_STATE_SUBPATH, base);
    else
        return fail(err, errlen, -ENOENT,
                    "no place for the wisdom file: neither XDG_STATE_HOME nor HOME is set to an absolute path");
    if (n < 0 || (size_t)n >= len)
        return fail(err, errlen, -ENAMETOOLONG, "the wisdom file's path under %s is too long", base);
    return 0;
}

int gt_wisdom_open(const char *path, gt_wisdom **out, char *err, size_t errlen)
{
    *out = NULL;
    char def[PATH_MAX];
    if (!path) {
        int rc = gt_wisdom_default_path(def, sizeof def, err, errlen);
        if (rc)
            return rc;
        path = def;
    }
    if (!*path)
        return fail(err, errlen, -EINVAL, "the wisdom file's path is empty");
    if (strlen(path) >= PATH_MAX)
        return fail(err, errlen, -ENAMETOOLONG, "the wisdom file's path is longer than %d bytes", PATH_MAX - 1);
    gt_wisdom *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return fail(err, errlen, -ENOMEM, "out of memory opening wisdom file %s", path);
    }
    w->stale_removed = gt_file_remove_stale_temporaries(path);
    int rc = load_file(w, err, errlen);
    if (rc) {
        gt_wisdom_close(w);
        return rc;
    }
    *out = w;
    return 0;
}

void gt_wisdom_close(gt_wisdom *w)
{
    if (!w)
        return;
    records_free(&w->r);
    free(w->path);
    free(w);
}

const char *gt_wisdom_path(const gt_wisdom *w)
{
    return w->path;
}

unsigned gt_wisdom_stale_removed(const gt_wisdom *w)
{
    return w->stale_removed;
}

const char *gt_wisdom_warning(const gt_wisdom *w)
{
    return w->warning;
}

bool gt_wisdom_lookup(const gt_wisdom *w, const gt_wisdom_key *key, gt_wisdom_entry *out)
{
    const record *r = records_find(&w->r, key);
    if (r && out)
        *out = r->entry;
    return r != NULL;
}

int gt_wisdom_store(gt_wisdom *w, const gt_wisdom_key *key, const gt_wisdom_entry *entry, char *err, size_t errlen)
{
    if (check_key(key, err, errlen) || check_entry(entry, err, errlen))
        return -EINVAL;
    record r = {.key = *key, .entry = *entry};
    r.key.range = gt_range_normalized(&key->range);
    int rc = records_put(&w->r, &r);
    return rc ? fail(err, errlen, rc, "out of memory") : 0;
}

size_t gt_wisdom_count(const gt_wisdom *w)
{
    return w->r.n;
}

bool gt_wisdom_get(const gt_wisdom *w, size_t index, gt_wisdom_key *key, gt_wisdom_entry *entry)
{
    if (index >= w->r.n)
        return false;
    if (key)
        *key = w->r.v[index].key;
    if (entry)
        *entry = w->r.v[index].entry;
    return true;
}

void gt_wisdom_clear(gt_wisdom *w)
{
    records_free(&w->r);
}

int gt_wisdom_save(gt_wisdom *w, char *err, size_t errlen)
{
    char *text = document_text(&w->r);
    if (!text)
        return fail(err, errlen, -ENOMEM, "out of memory saving wisdom file %s", w->path);
    int rc = gt_file_replace(w->path, text, strlen(text), DIR_MODE, err, errlen);
    free(text);
    return rc;
}

/* Devices and FIFOs (/dev/stdout, a pipe) are written through; renaming over them would
 * replace the device node instead. */
static int write_through(const char *path, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(err, errlen, -errno, "cannot open %s: %s", path, strerror(errno));
    int rc = gt_file_write_all(fd, text, strlen(text));
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc)
        fail(err, errlen, rc, "cannot write %s: %s", path, strerror(-rc));
    return rc;
}

int gt_wisdom_export(const gt_wisdom *w, const char *path, char *err, size_t errlen)
{
    char *text = document_text(&w->r);
    if (!text)
        return fail(err, errlen, -ENOMEM, "out of memory exporting the wisdom");
    int rc = 0;
    struct stat st;
    if (strcmp(path, "-") == 0) {
        errno = 0;
        if (fputs(text, stdout) == EOF || fflush(stdout) == EOF)
            rc = fail(err, errlen, errno ? -errno : -EIO, "cannot write the wisdom to standard output: %s",
                      strerror(errno ? errno : EIO));
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        rc = write_through(path, text, err, errlen);
    } else {
        rc = gt_file_replace(path, text, strlen(text), 0, err, errlen);
    }
    free(text);
    return rc;
}

int gt_wisdom_merge_text(gt_wisdom *w, const char *text, size_t len, const char *name, size_t *merged, char *err,
                         size_t errlen)
{
    records in = {0};
    char problem[PROBLEM_MAX];
    int rc = parse_document(text, len, &in, problem, sizeof problem);
    /* Room for all of them first, so that the merge below cannot stop half-way. */
    if (rc == 0 && records_reserve(&w->r, w->r.n + in.n) != 0)
        rc = -ENOMEM;
    if (rc) {
        records_free(&in);
        return fail(err, errlen, rc, "%s: %s; nothing was imported", name,
                    rc == -ENOMEM ? "out of memory" : problem);
    }
    for (size_t i = 0; i < in.n; i++)
        records_put(&w->r, &in.v[i]);
    if (merged)
        *merged = in.n;
    records_free(&in);
    return 0;
}

int gt_wisdom_import(gt_wisdom *w, const char *path, size_t *merged, char *err, size_t errlen)
{
    bool std_in = strcmp(path, "-") == 0;
    const char *name = std_in ? "standard input" : path;
    int fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(err, errlen, -errno, "cannot open %s: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    int rc = gt_file_read_all(fd, FILE_MAX, &text, &len);
    if (!std_in)
        close(fd);
    if (rc == -EFBIG)
        return fail(err, errlen, rc, "%s is larger than %zu MiB; nothing was imported", name, FILE_MAX >> 20);
    if (rc)
        return fail(err, errlen, rc, "cannot read %s: %s", name, strerror(-rc));
    rc = gt_wisdom_merge_text(w, text, len, name, merged, err, errlen);
    free(text);
    return rc;
}
