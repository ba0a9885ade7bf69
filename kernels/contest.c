/* contest.c: the timed runs of contenders, their summaries and ranking, the rotation of their
 * order from round to round, and the oracle's set of schedules (contest.h). */
#include "contest.h"

#include "tuner/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Times in ns are whole numbers far below 2^53, so their doubles are exact and the median of
 * two middle ones, cast back, is their integer mean. */
void gt_bench_times_summarise(gt_bench_times *t)
{
    double v[GT_BENCH_MAX_REPS];
    for (unsigned i = 0; i < t->n; i++)
        v[i] = (double)t->ns[i];
    gt_stats s;
    gt_stats_compute(v, t->n, &s);
    if (s.n == 0) {
        t->median_ns = t->min_ns = t->max_ns = 0;
        return;
    }
    t->min_ns = (uint64_t)s.min;
    t->max_ns = (uint64_t)s.max;
    t->median_ns = (uint64_t)s.median;
}

void gt_bench_times_rank(gt_bench_times *first, size_t stride, size_t n, size_t *best, size_t *worst)
{
    *best = *worst = 0;
    for (size_t i = 0; i < n; i++) {
        gt_bench_times *t = (gt_bench_times *)((char *)first + i * stride);
        gt_bench_times_summarise(t);
        if (t->median_ns < ((gt_bench_times *)((char *)first + *best * stride))->median_ns)
            *best = i;
        if (t->median_ns > ((gt_bench_times *)((char *)first + *worst * stride))->median_ns)
            *worst = i;
    }
}

void gt_bench_times_json(cJSON *obj, const gt_bench_times *t)
{
    cJSON_AddNumberToObject(obj, "median_ns", (double)t->median_ns);
    cJSON_AddNumberToObject(obj, "min_ns", (double)t->min_ns);
    cJSON_AddNumberToObject(obj, "max_ns", (double)t->max_ns);
    cJSON *runs = cJSON_AddArrayToObject(obj, "runs_ns");
    for (unsigned k = 0; k < t->n; k++)
        cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)t->ns[k]));
}

size_t gt_contest_turn(unsigned round, unsigned rounds, size_t count, size_t k)
{
    size_t shift = (size_t)(round - 1) * count / rounds;
    return (k + shift) % count;
}

/* Two schedules are the same when their canonical texts are, so the set compares texts. */
static long find_canonical(const gt_contest_oracle *o, const char *text)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->entries[i].text, text) == 0)
            return (long)i;
    return -1;
}

int gt_contest_oracle_add(gt_contest_oracle *o, const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    if (find_canonical(o, text) >= 0)
        return 0;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        gt_contest_oracle_entry *grown = realloc(o->entries, cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        o->entries = grown;
        o->cap = cap;
    }
    gt_contest_oracle_entry *e = &o->entries[o->n++];
    e->schedule = *s;
    memcpy(e->text, text, sizeof text);
    return 0;
}

int gt_contest_oracle_add_text(gt_contest_oracle *o, const char *text, char *err, size_t errlen)
{
    gt_schedule s;
    int rc = gt_schedule_parse(text, &s, err, errlen);
    return rc ? rc : gt_contest_oracle_add(o, &s);
}

size_t gt_contest_oracle_count(const gt_contest_oracle *o)
{
    return o->n;
}

const gt_contest_oracle_entry *gt_contest_oracle_get(const gt_contest_oracle *o, size_t i)
{
    return &o->entries[i];
}

long gt_contest_oracle_find(const gt_contest_oracle *o, const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    return find_canonical(o, text);
}

long gt_contest_oracle_find_text(const gt_contest_oracle *o, const char *text)
{
    gt_schedule s;
    char err[8];
    return gt_schedule_parse(text, &s, err, sizeof err) ? -1 : gt_contest_oracle_find(o, &s);
}

void gt_contest_oracle_free(gt_contest_oracle *o)
{
    free(o->entries);
    *o = (gt_contest_oracle){0};
}
