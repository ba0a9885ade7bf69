/* wisdom.c: the remembered decisions in memory, and the checks that guard them.
 * One set of checks guards both what callers store and what files bring in (wisdom_codec.c),
 * so whatever is saved loads again. The file's JSON is wisdom_codec.c's and its reading and
 * writing wisdom_file.c's; what the three share is in wisdom_private.h. */
#include "wisdom_private.h"

#include "durable_file.h"
#include "grid.h"
#include "machine.h"
#include "tune.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Names ---- */

static const char *const refine_state_names[GT_REFINE_STATES] = {"settled", "refining", "reopened"};

const char *gt_refine_state_name(gt_refine_state s)
{
    return (unsigned)s < GT_REFINE_STATES ? refine_state_names[s] : "unknown";
}

int gt_refine_state_parse(const char *text, gt_refine_state *out)
{
    for (int i = 0; text && i < GT_REFINE_STATES; i++)
        if (strcmp(text, refine_state_names[i]) == 0) {
            *out = (gt_refine_state)i;
            return 0;
        }
    return -EINVAL;
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

int gt_wisdom_key_check(const gt_wisdom_key *k, char *err, size_t errlen)
{
    if (!is_kernel_name(k->kernel))
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"kernel\": \"%.*s\" is not a kernel name (a C identifier of 1 to %d characters)",
                              GT_WISDOM_TEXT_MAX - 1, k->kernel, GT_WISDOM_TEXT_MAX - 1);
    if (!is_hash(k->kernel_hash))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"kernel_hash\": \"%.*s\" is not %d lowercase hex digits",
                              GT_WISDOM_TEXT_MAX - 1, k->kernel_hash, GT_HASH_TEXT_MAX - 1);
    if (!is_hash(k->machine))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"machine\": \"%.*s\" is not %d lowercase hex digits",
                              GT_WISDOM_TEXT_MAX - 1, k->machine, GT_HASH_TEXT_MAX - 1);
    char why[256];
    if (gt_range_check(&k->range, why, sizeof why) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"range\": %s", why);
    if (k->workers < 1)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"workers\": 0 workers; expected at least 1");
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

/* A schedule the file can hold: known kinds, and a text form that reads back as the same
 * schedule. The sentence leaves the field's name to the caller. */
static int schedule_check(const gt_schedule *s, char *err, size_t errlen)
{
    gt_schedule back;
    char text[GT_SCHEDULE_TEXT_MAX], why[256];
    if ((unsigned)s->group.kind >= GT_ORDER_KINDS || (unsigned)s->item.kind >= GT_ORDER_KINDS ||
        (unsigned)s->assign.kind >= GT_ASSIGN_KINDS)
        return gt_sentence_fail(err, errlen, -EINVAL, "unknown order or assignment kind");
    int n = gt_schedule_format(s, text, sizeof text);
    if (n <= 0 || (size_t)n >= sizeof text || gt_schedule_parse(text, &back, why, sizeof why) != 0 ||
        !gt_schedule_equal(&back, s))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"%s\" does not read back as the same schedule", text);
    return 0;
}

static bool is_cost(double c)
{
    return isfinite(c) && c >= 0;
}

static int contender_check(const gt_refine_contender *c, unsigned i, char *err, size_t errlen)
{
    char why[GT_SCHEDULE_TEXT_MAX + 64];
    if (schedule_check(&c->schedule, why, sizeof why) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": \"contenders\"[%u]: \"schedule\": %s", i, why);
    if (c->n > GT_REFINE_OBSERVATIONS)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"refine\": \"contenders\"[%u]: %u paired costs; at most %d are kept", i, c->n,
                              GT_REFINE_OBSERVATIONS);
    const struct {
        const char *name;
        const double *v;
    } series[] = {{"costs", c->cost}, {"incumbent_costs", c->incumbent}};
    for (size_t s = 0; s < sizeof series / sizeof *series; s++)
        for (unsigned k = 0; k < c->n; k++)
            if (!is_cost(series[s].v[k]))
                return gt_sentence_fail(err, errlen, -EINVAL,
                                      "\"refine\": \"contenders\"[%u]: \"%s\"[%u]: %g is not a finite cost of "
                                      "at least 0",
                                      i, series[s].name, k, series[s].v[k]);
    return 0;
}

static int refine_check(const gt_wisdom_refine *r, char *err, size_t errlen)
{
    if ((unsigned)r->state >= GT_REFINE_STATES)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"refine\": \"state\": unknown state %d; expected settled, refining or reopened",
                              (int)r->state);
    if (r->launches > GT_REFINE_COUNT_MAX)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": \"launches\": %u is more than %d", r->launches,
                              GT_REFINE_COUNT_MAX);
    if (r->ncontenders > GT_REFINE_CONTENDERS)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": %u contenders; expected at most %d",
                              r->ncontenders, GT_REFINE_CONTENDERS);
    for (unsigned i = 0; i < r->ncontenders; i++)
        if (contender_check(&r->contenders[i], i, err, errlen) != 0)
            return -EINVAL;
    if (isinf(r->settled_cost) || r->settled_cost < 0)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"refine\": \"settled_cost\": %g is not a finite cost of at least 0 (NaN stands "
                              "for unknown)",
                              r->settled_cost);
    if (r->drifted > GT_REFINE_COUNT_MAX)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": \"drifted\": %u is more than %d", r->drifted,
                              GT_REFINE_COUNT_MAX);
    if (r->unexplored >> GT_AXIS_COUNT)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": \"unexplored\" names an axis that does not exist");
    if (r->resumes > GT_REFINE_RESUMES)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"refine\": \"resumes\": %u is more than %d", r->resumes,
                              GT_REFINE_RESUMES);
    return 0;
}

int gt_wisdom_entry_check(const gt_wisdom_entry *e, char *err, size_t errlen)
{
    char why[GT_SCHEDULE_TEXT_MAX + 64];
    if (schedule_check(&e->schedule, why, sizeof why) != 0)
        return gt_sentence_fail(err, errlen, -EINVAL, "\"schedule\": %s", why);
    if (metric_index(e->metric, sizeof e->metric) < 0)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"metric\": unknown metric \"%.*s\"; expected time, ipc, l1, l2 or energy",
                              (int)sizeof e->metric - 1, e->metric);
    if (isinf(e->cost) || e->cost < 0)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"cost\": %g is not a finite cost of at least 0 (NaN stands for unknown)",
                              e->cost);
    if (isinf(e->gain))
        return gt_sentence_fail(err, errlen, -EINVAL, "\"gain\": %g is not finite (NaN stands for unknown)", e->gain);
    if (e->decided < 0 || (double)e->decided > GT_WISDOM_JSON_INT_MAX)
        return gt_sentence_fail(err, errlen, -EINVAL,
                              "\"decided\": %" PRId64 " is not a unix time from 0 to 2^53-1", e->decided);
    return refine_check(&e->refine, err, errlen);
}

bool gt_wisdom_key_equal(const gt_wisdom_key *a, const gt_wisdom_key *b)
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

/* Hashes what gt_wisdom_key_equal compares, so that equal keys hash alike. */
static uint64_t key_hash(const gt_wisdom_key *k)
{
    uint64_t h = GT_HASH_SEED;
    const char *texts[] = {k->kernel, k->kernel_hash, k->machine};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        h = gt_hash_bytes(h, texts[i], strnlen(texts[i], GT_WISDOM_TEXT_MAX) + 1);
    gt_range r = gt_range_normalized(&k->range);
    uint64_t nums[] = {k->workers, (uint64_t)k->range.dims, r.global[0], r.global[1], r.global[2],
                       r.local[0], r.local[1], r.local[2]};
    return gt_hash_bytes(h, nums, sizeof nums);
}

static size_t slot_mask(const gt_wisdom_set *s)
{
    return s->nslots - 1;
}

/* The slot that holds key's record, or the empty slot where it would go. nslots > 0. */
static size_t probe(const gt_wisdom_set *s, const gt_wisdom_key *key, uint64_t hash)
{
    size_t i = (size_t)hash & slot_mask(s);
    for (; s->slots[i]; i = (i + 1) & slot_mask(s)) {
        const gt_wisdom_record *r = &s->v[s->slots[i] - 1];
        if (r->hash == hash && gt_wisdom_key_equal(&r->key, key))
            break;
    }
    return i;
}

static gt_wisdom_record *set_find(const gt_wisdom_set *s, const gt_wisdom_key *key, uint64_t hash)
{
    if (s->nslots == 0)
        return NULL;
    size_t i = s->slots[probe(s, key, hash)];
    return i ? &s->v[i - 1] : NULL;
}

/* Empties slot i, moving back the records after it that probing would no longer reach. */
static void unindex(gt_wisdom_set *s, size_t i)
{
    size_t mask = slot_mask(s);
    for (size_t j = (i + 1) & mask; s->slots[j]; j = (j + 1) & mask) {
        size_t home = (size_t)s->v[s->slots[j] - 1].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) { /* i lies on its way from home to j */
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i] = 0;
}

/* Puts every record into the index, emptied first. */
static void fill_index(gt_wisdom_set *s)
{
    memset(s->slots, 0, s->nslots * sizeof *s->slots);
    for (size_t r = 0; r < s->n; r++)
        s->slots[probe(s, &s->v[r].key, s->v[r].hash)] = r + 1;
}

/* A new index of nslots slots (a power of two above n). 0 or -ENOMEM. */
static int reindex(gt_wisdom_set *s, size_t nslots)
{
    size_t *slots = malloc(nslots * sizeof *slots);
    if (!slots)
        return -ENOMEM;
    free(s->slots);
    s->slots = slots;
    s->nslots = nslots;
    fill_index(s);
    return 0;
}

struct gt_wisdom_tally {
    uint64_t owner;
    size_t records;
    size_t oldest; /* the index of its least recently used record */
};

int gt_wisdom_set_reserve(gt_wisdom_set *s, size_t want)
{
    if (want > s->cap) {
        size_t cap = s->cap ? s->cap : 16;
        while (cap < want)
            cap *= 2;
        gt_wisdom_record *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        s->v = v;
        struct gt_wisdom_tally *tally = realloc(s->tally, cap * sizeof *tally);
        if (!tally)
            return -ENOMEM;
        s->tally = tally;
        s->cap = cap;
    }
    /* at most half full, so that probes stay short */
    size_t nslots = s->nslots ? s->nslots : 32;
    while (nslots < 2 * s->cap)
        nslots *= 2;
    return nslots != s->nslots ? reindex(s, nslots) : 0;
}

/* The record to evict from a full set: the least recently used of the owner that holds the
 * most records; of owners that hold as many, the one whose record was used longest ago. */
static size_t victim(const gt_wisdom_set *s)
{
    struct gt_wisdom_tally *t = s->tally;
    size_t owners = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t o = 0;
        while (o < owners && t[o].owner != s->v[i].owner)
            o++;
        if (o == owners)
            t[owners++] = (struct gt_wisdom_tally){.owner = s->v[i].owner, .oldest = i};
        t[o].records++;
        if (s->v[i].used < s->v[t[o].oldest].used)
            t[o].oldest = i;
    }
    size_t top = 0;
    for (size_t o = 1; o < owners; o++)
        if (t[o].records > t[top].records ||
            (t[o].records == t[top].records && s->v[t[o].oldest].used < s->v[t[top].oldest].used))
            top = o;
    return t[top].oldest;
}

int gt_wisdom_set_put(gt_wisdom_set *s, const gt_wisdom_record *rec)
{
    uint64_t hash = key_hash(&rec->key);
    gt_wisdom_record *r = set_find(s, &rec->key, hash);
    uint64_t owner = rec->owner || !r ? rec->owner : r->owner;
    if (!r && s->max && s->n >= s->max) { /* the new key takes the evicted one's place */
        r = &s->v[victim(s)];
        unindex(s, probe(s, &r->key, r->hash));
        s->evicted++;
    } else if (!r) {
        if (gt_wisdom_set_reserve(s, s->n + 1))
            return -ENOMEM;
        r = &s->v[s->n++];
    }
    *r = *rec;
    r->owner = owner;
    r->hash = hash;
    r->used = ++s->tick;
    s->slots[probe(s, &r->key, hash)] = (size_t)(r - s->v) + 1;
    return 0;
}

static int compare_ticks(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Keeps the max most recently used records, in their order. 0 or -ENOMEM. */
static int set_trim(gt_wisdom_set *s, size_t max)
{
    if (max == 0 || s->n <= max)
        return 0;
    uint64_t *used = malloc(s->n * sizeof *used);
    if (!used)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++)
        used[i] = s->v[i].used;
    qsort(used, s->n, sizeof *used, compare_ticks);
    uint64_t oldest_kept = used[s->n - max]; /* ticks differ from record to record */
    free(used);
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].used >= oldest_kept)
            s->v[kept++] = s->v[i];
    s->evicted += s->n - kept;
    s->n = kept;
    fill_index(s);
    return 0;
}

/* Forgets the records, and keeps the limit and the counts. */
static void set_empty(gt_wisdom_set *s)
{
    free(s->v);
    free(s->slots);
    free(s->tally);
    s->v = NULL;
    s->slots = NULL;
    s->tally = NULL;
    s->n = s->cap = s->nslots = 0;
}

void gt_wisdom_set_free(gt_wisdom_set *s)
{
    set_empty(s);
    *s = (gt_wisdom_set){0};
}

/* ---- The API ---- */

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
        return gt_sentence_fail(err, errlen, -EINVAL, "the wisdom file's path is empty");
    if (strlen(path) >= PATH_MAX)
        return gt_sentence_fail(err, errlen, -ENAMETOOLONG,
                              "the wisdom file's path is longer than %d bytes", PATH_MAX - 1);
    gt_wisdom *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory opening wisdom file %s", path);
    }
    w->stale_removed = gt_file_remove_stale_temporaries(path);
    int rc = gt_wisdom_file_load(w, err, errlen);
    if (rc) {
        gt_wisdom_close(w);
        return rc;
    }
    *out = w;
    return 0;
}

int gt_wisdom_open_memory(gt_wisdom **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : -ENOMEM;
}

void gt_wisdom_close(gt_wisdom *w)
{
    if (!w)
        return;
    gt_wisdom_set_free(&w->set);
    free(w->path);
    free(w);
}

const char *gt_wisdom_path(const gt_wisdom *w)
{
    return w->path ? w->path : "";
}

unsigned gt_wisdom_stale_removed(const gt_wisdom *w)
{
    return w->stale_removed;
}

const char *gt_wisdom_warning(const gt_wisdom *w)
{
    return w->warning;
}

bool gt_wisdom_lookup(gt_wisdom *w, const gt_wisdom_key *key, gt_wisdom_entry *out)
{
    gt_wisdom_record *r = set_find(&w->set, key, key_hash(key));
    if (r) {
        r->used = ++w->set.tick;
        if (out)
            *out = r->entry;
    }
    return r != NULL;
}

int gt_wisdom_store(gt_wisdom *w, const gt_wisdom_key *key, const gt_wisdom_entry *entry, char *err, size_t errlen)
{
    if (gt_wisdom_key_check(key, err, errlen) || gt_wisdom_entry_check(entry, err, errlen))
        return -EINVAL;
    gt_wisdom_record r = {.key = *key, .entry = *entry};
    r.key.range = gt_range_normalized(&key->range);
    int rc = gt_wisdom_set_put(&w->set, &r);
    return rc ? gt_sentence_fail(err, errlen, rc, "out of memory") : 0;
}

size_t gt_wisdom_count(const gt_wisdom *w)
{
    return w->set.n;
}

bool gt_wisdom_get(const gt_wisdom *w, size_t index, gt_wisdom_key *key, gt_wisdom_entry *entry)
{
    if (index >= w->set.n)
        return false;
    if (key)
        *key = w->set.v[index].key;
    if (entry)
        *entry = w->set.v[index].entry;
    return true;
}

void gt_wisdom_clear(gt_wisdom *w)
{
    set_empty(&w->set);
}

bool gt_wisdom_claim(gt_wisdom *w, const gt_wisdom_key *key, uint32_t uid)
{
    gt_wisdom_record *r = set_find(&w->set, key, key_hash(key));
    if (r)
        r->owner = (uint64_t)uid + 1;
    return r != NULL;
}

bool gt_wisdom_owner(const gt_wisdom *w, size_t index, uint32_t *uid)
{
    if (index >= w->set.n || !w->set.v[index].owner)
        return false;
    *uid = (uint32_t)(w->set.v[index].owner - 1);
    return true;
}

int gt_wisdom_limit(gt_wisdom *w, size_t max)
{
    w->set.max = max;
    return set_trim(&w->set, max);
}

size_t gt_wisdom_max(const gt_wisdom *w)
{
    return w->set.max;
}

uint64_t gt_wisdom_evicted(const gt_wisdom *w)
{
    return w->set.evicted;
}

int gt_wisdom_copy(const gt_wisdom *w, gt_wisdom **out)
{
    const gt_wisdom_set *from = &w->set;
    gt_wisdom *c = *out = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->set = *from;
    c->set.v = from->cap ? malloc(from->cap * sizeof *from->v) : NULL;
    c->set.tally = from->cap ? malloc(from->cap * sizeof *from->tally) : NULL;
    c->set.slots = from->nslots ? malloc(from->nslots * sizeof *from->slots) : NULL;
    c->path = w->path ? strdup(w->path) : NULL;
    if ((from->cap && (!c->set.v || !c->set.tally)) || (from->nslots && !c->set.slots) || (w->path && !c->path)) {
        gt_wisdom_close(c);
        *out = NULL;
        return -ENOMEM;
    }
    if (from->n)
        memcpy(c->set.v, from->v, from->n * sizeof *from->v);
    if (from->nslots)
        memcpy(c->set.slots, from->slots, from->nslots * sizeof *from->slots);
    return 0;
}

int gt_wisdom_merge_text(gt_wisdom *w, const char *text, size_t len, const char *name, size_t *merged, char *err,
                         size_t errlen)
{
    gt_wisdom_set in = {0};
    char problem[GT_WISDOM_PROBLEM_MAX];
    int rc = gt_wisdom_codec_parse(text, len, &in, problem, sizeof problem);
    /* Room for all of them first, so that the merge below cannot stop half-way. */
    if (rc == 0 && gt_wisdom_set_reserve(&w->set, w->set.n + in.n) != 0)
        rc = -ENOMEM;
    if (rc) {
        gt_wisdom_set_free(&in);
        return gt_sentence_fail(err, errlen, rc, "%s: %s; nothing was imported", name,
                              rc == -ENOMEM ? "out of memory" : problem);
    }
    for (size_t i = 0; i < in.n; i++)
        gt_wisdom_set_put(&w->set, &in.v[i]);
    if (merged)
        *merged = in.n;
    gt_wisdom_set_free(&in);
    return 0;
}
