/* test_wisdom.c: the wisdom file: entries and their refinement survive a save and a reopen,
 * keys match on every field, saving is atomic and tidy, corrupt or unreadable files (a bad
 * refine part among them) are set aside with a warning, the default path follows XDG, import
 * is all or nothing; and the identities that key it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/temp_dir.h"
#include "tuner/machine.h"
#include "tuner/space.h"
#include "tuner/wisdom.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char dir[512];       /* the temporary directory, removed by teardown */
    char path[PATH_MAX]; /* dir/state/gridtune/wisdom.json: its directories do not exist yet */
    char err[1024];
    gt_wisdom *w;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (temp_dir_make(f->dir, sizeof f->dir, "test_wisdom") != 0) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/state/gridtune/wisdom.json", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gt_wisdom_close(f->w);
    int rc = temp_dir_remove(f->dir);
    free(f);
    return rc;
}

/* ---- Helpers ---- */

static gt_wisdom_key key_of(const char *kernel, size_t gx, unsigned workers)
{
    gt_wisdom_key k = {.range = {.dims = 2, .global = {gx, 8192, 1}, .local = {16, 16, 1}}, .workers = workers};
    snprintf(k.kernel, sizeof k.kernel, "%s", kernel);
    snprintf(k.kernel_hash, sizeof k.kernel_hash, "0123456789abcdef");
    snprintf(k.machine, sizeof k.machine, "fedcba9876543210");
    return k;
}

/* Two keys of the same launch are equal whatever their padding holds (the executor's key
 * crosses a process boundary, and a copy need not carry padding), and differ in any field. */
static void keys_compare_by_field(void **state)
{
    (void)state;
    gt_wisdom_key a, b;
    memset(&a, 0xaa, sizeof a);
    memset(&b, 0x55, sizeof b);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    memcpy(a.kernel, k.kernel, sizeof a.kernel);
    memcpy(a.kernel_hash, k.kernel_hash, sizeof a.kernel_hash);
    memcpy(a.machine, k.machine, sizeof a.machine);
    b = a;
    memset(&b.range, 0x55, sizeof b.range);
    a.range.dims = b.range.dims = k.range.dims;
    for (int d = 0; d < 3; d++) {
        a.range.global[d] = b.range.global[d] = k.range.global[d];
        a.range.local[d] = b.range.local[d] = k.range.local[d];
    }
    a.workers = b.workers = 2;
    assert_true(gt_wisdom_key_equal(&a, &b));
    b.range.local[1] = 8;
    assert_false(gt_wisdom_key_equal(&a, &b));
    b.range.local[1] = a.range.local[1];
    b.workers = 1;
    assert_false(gt_wisdom_key_equal(&a, &b));
}

static gt_wisdom_entry entry_of(const char *schedule, double cost, double gain)
{
    gt_wisdom_entry e = {.cost = cost, .gain = gain, .decided = 1795000000};
    char err[256];
    if (gt_schedule_parse(schedule, &e.schedule, err, sizeof err) != 0)
        fail_msg("bad schedule in test: %s", err);
    snprintf(e.metric, sizeof e.metric, "time");
    return e;
}

/* Bit-exact, or both NaN. */
static void assert_same_double(double a, double b)
{
    if (isnan(a))
        assert_true(isnan(b));
    else
        assert_memory_equal(&a, &b, sizeof a);
}

/* Every field that is valid: the contenders up to ncontenders, their costs up to n. */
static void assert_refines_equal(const gt_wisdom_refine *a, const gt_wisdom_refine *b)
{
    assert_int_equal(a->state, b->state);
    assert_int_equal(a->launches, b->launches);
    assert_same_double(a->settled_cost, b->settled_cost);
    assert_int_equal(a->drifted, b->drifted);
    assert_int_equal(a->unexplored, b->unexplored);
    assert_int_equal(a->resumes, b->resumes);
    assert_int_equal(a->ncontenders, b->ncontenders);
    for (unsigned i = 0; i < a->ncontenders; i++) {
        const gt_refine_contender *x = &a->contenders[i], *y = &b->contenders[i];
        assert_true(gt_schedule_equal(&x->schedule, &y->schedule));
        assert_int_equal(x->n, y->n);
        for (unsigned k = 0; k < x->n; k++) {
            assert_same_double(x->cost[k], y->cost[k]);
            assert_same_double(x->incumbent[k], y->incumbent[k]);
        }
    }
}

static void assert_entries_equal(const gt_wisdom_entry *a, const gt_wisdom_entry *b)
{
    assert_true(gt_schedule_equal(&a->schedule, &b->schedule));
    assert_string_equal(a->metric, b->metric);
    assert_memory_equal(&a->cost, &b->cost, sizeof a->cost); /* bit-exact, not approximately */
    if (isnan(a->gain))
        assert_true(isnan(b->gain));
    else
        assert_memory_equal(&a->gain, &b->gain, sizeof a->gain);
    assert_int_equal(a->decided, b->decided);
    assert_refines_equal(&a->refine, &b->refine);
}

static gt_refine_contender contender_of(const char *schedule, unsigned n, double first)
{
    gt_refine_contender c = {.n = n};
    char err[256];
    if (gt_schedule_parse(schedule, &c.schedule, err, sizeof err) != 0)
        fail_msg("bad schedule in test: %s", err);
    for (unsigned k = 0; k < n; k++) {
        c.cost[k] = first + k / 3.0; /* thirds, so that printing them exactly matters */
        c.incumbent[k] = first * 0.9 + k * 1e-7;
    }
    return c;
}

/* Refining, 3 launches in, two contenders (one with all 8 pairs), nothing settled yet. */
static gt_wisdom_refine refining_of_two(void)
{
    return (gt_wisdom_refine){
        .state = GT_REFINE_REFINING,
        .launches = 3,
        .ncontenders = 2,
        .contenders = {contender_of("group=column,item=column,assign=block", 2, 1.2),
                       contender_of("group=hilbert,span=4,item=linear,assign=dynamic:8", GT_REFINE_OBSERVATIONS, 0.1)},
        .settled_cost = NAN,
    };
}

static gt_wisdom *open_ok(fixture *f, const char *path)
{
    gt_wisdom *w = NULL;
    if (gt_wisdom_open(path, &w, f->err, sizeof f->err) != 0)
        fail_msg("open %s: %s", path, f->err);
    return w;
}

static void write_file(const char *path, const char *bytes, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* The file's bytes, NUL-terminated; free() it. */
static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, fp);
    buf[*len] = '\0';
    fclose(fp);
    return buf;
}

static void make_parent(fixture *f)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/state", f->dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/state/gridtune", f->dir);
    assert_int_equal(mkdir(p, 0700), 0);
}

/* How many names in dir start with prefix; the first one's path goes into first. */
static size_t count_names(const char *dir, const char *prefix, char *first, size_t firstlen)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            if (n++ == 0 && first) {
                int len = snprintf(first, firstlen, "%s/%s", dir, e->d_name);
                assert_true(len > 0 && (size_t)len < firstlen);
            }
        }
    closedir(d);
    return n;
}

/* A wisdom document of one entry, with one field's JSON text replaced when field is set. */
static void write_doc(const char *path, const char *field, const char *value)
{
    const char *names[] = {"kernel", "kernel_hash", "machine", "range", "workers",
                           "schedule", "metric", "cost", "gain", "decided"};
    const char *values[] = {"\"transpose\"", "\"0123456789abcdef\"", "\"fedcba9876543210\"",
                            "{\"dims\": 2, \"global\": [8192, 8192, 1], \"local\": [16, 16, 1]}", "2",
                            "\"group=linear,item=tiled:4x4,assign=block\"", "\"time\"", "1.25", "0.31",
                            "1795000000"};
    char doc[4096];
    int n = snprintf(doc, sizeof doc, "{\"format\": \"gridtune-wisdom\", \"version\": 1, \"entries\": [{");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        n += snprintf(doc + n, sizeof doc - (size_t)n, "%s\"%s\": %s", i ? ", " : "", names[i],
                      field && strcmp(field, names[i]) == 0 ? value : values[i]);
    snprintf(doc + n, sizeof doc - (size_t)n, "}]}\n");
    write_file(path, doc, strlen(doc));
}

/* ---- Store, save, reopen, lookup ---- */

static void stored_entries_survive_save_and_reopen(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k1 = key_of("transpose", 8192, 2), k2 = key_of("matmul", 1024, 4);
    gt_wisdom_entry e1 = entry_of("group=grouped:8,item=tiled:4x4,assign=block", 0.1 + 0.2, 0.31);
    gt_wisdom_entry e2 = entry_of("group=hilbert,span=16,item=linear,assign=dynamic:8", 1e-9 / 3, NAN);
    e2.decided = 0;
    assert_int_equal(gt_wisdom_store(f->w, &k1, &e1, NULL, 0), 0);
    assert_int_equal(gt_wisdom_store(f->w, &k2, &e2, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_close(f->w);

    f->w = open_ok(f, f->path);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    assert_int_equal(gt_wisdom_count(f->w), 2);
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k1, &got));
    assert_entries_equal(&got, &e1);
    assert_true(gt_wisdom_lookup(f->w, &k2, &got));
    assert_entries_equal(&got, &e2);
}

/* Files written before spans existed name no span: their schedules read as span=1, and a
 * schedule with a span reads back with it. */
static void schedule_without_span_reads_as_one(void **state)
{
    fixture *f = *state;
    make_parent(f);
    write_doc(f->path, NULL, NULL);
    f->w = open_ok(f, f->path);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k, &got));
    assert_int_equal(got.schedule.span, 1);
    gt_wisdom_close(f->w);
    write_doc(f->path, "schedule", "\"assign=block,span=32,item=tiled:4x4\"");
    f->w = open_ok(f, f->path);
    assert_true(gt_wisdom_lookup(f->w, &k, &got));
    assert_int_equal(got.schedule.span, 32);
    assert_int_equal(got.schedule.assign.kind, GT_ASSIGN_BLOCK);
}

static void unknown_cost_and_gain_are_saved_as_null_and_read_back(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", NAN, NAN);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    size_t len;
    char *text = read_file(f->path, &len);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "entries"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(entry, "cost")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(entry, "gain")));
    cJSON_Delete(doc);
    free(text);
    gt_wisdom_close(f->w);
    f->w = open_ok(f, f->path);
    gt_wisdom_entry back;
    assert_true(gt_wisdom_get(f->w, 0, NULL, &back));
    assert_true(isnan(back.cost));
    assert_true(isnan(back.gain));
}

/* ---- Refinement ---- */

static void refine_survives_save_and_reopen(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k1 = key_of("transpose", 8192, 2), k2 = key_of("matmul", 1024, 4);
    gt_wisdom_entry e1 = entry_of("group=linear,item=tiled:4x4,assign=block", 1.25, 0.31);
    e1.refine = refining_of_two();
    gt_wisdom_entry e2 = entry_of("group=zigzag,item=linear,assign=stealing", 0.5, NAN);
    e2.refine = (gt_wisdom_refine){.state = GT_REFINE_REOPENED, .launches = GT_REFINE_COUNT_MAX, .ncontenders = 1,
                                   .contenders = {contender_of("group=morton,item=column,assign=cyclic:3", 0, 0)},
                                   .settled_cost = 0.1 + 0.2, .drifted = 2};
    assert_int_equal(gt_wisdom_store(f->w, &k1, &e1, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_store(f->w, &k2, &e2, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_close(f->w);

    f->w = open_ok(f, f->path);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k1, &got));
    assert_entries_equal(&got, &e1);
    assert_true(isnan(got.refine.settled_cost));
    assert_true(gt_wisdom_lookup(f->w, &k2, &got));
    assert_entries_equal(&got, &e2);
}

static void saved_refine_has_the_documented_shape(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=tiled:4x4,assign=block", 1.25, 0.31);
    e.refine = refining_of_two();
    e.refine.contenders[0].cost[0] = 1.2;
    e.refine.contenders[0].incumbent[1] = 1.15;
    e.refine.unexplored = 1u << GT_AXIS_SPAN | 1u << GT_AXIS_ITEM;
    e.refine.resumes = 1;
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    size_t len;
    char *text = read_file(f->path, &len);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON *refine = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "entries"), 0), "refine");
    assert_true(cJSON_IsObject(refine));
    const char *order[] = {"state", "launches", "settled_cost", "drifted", "contenders", "unexplored", "resumes"};
    const cJSON *x = refine->child;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++, x = x->next)
        assert_string_equal(x->string, order[i]);
    assert_null(x);
    assert_string_equal(cJSON_GetObjectItem(refine, "state")->valuestring, "refining");
    assert_int_equal(cJSON_GetObjectItem(refine, "launches")->valuedouble, 3);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(refine, "settled_cost")));
    assert_int_equal(cJSON_GetObjectItem(refine, "drifted")->valuedouble, 0);
    cJSON *unexplored = cJSON_GetObjectItem(refine, "unexplored");
    assert_int_equal(cJSON_GetArraySize(unexplored), 2);
    assert_string_equal(cJSON_GetArrayItem(unexplored, 0)->valuestring, "item");
    assert_string_equal(cJSON_GetArrayItem(unexplored, 1)->valuestring, "span");
    assert_int_equal(cJSON_GetObjectItem(refine, "resumes")->valuedouble, 1);
    cJSON *contenders = cJSON_GetObjectItem(refine, "contenders");
    assert_int_equal(cJSON_GetArraySize(contenders), 2);
    cJSON *c0 = cJSON_GetArrayItem(contenders, 0);
    assert_string_equal(cJSON_GetObjectItem(c0, "schedule")->valuestring, "group=column,item=column,assign=block");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "costs")), 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "incumbent_costs")), 2);
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "costs"), 0)->valuedouble == 1.2);
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "incumbent_costs"), 1)->valuedouble == 1.15);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(contenders, 1), "costs")),
                     GT_REFINE_OBSERVATIONS);
    cJSON_Delete(doc);
    free(text);
}

/* Files written before refinement existed have no "refine": their entries are settled, with no
 * contenders, and the next save writes the part. */
static void entry_without_refine_reads_as_settled(void **state)
{
    fixture *f = *state;
    make_parent(f);
    write_doc(f->path, NULL, NULL);
    f->w = open_ok(f, f->path);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k, &got));
    assert_int_equal(got.refine.state, GT_REFINE_SETTLED);
    assert_int_equal(got.refine.ncontenders, 0);
    assert_int_equal(got.refine.launches, 0);
    assert_int_equal(got.refine.drifted, 0);
    assert_true(got.refine.settled_cost == 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    size_t len;
    char *text = read_file(f->path, &len);
    cJSON *doc = cJSON_Parse(text);
    cJSON *refine = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "entries"), 0), "refine");
    assert_string_equal(cJSON_GetObjectItem(refine, "state")->valuestring, "settled");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(refine, "contenders")), 0);
    cJSON_Delete(doc);
    free(text);
}

static void refine_as_written_by_hand_loads(void **state)
{
    fixture *f = *state;
    make_parent(f);
    write_doc(f->path, "decided",
              "1795000000, \"refine\": {\"state\": \"reopened\", \"launches\": 3, \"settled_cost\": 0.75, "
              "\"drifted\": 2, \"contenders\": [{\"schedule\": \"assign=block,item=column,group=column\", "
              "\"costs\": [1.2, 1.3], \"incumbent_costs\": [1.1, 1.15]}], \"unexplored\": [\"span\", "
              "\"group\"], \"resumes\": 2}");
    f->w = open_ok(f, f->path);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    gt_wisdom_entry got;
    assert_true(gt_wisdom_get(f->w, 0, NULL, &got));
    gt_wisdom_refine want = {.state = GT_REFINE_REOPENED, .launches = 3, .settled_cost = 0.75, .drifted = 2,
                             .unexplored = 1u << GT_AXIS_GROUP | 1u << GT_AXIS_SPAN, .resumes = 2, .ncontenders = 1,
                             .contenders = {{.n = 2, .cost = {1.2, 1.3}, .incumbent = {1.1, 1.15}}}};
    char err[256];
    assert_int_equal(gt_schedule_parse("group=column,item=column,assign=block", &want.contenders[0].schedule, err,
                                       sizeof err), 0);
    assert_refines_equal(&got.refine, &want);
}

static void refine_state_names_read_back(void **state)
{
    (void)state;
    for (int s = 0; s < GT_REFINE_STATES; s++) {
        gt_refine_state back;
        assert_int_equal(gt_refine_state_parse(gt_refine_state_name((gt_refine_state)s), &back), 0);
        assert_int_equal(back, s);
    }
    assert_string_equal(gt_refine_state_name(GT_REFINE_SETTLED), "settled");
    assert_string_equal(gt_refine_state_name(GT_REFINE_REFINING), "refining");
    assert_string_equal(gt_refine_state_name(GT_REFINE_REOPENED), "reopened");
    gt_refine_state untouched = GT_REFINE_REFINING;
    assert_int_equal(gt_refine_state_parse("Settled", &untouched), -EINVAL);
    assert_int_equal(gt_refine_state_parse(NULL, &untouched), -EINVAL);
    assert_int_equal(untouched, GT_REFINE_REFINING);
}

static void store_refuses_a_refine_the_file_could_not_hold(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry ok = entry_of("group=linear,item=linear,assign=block", 1, 0);
    ok.refine = refining_of_two();
    assert_int_equal(gt_wisdom_store(f->w, &k, &ok, f->err, sizeof f->err), 0);
    gt_wisdom_clear(f->w);
    struct {
        gt_wisdom_entry e;
        const char *problem;
    } bad[13];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        bad[i].e = ok;
    bad[0].e.refine.state = (gt_refine_state)GT_REFINE_STATES;
    bad[0].problem = "\"refine\": \"state\": unknown state 3";
    bad[1].e.refine.ncontenders = GT_REFINE_CONTENDERS + 1;
    bad[1].problem = "\"refine\": 6 contenders; expected at most 5";
    bad[2].e.refine.contenders[1].n = GT_REFINE_OBSERVATIONS + 1;
    bad[2].problem = "\"refine\": \"contenders\"[1]: 9 paired costs; at most 8";
    bad[3].e.refine.contenders[0].cost[1] = -0.5;
    bad[3].problem = "\"refine\": \"contenders\"[0]: \"costs\"[1]: -0.5 is not a finite cost";
    bad[4].e.refine.contenders[1].incumbent[7] = NAN;
    bad[4].problem = "\"refine\": \"contenders\"[1]: \"incumbent_costs\"[7]: nan is not a finite cost";
    bad[5].e.refine.contenders[0].incumbent[0] = INFINITY;
    bad[5].problem = "\"incumbent_costs\"[0]: inf";
    bad[6].e.refine.contenders[1].schedule.assign.kind = GT_ASSIGN_KINDS;
    bad[6].problem = "\"refine\": \"contenders\"[1]: \"schedule\": unknown order or assignment kind";
    bad[7].e.refine.settled_cost = -1;
    bad[7].problem = "\"refine\": \"settled_cost\": -1 is not a finite cost";
    bad[8].e.refine.settled_cost = INFINITY;
    bad[8].problem = "\"settled_cost\": inf";
    bad[9].e.refine.launches = GT_REFINE_COUNT_MAX + 1;
    bad[9].problem = "\"refine\": \"launches\": 1000001 is more than 1000000";
    bad[10].e.refine.drifted = GT_REFINE_COUNT_MAX + 1;
    bad[10].problem = "\"refine\": \"drifted\": 1000001 is more than 1000000";
    bad[11].e.refine.unexplored = 1u << GT_AXIS_COUNT;
    bad[11].problem = "\"refine\": \"unexplored\" names an axis that does not exist";
    bad[12].e.refine.resumes = GT_REFINE_RESUMES + 1;
    bad[12].problem = "\"refine\": \"resumes\": 3 is more than 2";
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f->err[0] = '\0';
        assert_int_equal(gt_wisdom_store(f->w, &k, &bad[i].e, f->err, sizeof f->err), -EINVAL);
        if (!strstr(f->err, bad[i].problem))
            fail_msg("case %zu: \"%s\" does not name \"%s\"", i, f->err, bad[i].problem);
    }
    assert_int_equal(gt_wisdom_count(f->w), 0);
    /* Only the valid part is looked at: costs past n, contenders past ncontenders. */
    gt_wisdom_entry past = ok;
    past.refine.contenders[0].cost[5] = -1;
    past.refine.ncontenders = 1;
    past.refine.contenders[1].n = 99;
    assert_int_equal(gt_wisdom_store(f->w, &k, &past, f->err, sizeof f->err), 0);
}

static void keys_differing_in_one_field_do_not_match(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key base = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=tiled:4x4,assign=block", 1, 0);
    assert_int_equal(gt_wisdom_store(f->w, &base, &e, NULL, 0), 0);
    assert_true(gt_wisdom_lookup(f->w, &base, NULL));

    gt_wisdom_key k[7];
    for (int i = 0; i < 7; i++)
        k[i] = base;
    snprintf(k[0].kernel, sizeof k[0].kernel, "transpose2");
    snprintf(k[1].kernel_hash, sizeof k[1].kernel_hash, "0123456789abcdee");
    snprintf(k[2].machine, sizeof k[2].machine, "fedcba9876543211");
    k[3].range.dims = 3;
    k[4].range.global[0] = 4096;
    k[5].range.local[1] = 8;
    k[6].workers = 3;
    for (int i = 0; i < 7; i++)
        if (gt_wisdom_lookup(f->w, &k[i], NULL))
            fail_msg("key variant %d matched the stored key", i);
}

static void unused_dimensions_do_not_matter(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=tiled:4x4,assign=block", 1, 0);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    k.range.global[2] = 7;
    k.range.local[2] = 7;
    assert_true(gt_wisdom_lookup(f->w, &k, NULL));
}

static void storing_a_key_again_replaces_it(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry a = entry_of("group=linear,item=tiled:4x4,assign=block", 1, 0);
    gt_wisdom_entry b = entry_of("group=zigzag,item=linear,assign=stealing", 0.5, 0.2);
    assert_int_equal(gt_wisdom_store(f->w, &k, &a, NULL, 0), 0);
    assert_int_equal(gt_wisdom_store(f->w, &k, &b, NULL, 0), 0);
    assert_int_equal(gt_wisdom_count(f->w), 1);
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k, &got));
    assert_entries_equal(&got, &b);
}

static void store_refuses_what_the_file_could_not_hold(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key good = key_of("transpose", 8192, 2);
    gt_wisdom_entry ok = entry_of("group=linear,item=linear,assign=block", 1, 0);
    gt_wisdom_key k[4] = {good, good, good, good};
    snprintf(k[0].kernel, sizeof k[0].kernel, "not a name");
    snprintf(k[1].machine, sizeof k[1].machine, "FEDCBA9876543210");
    k[2].range.global[0] = 8190; /* not a multiple of 16 */
    k[3].workers = 0;
    for (int i = 0; i < 4; i++)
        assert_int_equal(gt_wisdom_store(f->w, &k[i], &ok, NULL, 0), -EINVAL);
    gt_wisdom_entry e[3] = {ok, ok, ok};
    snprintf(e[0].metric, sizeof e[0].metric, "speed");
    e[1].cost = INFINITY;
    e[2].decided = -1;
    for (int i = 0; i < 3; i++)
        assert_int_equal(gt_wisdom_store(f->w, &good, &e[i], NULL, 0), -EINVAL);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    /* The refusal names the field, for the report's wisdom_note. */
    char err[256];
    assert_int_equal(gt_wisdom_store(f->w, &k[3], &ok, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "\"workers\": 0 workers"));
    assert_int_equal(gt_wisdom_store(f->w, &good, &e[0], err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "speed"));
}

/* ---- Saving ---- */

static void save_creates_missing_directories_private(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    char dir[PATH_MAX];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(f->path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

static void save_leaves_no_temporary_files(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=tiled:4x4,assign=block", 1, 0);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0); /* and over an old file */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    assert_int_equal(count_names(dir, "", NULL, 0), 3); /* ".", ".." and the file */
    assert_int_equal(count_names(dir, "wisdom.json", NULL, 0), 1);
}

static void saved_file_parses_as_the_format(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=tiled:4x4,assign=block", 1.25, 0.31);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    size_t len;
    char *text = read_file(f->path, &len);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "format")->valuestring, "gridtune-wisdom");
    assert_int_equal(cJSON_GetObjectItem(doc, "version")->valueint, 1);
    cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "entries"), 0);
    assert_string_equal(cJSON_GetObjectItem(entry, "schedule")->valuestring,
                        "group=linear,item=tiled:4x4,assign=block");
    assert_string_equal(cJSON_GetObjectItem(entry, "kernel")->valuestring, "transpose");
    cJSON *global = cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "range"), "global");
    assert_int_equal(cJSON_GetArraySize(global), 3);
    assert_int_equal(cJSON_GetArrayItem(global, 2)->valueint, 1);
    assert_true(cJSON_GetObjectItem(entry, "cost")->valuedouble == 1.25);
    assert_int_equal(cJSON_GetObjectItem(entry, "decided")->valuedouble, 1795000000);
    assert_true(len > 0 && text[len - 1] == '\n');
    cJSON_Delete(doc);
    free(text);
}

static void failed_save_returns_errno_and_removes_temporary_file(void **state)
{
    fixture *f = *state;
    make_parent(f);
    f->w = open_ok(f, f->path);
    assert_int_equal(mkdir(f->path, 0700), 0); /* a directory appears where the file goes */
    f->err[0] = '\0';
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), -EISDIR);
    assert_non_null(strstr(f->err, f->path));
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    assert_int_equal(count_names(dir, "wisdom.json.tmp-", NULL, 0), 0);
}

/* ---- Corrupt, unreadable and missing files ---- */

/* Opens f->path holding bytes and checks: empty wisdom, a warning naming the path, the
 * problem and the aside file, which holds the original bytes; nothing left at the path. */
static void assert_set_aside(fixture *f, const char *bytes, size_t len, const char *problem)
{
    make_parent(f);
    write_file(f->path, bytes, len);
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    const char *warning = gt_wisdom_warning(f->w);
    if (!strstr(warning, problem) || !strstr(warning, f->path))
        fail_msg("warning \"%s\" does not name \"%s\" and the path", warning, problem);
    char dir[PATH_MAX], aside[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    assert_int_equal(count_names(dir, "wisdom.json.corrupt-", aside, sizeof aside), 1);
    assert_non_null(strstr(warning, aside));
    assert_int_equal(access(f->path, F_OK), -1);
    size_t got_len;
    char *got = read_file(aside, &got_len);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, bytes, len);
    free(got);
}

static void garbage_bytes_are_set_aside(void **state)
{
    const char bytes[] = "\x7f" "ELF\x02\x01\x01garbage{\xff";
    assert_set_aside(*state, bytes, sizeof bytes - 1, "is corrupt: not valid JSON at line 1, column 1");
}

static void json_of_the_wrong_shape_is_set_aside(void **state)
{
    const char *bytes = "{\"format\": \"something-else\", \"version\": 1, \"entries\": []}";
    assert_set_aside(*state, bytes, strlen(bytes), "\"format\" is not \"gridtune-wisdom\"");
}

static void file_text(fixture *f, const char *field, const char *value, char **text, size_t *len)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/doc.json", f->dir);
    write_doc(tmp, field, value);
    *text = read_file(tmp, len);
    unlink(tmp);
}

/* The one-entry document with field's value replaced is set aside, naming problem. */
static void assert_field_set_aside(fixture *f, const char *field, const char *value, const char *problem)
{
    char *text;
    size_t len;
    file_text(f, field, value, &text, &len);
    assert_set_aside(f, text, len, problem);
    free(text);
}

static void bad_schedule_text_is_set_aside(void **state)
{
    assert_field_set_aside(*state, "schedule", "\"group=linear,item=tiled:0x4,assign=block\"",
                           "entry 0: \"schedule\": order \"tiled:0x4\": tile width must be at least 1");
}

static void bad_span_is_set_aside(void **state)
{
    assert_field_set_aside(*state, "schedule", "\"group=linear,span=0,item=linear,assign=block\"",
                           "entry 0: \"schedule\": span \"0\"");
}

static void bad_range_is_set_aside(void **state)
{
    assert_field_set_aside(*state, "range", "{\"dims\": 2, \"global\": [8190, 8192, 1], \"local\": [16, 16, 1]}",
                           "entry 0: \"range\": range dimension 0: global size 8190 is not a multiple");
}

static void unknown_field_is_set_aside(void **state)
{
    assert_field_set_aside(*state, "metric", "\"time\", \"colour\": \"blue\"", "entry 0: unknown field \"colour\"");
}

/* A document whose one entry has refine as its last field, with that JSON text. */
static void assert_refine_set_aside(fixture *f, const char *refine, const char *problem)
{
    char value[2048];
    snprintf(value, sizeof value, "1795000000, \"refine\": %s", refine);
    assert_field_set_aside(f, "decided", value, problem);
}

#define REFINE_START "{\"state\": \"refining\", \"launches\": 3, \"settled_cost\": null, \"drifted\": 0, "
#define CONTENDER "{\"schedule\": \"group=column\", \"costs\": [1.2], \"incumbent_costs\": [1.1]}"

static void refine_with_unknown_state_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            "{\"state\": \"paused\", \"launches\": 3, \"settled_cost\": null, \"drifted\": 0, "
                            "\"contenders\": []}",
                            "entry 0: \"refine\": \"state\": unknown state \"paused\"; expected settled, refining or "
                            "reopened");
}

static void refine_with_six_contenders_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [" CONTENDER ", " CONTENDER ", " CONTENDER ", " CONTENDER
                                         ", " CONTENDER ", " CONTENDER "]}",
                            "entry 0: \"refine\": \"contenders\" has 6 contenders; expected at most 5");
}

static void refine_with_nine_costs_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [{\"schedule\": \"group=column\", "
                                         "\"costs\": [1, 2, 3, 4, 5, 6, 7, 8, 9], "
                                         "\"incumbent_costs\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}]}",
                            "entry 0: \"refine\": \"contenders\"[0]: \"costs\" has 9 numbers; at most 8 are kept");
}

static void refine_with_unpaired_costs_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [" CONTENDER ", {\"schedule\": \"group=column\", "
                                         "\"costs\": [1.2, 1.3], \"incumbent_costs\": [1.1, 1.15, 1.2]}]}",
                            "entry 0: \"refine\": \"contenders\"[1]: \"costs\" has 2 numbers and "
                            "\"incumbent_costs\" 3");
}

static void refine_with_a_negative_cost_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [{\"schedule\": \"group=column\", "
                                         "\"costs\": [1.2, -0.5], \"incumbent_costs\": [1.1, 1.15]}]}",
                            "entry 0: \"refine\": \"contenders\"[0]: \"costs\"[1]: -0.5 is not a finite cost of at "
                            "least 0");
}

static void refine_with_a_bad_contender_schedule_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [" CONTENDER ", {\"schedule\": \"item=tiled:0x4\", "
                                         "\"costs\": [], \"incumbent_costs\": []}]}",
                            "entry 0: \"refine\": \"contenders\"[1]: \"schedule\": order \"tiled:0x4\": tile width "
                            "must be at least 1");
}

static void refine_with_an_unknown_field_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"colour\": \"blue\"}",
                            "entry 0: \"refine\": unknown field \"colour\"");
}

static void refine_with_a_missing_field_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, "{\"state\": \"settled\", \"launches\": 0, \"settled_cost\": 1, "
                                    "\"contenders\": []}",
                            "entry 0: \"refine\": missing \"drifted\"");
}

static void refine_with_a_field_twice_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"launches\": 4}",
                            "entry 0: \"refine\": \"launches\" appears twice");
}

static void contender_with_an_unknown_field_is_set_aside(void **state)
{
    assert_refine_set_aside(*state,
                            REFINE_START "\"contenders\": [{\"schedule\": \"group=column\", \"costs\": [], "
                                         "\"incumbent_costs\": [], \"weight\": 1}]}",
                            "entry 0: \"refine\": \"contenders\"[0]: unknown field \"weight\"");
}

static void refine_with_an_unknown_axis_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"unexplored\": [\"group\", \"colour\"]}",
                            "entry 0: \"refine\": \"unexplored\" holds something other than an axis name: assign, "
                            "item, group or span");
}

static void refine_with_an_axis_twice_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"unexplored\": [\"span\", \"span\"]}",
                            "entry 0: \"refine\": \"unexplored\" names span twice");
}

static void refine_with_unexplored_not_a_list_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"unexplored\": \"group\"}",
                            "entry 0: \"refine\": \"unexplored\" must be an array of axis names");
}

static void refine_with_too_many_resumes_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, REFINE_START "\"contenders\": [], \"unexplored\": [], \"resumes\": 3}",
                            "entry 0: \"refine\": \"resumes\": 3 is more than 2");
}

static void refine_not_an_object_is_set_aside(void **state)
{
    assert_refine_set_aside(*state, "[\"refining\", 3]",
                            "entry 0: \"refine\": must be an object with state, launches, settled_cost, drifted and "
                            "contenders, and optionally unexplored and resumes");
}

static void directory_in_place_of_the_file_is_set_aside(void **state)
{
    fixture *f = *state;
    make_parent(f);
    assert_int_equal(mkdir(f->path, 0700), 0);
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    assert_non_null(strstr(gt_wisdom_warning(f->w), "is not a regular file"));
    char dir[PATH_MAX], aside[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    assert_int_equal(count_names(dir, "wisdom.json.corrupt-", aside, sizeof aside), 1);
    struct stat st;
    assert_int_equal(stat(aside, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0); /* and the path is usable again */
}

static void second_corruption_in_a_second_keeps_the_first_aside(void **state)
{
    fixture *f = *state;
    make_parent(f);
    write_file(f->path, "first", 5);
    f->w = open_ok(f, f->path);
    gt_wisdom_close(f->w);
    write_file(f->path, "second", 6);
    f->w = open_ok(f, f->path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state/gridtune", f->dir);
    /* Usually both land in one second and the second gets a ".1" suffix; either way two. */
    assert_int_equal(count_names(dir, "wisdom.json.corrupt-", NULL, 0), 2);
}

static void missing_file_is_empty_without_warning(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    assert_string_equal(gt_wisdom_warning(f->w), "");
    assert_string_equal(gt_wisdom_path(f->w), f->path);
    assert_int_equal(access(f->path, F_OK), -1); /* opening creates nothing */
}

/* ---- The default path ---- */

typedef struct saved_env {
    char *xdg, *home;
} saved_env;

static char *dup_env(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static int env_setup(void **state)
{
    saved_env *s = calloc(1, sizeof *s);
    s->xdg = dup_env("XDG_STATE_HOME");
    s->home = dup_env("HOME");
    *state = s;
    return 0;
}

static void restore(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static int env_teardown(void **state)
{
    saved_env *s = *state;
    restore("XDG_STATE_HOME", s->xdg);
    restore("HOME", s->home);
    free(s->xdg);
    free(s->home);
    free(s);
    return 0;
}

static void default_path_uses_xdg_state_home(void **state)
{
    (void)state;
    char buf[PATH_MAX], err[256];
    setenv("XDG_STATE_HOME", "/x/state", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), 0);
    assert_string_equal(buf, "/x/state/gridtune/wisdom.json");
}

static void default_path_falls_back_to_home(void **state)
{
    (void)state;
    char buf[PATH_MAX], err[256];
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/u", 1);
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), 0);
    assert_string_equal(buf, "/home/u/.local/state/gridtune/wisdom.json");
}

static void default_path_ignores_relative_or_empty_xdg_state_home(void **state)
{
    (void)state;
    char buf[PATH_MAX], err[256];
    setenv("HOME", "/home/u", 1);
    setenv("XDG_STATE_HOME", "relative/state", 1);
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), 0);
    assert_string_equal(buf, "/home/u/.local/state/gridtune/wisdom.json");
    setenv("XDG_STATE_HOME", "", 1);
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), 0);
    assert_string_equal(buf, "/home/u/.local/state/gridtune/wisdom.json");
}

static void default_path_without_home_is_an_error(void **state)
{
    (void)state;
    char buf[PATH_MAX], err[256] = "";
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "HOME"));
    gt_wisdom *w = NULL;
    assert_int_equal(gt_wisdom_open(NULL, &w, err, sizeof err), -ENOENT);
    assert_null(w);
}

static void default_path_too_long_for_the_buffer(void **state)
{
    (void)state;
    char buf[16], err[256] = "";
    setenv("XDG_STATE_HOME", "/x/state", 1);
    assert_int_equal(gt_wisdom_default_path(buf, sizeof buf, err, sizeof err), -ENAMETOOLONG);
}

/* ---- Import, export, clear ---- */

static void import_merges_and_replaces(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key old = key_of("transpose", 8192, 2), other = key_of("matmul", 1024, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", 3, 0);
    assert_int_equal(gt_wisdom_store(f->w, &old, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_store(f->w, &other, &e, NULL, 0), 0);
    char in[PATH_MAX];
    snprintf(in, sizeof in, "%s/in.json", f->dir);
    write_doc(in, NULL, NULL); /* transpose 8192x8192/16x16, 2 workers: the same key as old */
    size_t merged = 0;
    assert_int_equal(gt_wisdom_import(f->w, in, &merged, f->err, sizeof f->err), 0);
    assert_int_equal(merged, 1);
    assert_int_equal(gt_wisdom_count(f->w), 2);
    gt_wisdom_entry got, want = entry_of("group=linear,item=tiled:4x4,assign=block", 1.25, 0.31);
    assert_true(gt_wisdom_lookup(f->w, &old, &got));
    assert_entries_equal(&got, &want);
    assert_true(gt_wisdom_lookup(f->w, &other, NULL));
}

static void import_of_a_bad_file_changes_nothing(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", 3, 0);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    /* entry 0 is good (and would replace k), entry 1 is not */
    const char *doc =
        "{\"format\": \"gridtune-wisdom\", \"version\": 1, \"entries\": ["
        "{\"kernel\": \"transpose\", \"kernel_hash\": \"0123456789abcdef\", \"machine\": \"fedcba9876543210\","
        " \"range\": {\"dims\": 2, \"global\": [8192, 8192, 1], \"local\": [16, 16, 1]}, \"workers\": 2,"
        " \"schedule\": \"group=zigzag\", \"metric\": \"time\", \"cost\": 1, \"gain\": null, \"decided\": 1},"
        "{\"kernel\": \"matmul\", \"kernel_hash\": \"0123456789abcdef\", \"machine\": \"fedcba9876543210\","
        " \"range\": {\"dims\": 1, \"global\": [64, 1, 1], \"local\": [8, 1, 1]}, \"workers\": 0,"
        " \"schedule\": \"group=linear\", \"metric\": \"time\", \"cost\": 1, \"gain\": null, \"decided\": 1}]}";
    char in[PATH_MAX];
    snprintf(in, sizeof in, "%s/bad.json", f->dir);
    write_file(in, doc, strlen(doc));
    size_t merged = 99;
    f->err[0] = '\0';
    assert_int_equal(gt_wisdom_import(f->w, in, &merged, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "entry 1: \"workers\""));
    assert_non_null(strstr(f->err, in));
    assert_int_equal(merged, 99);
    assert_int_equal(gt_wisdom_count(f->w), 1);
    gt_wisdom_entry got;
    assert_true(gt_wisdom_lookup(f->w, &k, &got));
    assert_entries_equal(&got, &e);
    assert_int_equal(access(in, F_OK), 0); /* an import never sets its source aside */
}

static void export_then_import_round_trips(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k[3] = {key_of("transpose", 8192, 2), key_of("matmul", 1024, 2), key_of("copy", 4096, 1)};
    gt_wisdom_entry e[3] = {entry_of("group=linear,item=tiled:4x4,assign=block", 0.1, 0.3),
                            entry_of("group=hilbert,item=zigzag,assign=cyclic:3", 7.0 / 3, NAN),
                            entry_of("group=strided:16/4,item=column,assign=stealing", 1e-12, -0.01)};
    for (int i = 0; i < 3; i++)
        assert_int_equal(gt_wisdom_store(f->w, &k[i], &e[i], NULL, 0), 0);
    char out[PATH_MAX], other[PATH_MAX];
    snprintf(out, sizeof out, "%s/export.json", f->dir);
    snprintf(other, sizeof other, "%s/other.json", f->dir);
    assert_int_equal(gt_wisdom_export(f->w, out, f->err, sizeof f->err), 0);

    gt_wisdom *w2 = open_ok(f, other);
    size_t merged = 0;
    assert_int_equal(gt_wisdom_import(w2, out, &merged, f->err, sizeof f->err), 0);
    assert_int_equal(merged, 3);
    assert_int_equal(gt_wisdom_count(w2), 3);
    for (int i = 0; i < 3; i++) {
        gt_wisdom_entry got;
        assert_true(gt_wisdom_lookup(w2, &k[i], &got));
        assert_entries_equal(&got, &e[i]);
    }
    /* The export is the file format itself: saving the import gives the same bytes. */
    assert_int_equal(gt_wisdom_save(w2, f->err, sizeof f->err), 0);
    size_t la, lb;
    char *a = read_file(out, &la), *b = read_file(other, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    gt_wisdom_close(w2);
}

static void clear_empties(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", 3, 0);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, NULL, 0), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_clear(f->w);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    assert_false(gt_wisdom_lookup(f->w, &k, NULL));
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_close(f->w);
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_count(f->w), 0);
    assert_string_equal(gt_wisdom_warning(f->w), "");
}

/* ---- Identities ---- */

/* ---- The limit ---- */

/* The gx-th of a family of keys that differ only in their range. */
static gt_wisdom_key nth_key(size_t gx)
{
    return key_of("copy_rows", 16 * (gx + 1), 2);
}

static void store_nth(gt_wisdom *w, size_t gx)
{
    gt_wisdom_key k = nth_key(gx);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", (double)gx, 0);
    assert_int_equal(gt_wisdom_store(w, &k, &e, NULL, 0), 0);
}

/* The entry found for the gx-th key is the one stored for it. */
static bool has_nth(gt_wisdom *w, size_t gx)
{
    gt_wisdom_key k = nth_key(gx);
    gt_wisdom_entry got;
    if (!gt_wisdom_lookup(w, &k, &got))
        return false;
    assert_true(got.cost == (double)gx);
    return true;
}

/* A full wisdom makes room for a new key by evicting the entry used longest ago: a lookup
 * counts as a use, and replacing an entry's key evicts nothing. */
static void full_wisdom_evicts_the_least_recently_used(void **state)
{
    fixture *f = *state;
    assert_int_equal(gt_wisdom_open_memory(&f->w), 0);
    assert_int_equal(gt_wisdom_limit(f->w, 3), 0);
    assert_int_equal(gt_wisdom_max(f->w), 3);
    for (size_t i = 0; i < 3; i++)
        store_nth(f->w, i);
    assert_true(has_nth(f->w, 0)); /* 1 is now the least recent */
    store_nth(f->w, 2);            /* a replacement */
    assert_int_equal(gt_wisdom_evicted(f->w), 0);
    store_nth(f->w, 3);
    assert_int_equal(gt_wisdom_count(f->w), 3);
    assert_int_equal(gt_wisdom_evicted(f->w), 1);
    assert_false(has_nth(f->w, 1));
    assert_true(has_nth(f->w, 0) && has_nth(f->w, 2) && has_nth(f->w, 3));
    /* the new key took the evicted one's place in the listing */
    gt_wisdom_key k;
    assert_true(gt_wisdom_get(f->w, 1, &k, NULL));
    gt_wisdom_key want = nth_key(3);
    assert_true(gt_wisdom_key_equal(&k, &want));
}

/* A limit below the count keeps the most recently used entries, in their order: those of a
 * file just loaded count as used in the file's order. */
static void lower_limit_keeps_the_most_recent(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    for (size_t i = 0; i < 6; i++)
        store_nth(f->w, i);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_close(f->w);
    f->w = open_ok(f, f->path);
    assert_true(has_nth(f->w, 1));
    assert_int_equal(gt_wisdom_limit(f->w, 3), 0);
    assert_int_equal(gt_wisdom_count(f->w), 3);
    assert_int_equal(gt_wisdom_evicted(f->w), 3);
    const size_t kept[] = {1, 4, 5};
    for (size_t i = 0; i < 3; i++) {
        gt_wisdom_key k, want = nth_key(kept[i]);
        assert_true(gt_wisdom_get(f->w, i, &k, NULL));
        assert_true(gt_wisdom_key_equal(&k, &want));
    }
}

/* Clearing forgets the entries, not the limit. */
static void clear_keeps_the_limit(void **state)
{
    fixture *f = *state;
    assert_int_equal(gt_wisdom_open_memory(&f->w), 0);
    assert_int_equal(gt_wisdom_limit(f->w, 2), 0);
    store_nth(f->w, 0);
    gt_wisdom_clear(f->w);
    for (size_t i = 1; i <= 3; i++)
        store_nth(f->w, i);
    assert_int_equal(gt_wisdom_count(f->w), 2);
    assert_false(has_nth(f->w, 1));
    assert_true(has_nth(f->w, 2) && has_nth(f->w, 3));
}

/* Thousands of stores, lookups and evictions, checked against a plain model of which keys
 * must be there: the index finds every kept key and no evicted one. */
static void index_agrees_with_a_model_through_evictions(void **state)
{
    fixture *f = *state;
    enum { KEYS = 3000, MAX = 500, STEPS = 40000 };
    static uint64_t last_use[KEYS]; /* 0: never stored, or evicted */
    memset(last_use, 0, sizeof last_use);
    assert_int_equal(gt_wisdom_open_memory(&f->w), 0);
    assert_int_equal(gt_wisdom_limit(f->w, MAX), 0);
    uint64_t x = 88172645463325252ULL, tick = 0;
    size_t present = 0;
    for (int step = 0; step < STEPS; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        size_t gx = (size_t)(x % KEYS);
        bool found = has_nth(f->w, gx);
        assert_int_equal(found, last_use[gx] != 0);
        if (found) {
            last_use[gx] = ++tick;
            continue;
        }
        if (present == MAX) { /* the model evicts the least recent too */
            size_t lru = KEYS;
            for (size_t i = 0; i < KEYS; i++)
                if (last_use[i] && (lru == KEYS || last_use[i] < last_use[lru]))
                    lru = i;
            last_use[lru] = 0;
            present--;
        }
        store_nth(f->w, gx);
        last_use[gx] = ++tick;
        present++;
    }
    assert_int_equal(gt_wisdom_count(f->w), present);
    for (size_t i = 0; i < KEYS; i++)
        assert_int_equal(has_nth(f->w, i), last_use[i] != 0);
}

static bool file_has(const char *path, const char *needle)
{
    size_t len;
    char *text = read_file(path, &len);
    bool has = strstr(text, needle) != NULL;
    free(text);
    return has;
}

static void store_nth_for(gt_wisdom *w, size_t gx, uint32_t uid)
{
    store_nth(w, gx);
    gt_wisdom_key k = nth_key(gx);
    assert_true(gt_wisdom_claim(w, &k, uid));
}

/* A full wisdom evicts from the user holding the most entries: a flood of one user's new keys
 * evicts that user's own, and another user's new key evicts the flooder's, not the entry used
 * longest ago. The owners are kept in the file, and a store that replaces keeps its owner. */
static void full_wisdom_evicts_from_the_largest_owner(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_limit(f->w, 4), 0);
    store_nth_for(f->w, 0, 1000); /* the least recent of all */
    for (size_t i = 1; i <= 4; i++)
        store_nth_for(f->w, i, 2000); /* 4 evicts 1 */
    assert_true(has_nth(f->w, 0));
    assert_false(has_nth(f->w, 1));
    store_nth(f->w, 5); /* 1000's, claimed after: evicts 2, 2000's least recent */
    gt_wisdom_key k5 = nth_key(5);
    assert_true(gt_wisdom_claim(f->w, &k5, 1000));
    assert_true(has_nth(f->w, 0) && has_nth(f->w, 3) && has_nth(f->w, 4) && has_nth(f->w, 5));
    assert_false(has_nth(f->w, 2));
    store_nth(f->w, 0); /* replaced, still 1000's */
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    assert_true(file_has(f->path, "\"uid\":\t1000"));
    assert_true(file_has(f->path, "\"uid\":\t2000"));
    gt_wisdom_close(f->w);
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_limit(f->w, 4), 0);
    assert_true(has_nth(f->w, 5)); /* in the file's order, 0 4 5 3: 0 is the least recent now */
    /* 2 entries each, so ties go to the entry used longest ago: 1000's 0, then 2000's 4 */
    store_nth_for(f->w, 6, 1000);
    assert_false(has_nth(f->w, 0));
    store_nth_for(f->w, 7, 2000);
    assert_false(has_nth(f->w, 4));
    assert_int_equal(gt_wisdom_count(f->w), 4);
    assert_true(has_nth(f->w, 3) && has_nth(f->w, 5) && has_nth(f->w, 6) && has_nth(f->w, 7));
}

/* An entry's uid is a user id: (uid_t)-1 stands for none. */
static void bad_uid_is_set_aside(void **state)
{
    assert_field_set_aside(*state, "decided", "1795000000, \"uid\": 4294967295", "entry 0: \"uid\": must be a user id");
}

/* A copy saves what the wisdom held when copied, whatever the wisdom does after. */
static void copy_saves_what_it_was_given(void **state)
{
    fixture *f = *state;
    f->w = open_ok(f, f->path);
    store_nth(f->w, 0);
    gt_wisdom *copy = NULL;
    assert_int_equal(gt_wisdom_copy(f->w, &copy), 0);
    gt_wisdom_clear(f->w);
    store_nth(f->w, 1);
    assert_string_equal(gt_wisdom_path(copy), f->path);
    assert_int_equal(gt_wisdom_save(copy, f->err, sizeof f->err), 0);
    gt_wisdom_close(copy);
    gt_wisdom_close(f->w);
    f->w = open_ok(f, f->path);
    assert_int_equal(gt_wisdom_count(f->w), 1);
    assert_true(has_nth(f->w, 0));
}

static void fnv1a_matches_the_reference_values(void **state)
{
    (void)state;
    assert_true(gt_hash_bytes(GT_HASH_SEED, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(gt_hash_bytes(GT_HASH_SEED, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(gt_hash_bytes(GT_HASH_SEED, "foobar", 6) == 0x85944171f73967e8ULL);
    char text[GT_HASH_TEXT_MAX];
    gt_hash_format(0xaf63dc4c8601ec8cULL, text);
    assert_string_equal(text, "af63dc4c8601ec8c");
    gt_hash_format(0x1, text);
    assert_string_equal(text, "0000000000000001");
}

static void machine_signature_is_16_hex_digits_and_stable(void **state)
{
    (void)state;
    char a[GT_HASH_TEXT_MAX], b[GT_HASH_TEXT_MAX], desc[256] = "";
    gt_machine_signature(a, desc, sizeof desc);
    gt_machine_signature(b, NULL, 0);
    assert_int_equal(strlen(a), 16);
    assert_int_equal(strspn(a, "0123456789abcdef"), 16);
    assert_string_equal(a, b);
    assert_non_null(strstr(desc, "CPU"));
}

static void kernel_identity_depends_on_name_and_content(void **state)
{
    fixture *f = *state;
    char m1[PATH_MAX], m2[PATH_MAX];
    snprintf(m1, sizeof m1, "%s/m1.so", f->dir);
    snprintf(m2, sizeof m2, "%s/m2.so", f->dir);
    /* Bigger than one read chunk, so the chunked read is exercised. */
    size_t n = 200000;
    char *bytes = malloc(n);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (char)(i * 7);
    write_file(m1, bytes, n);
    bytes[n - 1] ^= 1;
    write_file(m2, bytes, n);
    free(bytes);
    char a[GT_HASH_TEXT_MAX], a2[GT_HASH_TEXT_MAX], b[GT_HASH_TEXT_MAX], c[GT_HASH_TEXT_MAX];
    assert_int_equal(gt_kernel_identity(m1, "transpose", a, f->err, sizeof f->err), 0);
    assert_int_equal(gt_kernel_identity(m1, "transpose", a2, f->err, sizeof f->err), 0);
    assert_int_equal(gt_kernel_identity(m1, "matmul", b, f->err, sizeof f->err), 0);
    assert_int_equal(gt_kernel_identity(m2, "transpose", c, f->err, sizeof f->err), 0);
    assert_string_equal(a, a2);
    assert_string_not_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal(strspn(a, "0123456789abcdef"), 16);
}

static void kernel_identity_of_a_missing_module_is_an_error(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], out[GT_HASH_TEXT_MAX];
    snprintf(path, sizeof path, "%s/absent.so", f->dir);
    f->err[0] = '\0';
    assert_int_equal(gt_kernel_identity(path, "transpose", out, f->err, sizeof f->err), -ENOENT);
    assert_non_null(strstr(f->err, path));
}

/* A module's constructors run before its identity is taken, and may have put a FIFO (with no
 * writer: opening it to read would wait for one forever) or a directory in its place. */
static void kernel_identity_of_a_module_that_is_not_a_file_is_an_error(void **state)
{
    fixture *f = *state;
    char fifo[PATH_MAX], out[GT_HASH_TEXT_MAX];
    snprintf(fifo, sizeof fifo, "%s/fifo.so", f->dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    f->err[0] = '\0';
    assert_int_equal(gt_kernel_identity(fifo, "transpose", out, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "not a regular file"));
    f->err[0] = '\0';
    assert_int_equal(gt_kernel_identity(f->dir, "transpose", out, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, f->dir));
    unlink(fifo);
}

/* Writes a file of a few bytes at dir/name, creating dir; returns its path. */
static const char *leftover(fixture *f, const char *name, char *buf, size_t len)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state", f->dir);
    mkdir(dir, 0700);
    strcat(dir, "/gridtune");
    mkdir(dir, 0700);
    snprintf(buf, len, "%s/%s", dir, name);
    FILE *out = fopen(buf, "we");
    assert_non_null(out);
    fputs("{\"format\":", out);
    fclose(out);
    return buf;
}

/* Writers killed between creating their temporary file and renaming it leave the file
 * behind (the audit found 24 after 200 kills). Opening the wisdom removes those nobody holds;
 * one a living writer holds (its flock), and names write_atomic would not make, stay. */
static void open_removes_stale_temporaries_only(void **state)
{
    fixture *f = *state;
    char stale[PATH_MAX], held[PATH_MAX], short_name[PATH_MAX], other[PATH_MAX];
    leftover(f, "wisdom.json.tmp-a1B2c3", stale, sizeof stale);
    leftover(f, "wisdom.json.tmp-Zz9Yy8", held, sizeof held);
    leftover(f, "wisdom.json.tmp-abc", short_name, sizeof short_name);
    leftover(f, "other.json.tmp-a1B2c3", other, sizeof other);
    int holder = open(held, O_RDONLY | O_CLOEXEC); /* another open file: its lock is another writer's */
    assert_true(holder >= 0);
    assert_int_equal(flock(holder, LOCK_EX), 0);
    assert_int_equal(gt_wisdom_open(f->path, &f->w, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_stale_removed(f->w), 1);
    assert_int_equal(access(stale, F_OK), -1);
    assert_int_equal(access(held, F_OK), 0);
    assert_int_equal(access(short_name, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
    close(holder);
    /* A save works beside them, and leaves nothing of its own. */
    gt_wisdom_key k = key_of("transpose", 8192, 2);
    gt_wisdom_entry e = entry_of("group=linear,item=linear,assign=block", 1.0, 0.5);
    assert_int_equal(gt_wisdom_store(f->w, &k, &e, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_save(f->w, f->err, sizeof f->err), 0);
    gt_wisdom_close(f->w);
    f->w = NULL;
    assert_int_equal(gt_wisdom_open(f->path, &f->w, f->err, sizeof f->err), 0);
    assert_int_equal(gt_wisdom_stale_removed(f->w), 1); /* the one held before */
    assert_int_equal(access(held, F_OK), -1);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
#define E(name) cmocka_unit_test_setup_teardown(name, env_setup, env_teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_compare_by_field),
        T(stored_entries_survive_save_and_reopen),
        T(schedule_without_span_reads_as_one),
        T(unknown_cost_and_gain_are_saved_as_null_and_read_back),
        T(refine_survives_save_and_reopen),
        T(saved_refine_has_the_documented_shape),
        T(entry_without_refine_reads_as_settled),
        T(refine_as_written_by_hand_loads),
        T(refine_state_names_read_back),
        T(store_refuses_a_refine_the_file_could_not_hold),
        T(keys_differing_in_one_field_do_not_match),
        T(unused_dimensions_do_not_matter),
        T(storing_a_key_again_replaces_it),
        T(store_refuses_what_the_file_could_not_hold),
        T(save_creates_missing_directories_private),
        T(save_leaves_no_temporary_files),
        T(open_removes_stale_temporaries_only),
        T(saved_file_parses_as_the_format),
        T(failed_save_returns_errno_and_removes_temporary_file),
        T(garbage_bytes_are_set_aside),
        T(json_of_the_wrong_shape_is_set_aside),
        T(bad_schedule_text_is_set_aside),
        T(bad_span_is_set_aside),
        T(bad_range_is_set_aside),
        T(unknown_field_is_set_aside),
        T(refine_with_unknown_state_is_set_aside),
        T(refine_with_six_contenders_is_set_aside),
        T(refine_with_nine_costs_is_set_aside),
        T(refine_with_unpaired_costs_is_set_aside),
        T(refine_with_a_negative_cost_is_set_aside),
        T(refine_with_a_bad_contender_schedule_is_set_aside),
        T(refine_with_an_unknown_field_is_set_aside),
        T(refine_with_a_missing_field_is_set_aside),
        T(refine_with_a_field_twice_is_set_aside),
        T(contender_with_an_unknown_field_is_set_aside),
        T(refine_with_an_unknown_axis_is_set_aside),
        T(refine_with_an_axis_twice_is_set_aside),
        T(refine_with_unexplored_not_a_list_is_set_aside),
        T(refine_with_too_many_resumes_is_set_aside),
        T(refine_not_an_object_is_set_aside),
        T(directory_in_place_of_the_file_is_set_aside),
        T(second_corruption_in_a_second_keeps_the_first_aside),
        T(missing_file_is_empty_without_warning),
        E(default_path_uses_xdg_state_home),
        E(default_path_falls_back_to_home),
        E(default_path_ignores_relative_or_empty_xdg_state_home),
        E(default_path_without_home_is_an_error),
        E(default_path_too_long_for_the_buffer),
        T(import_merges_and_replaces),
        T(import_of_a_bad_file_changes_nothing),
        T(export_then_import_round_trips),
        T(clear_empties),
        T(full_wisdom_evicts_the_least_recently_used),
        T(lower_limit_keeps_the_most_recent),
        T(clear_keeps_the_limit),
        T(index_agrees_with_a_model_through_evictions),
        T(copy_saves_what_it_was_given),
        T(full_wisdom_evicts_from_the_largest_owner),
        T(bad_uid_is_set_aside),
        T(fnv1a_matches_the_reference_values),
        T(machine_signature_is_16_hex_digits_and_stable),
        T(kernel_identity_depends_on_name_and_content),
        T(kernel_identity_of_a_module_that_is_not_a_file_is_an_error),
        T(kernel_identity_of_a_missing_module_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
