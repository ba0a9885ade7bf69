/* oracle.c: the schedules the tuner's picks are judged against, timed side by side
 * (oracle.h). The set of schedules is kernels/contest.c's; this file keeps, beside each, what
 * the launches said of it and its forced runs. */
#include "oracle.h"

#include "kernels/say.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room in entries for every schedule of the set; -1 without memory. */
static int reserve(gt_bench_oracle *o, size_t n)
{
    if (n <= o->cap)
        return 0;
    size_t cap = o->cap ? 2 * o->cap : 16;
    while (cap < n)
        cap *= 2;
    gt_bench_oracle_entry *grown = realloc(o->entries, cap * sizeof *grown);
    if (!grown)
        return -1;
    o->entries = grown;
    o->cap = cap;
    return 0;
}

int gt_bench_oracle_add(gt_bench_oracle *o, const gt_schedule *s, bool keep, double analysis)
{
    size_t before = gt_contest_oracle_count(&o->set);
    if (reserve(o, before + 1) != 0 || gt_contest_oracle_add(&o->set, s) != 0) {
        say("out of memory for %zu oracle schedules", before + 1);
        return -1;
    }
    long i = gt_contest_oracle_find(&o->set, s);
    gt_bench_oracle_entry *e = &o->entries[i];
    if ((size_t)i == before)
        *e = (gt_bench_oracle_entry){.analysis = NAN};
    e->keep |= keep;
    if (isfinite(analysis) && !(e->analysis <= analysis))
        e->analysis = analysis;
    return 0;
}

int gt_bench_oracle_add_text(gt_bench_oracle *o, const char *text, bool keep, double analysis, const char *what)
{
    gt_schedule s;
    char err[256];
    if (gt_schedule_parse(text, &s, err, sizeof err) != 0) {
        say("%s: schedule \"%s\": %s", what, text, err);
        return -1;
    }
    return gt_bench_oracle_add(o, &s, keep, analysis);
}

size_t gt_bench_oracle_count(const gt_bench_oracle *o)
{
    return gt_contest_oracle_count(&o->set);
}

const char *gt_bench_oracle_text(const gt_bench_oracle *o, size_t i)
{
    return gt_contest_oracle_get(&o->set, i)->text;
}

long gt_bench_oracle_find(const gt_bench_oracle *o, const gt_schedule *s)
{
    return gt_contest_oracle_find(&o->set, s);
}

long gt_bench_oracle_find_text(const gt_bench_oracle *o, const char *text)
{
    return gt_contest_oracle_find_text(&o->set, text);
}

/* For ranking the candidates a cap may drop: the lower analysis median first, unmeasured ones
 * last, and among equals the earlier addition. */
typedef struct ranked {
    double analysis;
    size_t index;
} ranked;

static int by_analysis(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    bool ma = isfinite(a->analysis), mb = isfinite(b->analysis);
    if (ma != mb)
        return ma ? -1 : 1;
    if (ma && a->analysis != b->analysis)
        return a->analysis < b->analysis ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

int gt_bench_oracle_cap(gt_bench_oracle *o, size_t max)
{
    size_t n = gt_bench_oracle_count(o), nkept = 0, nother = 0;
    for (size_t i = 0; i < n; i++)
        nkept += o->entries[i].keep;
    if (n <= max || nkept == n)
        return 0;
    ranked *other = malloc((n - nkept) * sizeof *other);
    bool *stays = calloc(n, sizeof *stays);
    gt_bench_oracle kept = {0};
    int rc = other && stays && reserve(&kept, n) == 0 ? 0 : -1;
    if (rc)
        say("out of memory capping %zu oracle schedules", n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (o->entries[i].keep)
            stays[i] = true;
        else
            other[nother++] = (ranked){o->entries[i].analysis, i};
    }
    if (rc == 0)
        qsort(other, nother, sizeof *other, by_analysis);
    for (size_t k = 0; rc == 0 && nkept + k < max && k < nother; k++)
        stays[other[k].index] = true;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!stays[i])
            continue;
        if (gt_contest_oracle_add(&kept.set, &gt_contest_oracle_get(&o->set, i)->schedule) != 0) {
            say("out of memory capping %zu oracle schedules", n);
            rc = -1;
        } else {
            kept.entries[gt_bench_oracle_count(&kept) - 1] = o->entries[i];
        }
    }
    free(other);
    free(stays);
    if (rc) {
        gt_bench_oracle_free(&kept);
        return -1;
    }
    kept.dropped = o->dropped + n - gt_bench_oracle_count(&kept);
    gt_bench_oracle_free(o);
    *o = kept;
    return 0;
}

/* reps rounds over the schedules picked[0..n), rotated (gt_contest_turn), into their times or,
   with retime, their retimed. 0, or -1 at the first failed run. */
static int run_rounds(gt_bench_oracle *o, const size_t *picked, size_t n, unsigned reps, bool retime,
                      const char *name, gt_bench_oracle_run *run, void *ctx)
{
    for (unsigned round = 1; round <= reps; round++) {
        if (retime)
            say("%s: oracle round %u/%u again: the %zu lowest medians and kept schedules", name, round, reps, n);
        else
            say("%s: oracle round %u/%u: %zu schedules forced", name, round, reps, n);
        for (size_t k = 0; k < n; k++) {
            gt_bench_oracle_entry *e = &o->entries[picked[gt_contest_turn(round, reps, n, k)]];
            gt_bench_times *t = retime ? &e->retimed : &e->times;
            if (run(ctx, o, (size_t)(e - o->entries), &t->ns[t->n]) != 0)
                return -1;
            t->n++;
        }
    }
    return 0;
}

/* The indices of the (at most) GT_BENCH_ORACLE_RETIMED lowest medians, lowest first (the first
   of equals first: the best comes first); how many. */
static size_t lowest_medians(const gt_bench_oracle *o, size_t out[GT_BENCH_ORACLE_RETIMED])
{
    size_t n = gt_bench_oracle_count(o), m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = m;
        while (at > 0 && o->entries[i].times.median_ns < o->entries[out[at - 1]].times.median_ns)
            at--;
        if (at == GT_BENCH_ORACLE_RETIMED)
            continue;
        if (m < GT_BENCH_ORACLE_RETIMED)
            m++;
        memmove(&out[at + 1], &out[at], (m - 1 - at) * sizeof out[0]);
        out[at] = i;
    }
    return m;
}

/* The schedules to time again (gt_bench_oracle_time) into out, which has room for all: the
   lowest medians, then every kept one not among them; how many. */
static size_t to_retime(const gt_bench_oracle *o, size_t *out)
{
    size_t m = lowest_medians(o, out), lowest = m;
    for (size_t i = 0; i < gt_bench_oracle_count(o); i++) {
        bool listed = false;
        for (size_t k = 0; k < lowest; k++)
            listed |= out[k] == i;
        if (o->entries[i].keep && !listed)
            out[m++] = i;
    }
    return m;
}

int gt_bench_oracle_time(gt_bench_oracle *o, unsigned reps, const char *name, gt_bench_oracle_run *run, void *ctx)
{
    size_t n = gt_bench_oracle_count(o);
    if (n == 0) {
        say("%s: the oracle has no schedule to time", name);
        return -1;
    }
    if (reps < 1 || reps > GT_BENCH_MAX_REPS) {
        say("%s: %u oracle runs per schedule; 1 to %d", name, reps, GT_BENCH_MAX_REPS);
        return -1;
    }
    if (o->entries[0].times.n) {
        say("%s: the oracle has been timed already", name);
        return -1;
    }
    size_t *picked = malloc((n > GT_BENCH_ORACLE_RETIMED ? n : GT_BENCH_ORACLE_RETIMED) * sizeof *picked);
    if (!picked) {
        say("%s: out of memory for %zu oracle schedules", name, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        picked[i] = i;
    int rc = run_rounds(o, picked, n, reps, false, name, run, ctx);
    size_t m = 0;
    if (rc == 0) {
        gt_bench_times_rank(&o->entries[0].times, sizeof *o->entries, n, &o->best, &o->worst);
        m = n > 1 ? to_retime(o, picked) : 0;
        if (m)
            rc = run_rounds(o, picked, m, reps, true, name, run, ctx);
    }
    for (size_t k = 0; rc == 0 && k < m; k++)
        gt_bench_times_summarise(&o->entries[picked[k]].retimed);
    free(picked);
    return rc;
}

uint64_t gt_bench_oracle_median_ns(const gt_bench_oracle *o, size_t i)
{
    const gt_bench_oracle_entry *e = &o->entries[i];
    return e->retimed.n ? e->retimed.median_ns : e->times.median_ns;
}

void gt_bench_oracle_free(gt_bench_oracle *o)
{
    gt_contest_oracle_free(&o->set);
    free(o->entries);
    *o = (gt_bench_oracle){0};
}
