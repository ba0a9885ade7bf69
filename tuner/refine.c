/* refine.c: the rules of launches that keep learning (refine.h). */
#include "refine.h"

#include "stats.h"
#include "stretch.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const event_names[] = {"none", "compared", "replaced", "dropped", "drifted", "reopened"};

const char *gt_refine_event_name(gt_refine_event e)
{
    return (unsigned)e < sizeof event_names / sizeof event_names[0] ? event_names[e] : "unknown";
}

static double winner_median(const gt_tune_result *r)
{
    for (size_t i = 0; i < r->ncandidates; i++)
        if (gt_schedule_equal(&r->candidates[i].schedule, &r->winner))
            return r->candidates[i].median;
    return NAN;
}

/* The winner with its setting on this axis taken from s. On the span axis the winner's grab
   stays: a chunk counts workgroups and a grab holds one span at least, so a chunk below the
   winner's span grows to it (copy_cols' dynamic:2 at a span of 32 grabbed 32 workgroups; at a
   span of 1 it grabbed 2, and the launch took twice as long). */
static gt_schedule with_axis_of(const gt_schedule *winner, gt_axis axis, const gt_schedule *s)
{
    gt_schedule out = *winner;
    switch (axis) {
    case GT_AXIS_ITEM:
        out.item = s->item;
        break;
    case GT_AXIS_GROUP:
        out.group = s->group;
        break;
    case GT_AXIS_SPAN:
        out.span = s->span;
        if (gt_assign_has_chunk(out.assign.kind) && out.assign.chunk < winner->span)
            out.assign.chunk = winner->span;
        break;
    default:
        out.assign = s->assign;
        break;
    }
    return out;
}

/* Whether s's setting on this axis differs from w's. */
static bool differs_on(const gt_schedule *w, gt_axis axis, const gt_schedule *s)
{
    gt_schedule only = with_axis_of(w, axis, s);
    return !gt_schedule_equal(&only, w);
}

/* The axis along which s is w moved (with_axis_of); GT_AXIS_COUNT when s is w, or w moved
   along more than one axis. */
static gt_axis moved_axis(const gt_schedule *w, const gt_schedule *s)
{
    static const gt_axis axes[] = {GT_AXIS_ITEM, GT_AXIS_GROUP, GT_AXIS_SPAN, GT_AXIS_ASSIGN};
    for (size_t a = 0; !gt_schedule_equal(w, s) && a < sizeof axes / sizeof axes[0]; a++) {
        gt_schedule moved = with_axis_of(w, axes[a], s);
        if (gt_schedule_equal(&moved, s))
            return axes[a];
    }
    return GT_AXIS_COUNT;
}

/* The winner with another span (with_axis_of). */
static gt_schedule with_span(const gt_schedule *winner, uint32_t span)
{
    gt_schedule s = *winner;
    s.span = span;
    return with_axis_of(winner, GT_AXIS_SPAN, &s);
}

/* c moved from `from` on one axis: the same move from `to`, in out (true); false otherwise. */
static bool same_move(const gt_schedule *from, const gt_schedule *to, const gt_schedule *c, gt_schedule *out)
{
    gt_axis a = moved_axis(from, c);
    if (a == GT_AXIS_COUNT)
        return false;
    *out = with_axis_of(to, a, c);
    return true;
}

/* The kind of s's order on an order axis, as a bit. */
static uint32_t order_kind_bit(const gt_schedule *s, gt_axis axis)
{
    return 1u << (axis == GT_AXIS_ITEM ? s->item.kind : s->group.kind);
}

/* The analysis's best candidate (by median) that moves the winner on this axis, to another
   kind of order than those in `kinds` on the group and item axes (column against tiled, not
   tiled:4x4 against tiled:8x8), to any other setting on the others; SIZE_MAX when there is
   none. Samples misjudge orders of different kinds the most: under the linear group order,
   copy_cols' column and tiled items cost about the same in samples, and tiled items 4.7-5.9
   times column's on the whole launch; a contender of the winner's own kind (tiled:4x4 for
   tiled:8x8) left such a winner in place for 20 launches (bench/results/other-kind-2026-11-27/).
   Behind the winner, since it was measured under other settings of the other axes, which may
   be why; but not beyond most (GT_TUNE_HOPELESS times the winner's cost for the first): a
   contender runs a quarter of a launch, and item=column at 8 times the winner's cost made
   copy_rows' second launch 2.7 times its first. */
static size_t best_other(const gt_tune_result *r, gt_axis axis, uint32_t kinds, double most)
{
    bool orders = axis == GT_AXIS_ITEM || axis == GT_AXIS_GROUP;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < r->ncandidates; i++) {
        const gt_candidate *c = &r->candidates[i];
        bool other =
            orders ? !(order_kind_bit(&c->schedule, axis) & kinds) : differs_on(&r->winner, axis, &c->schedule);
        if (other && c->median >= 0 && c->median <= most &&
            (best == SIZE_MAX || c->median < r->candidates[best].median))
            best = i;
    }
    return best;
}

static void add_contender(gt_wisdom_refine *rf, const gt_schedule *s, const gt_schedule *winner)
{
    if (rf->ncontenders == GT_REFINE_CONTENDERS || gt_schedule_equal(s, winner))
        return;
    for (unsigned i = 0; i < rf->ncontenders; i++)
        if (gt_schedule_equal(&rf->contenders[i].schedule, s))
            return;
    rf->contenders[rf->ncontenders++].schedule = *s;
}

/* The widest span refinement tries under group order `group`: a row of the grid, or less
   under another order than the linear one (gt_space_row_span), as long as a contender's share
   still holds GT_REFINE_SHARE_SPANS of them (a 1-D grid's row is the whole launch). */
static uint32_t widest_span(const gt_order *group, const uint32_t grid[3])
{
    uint64_t groups = (uint64_t)grid[0] * grid[1] * grid[2];
    uint64_t widest = groups / (GT_REFINE_SHARE * GT_REFINE_SHARE_SPANS);
    uint32_t row = gt_space_row_span(group, grid);
    return widest < 1 ? 1 : widest < row ? (uint32_t)widest : row;
}

/* The span a winner narrower than the widest span meets as a contender: the widest, but for a
   winner that walks columns of workgroups with a span of 1, COLUMN_SPAN. Under the column
   group order a span as wide as a row walks rows again: transpose's column walk with a span
   of 512 cost 3.4-5.2 ns per work-item against 1.2-1.6 without, and with a span of 4 its whole
   launches ran 1.08-1.19 times faster than without (32: 1.49 times;
   bench/results/walk-span-2026-11-29/). A winning span then steps on along the series. */
#define COLUMN_SPAN 4

static uint32_t span_contender(const gt_schedule *winner, uint32_t widest)
{
    return winner->group.kind == GT_ORDER_COLUMN && winner->span == 1 && COLUMN_SPAN < widest ? COLUMN_SPAN : widest;
}

bool gt_refine_can_resume(const gt_wisdom_refine *rf)
{
    return rf->unexplored && rf->resumes < GT_REFINE_RESUMES;
}

/* Samples judge orders least well (a sample cannot show how an order meets the TLB, the
   prefetchers or the other worker over a whole launch), and analysis measures each axis under
   the settings of the axes decided before it. So the contenders are the winner with its item
   order, its group order and its assignment, in turn, replaced by the best other setting
   analysis measured: schedules the samples could not judge, which whole shares of launches
   can. Spans are what samples judge worst of all: a sample holds a few spans per worker, so the
   widest ones are never in its series. When analysis explored spans, the span contender is the
   widest span (a row of the grid, where rows are contiguous in memory the longest stretch), or,
   with the winner there already, the best other span analysis measured. The widest span is a
   contender too when the kernel takes spans but the analysis's time ran out before the span
   axis (copy_rows then settled on a span of 1, at 49% of memcpy's bandwidth against 76%). */
void gt_refine_start(const gt_tune_config *cfg, const gt_tune_result *r, const uint32_t grid[3],
                     const gt_wisdom_entry *before, gt_wisdom_refine *rf)
{
    memset(rf, 0, sizeof *rf);
    rf->settled_cost = NAN;
    rf->unexplored = cfg->refine ? r->unexplored : 0;
    rf->resumes = before ? before->refine.resumes + 1 : 0;
    /* A resumed analysis that kept the winner keeps its contenders and their pairs: they were
       measured against the same winner, on axes the resumed analysis may not have looked at. */
    bool kept = before && r->ncandidates && gt_schedule_equal(&r->winner, &r->candidates[0].schedule);
    if (kept)
        for (unsigned i = 0; i < before->refine.ncontenders; i++)
            rf->contenders[rf->ncontenders++] = before->refine.contenders[i];
    static const gt_axis axes[] = {GT_AXIS_ITEM, GT_AXIS_GROUP, GT_AXIS_SPAN, GT_AXIS_ASSIGN};
    bool spans = cfg->space.axes & (1u << GT_AXIS_SPAN);
    uint32_t widest = widest_span(&r->winner.group, grid);
    double winner_cost = winner_median(r);
    for (size_t a = 0; cfg->refine && winner_cost > 0 && a < sizeof axes / sizeof axes[0]; a++) {
        if (axes[a] == GT_AXIS_SPAN && spans && r->winner.span < widest) {
            /* whether or not analysis reached spans */
            gt_schedule s = with_span(&r->winner, span_contender(&r->winner, widest));
            add_contender(rf, &s, &r->winner);
            continue;
        }
        bool orders = axes[a] == GT_AXIS_ITEM || axes[a] == GT_AXIS_GROUP;
        uint32_t kinds = orders ? order_kind_bit(&r->winner, axes[a]) : 0;
        unsigned wanted = axes[a] == GT_AXIS_ITEM ? GT_REFINE_ITEM_KINDS : 1;
        size_t i;
        /* a second kind only when close: item=linear at 1.97 times transpose's winner in the
           samples cost 11 times its share at the winner's span of ~470, 1.6 times a launch */
        for (unsigned n = 0; n < wanted; n++) {
            double ratio = n == 0 ? GT_TUNE_HOPELESS : GT_REFINE_HOPELESS;
            if ((i = best_other(r, axes[a], kinds, ratio * winner_cost)) == SIZE_MAX)
                break;
            gt_schedule s = with_axis_of(&r->winner, axes[a], &r->candidates[i].schedule);
            add_contender(rf, &s, &r->winner);
            kinds |= orders ? order_kind_bit(&s, axes[a]) : 0;
        }
    }
    /* A span between the ends has the narrowest as a contender too, after the others: within
       the column group order samples misorder spans the other way (copy_cols' span 8 was its
       best launch and its worst sample, bench/results/sample-vs-launch-2026-11-27/), and a
       cold pick of span 16 or 32 stayed at 1.14-1.32 times span 1's launch. */
    if (cfg->refine && winner_cost > 0 && spans && r->winner.span > 1 && r->winner.span < widest) {
        gt_schedule s = with_span(&r->winner, 1);
        add_contender(rf, &s, &r->winner);
    }
    /* One that moved it starts afresh from its own candidates, which cover only the axes it
       resumed; the old contenders' moves on the other axes still apply, to the new winner and
       without their pairs (copy_cols kept a tiled item order 5x the column one's for 20
       launches when a resumed analysis moved its assignment and dropped the item contender). */
    for (unsigned i = 0; cfg->refine && before && !kept && i < before->refine.ncontenders; i++) {
        gt_schedule s;
        if (same_move(&before->schedule, &r->winner, &before->refine.contenders[i].schedule, &s))
            add_contender(rf, &s, &r->winner);
    }
    rf->state = rf->ncontenders || gt_refine_can_resume(rf) ? GT_REFINE_REFINING : GT_REFINE_SETTLED;
}

bool gt_refine_resumes(const gt_tune_config *cfg, const gt_wisdom_entry *e)
{
    return cfg->refine && e->refine.state != GT_REFINE_SETTLED && gt_refine_can_resume(&e->refine);
}

bool gt_refine_active(const gt_tune_config *cfg, const gt_wisdom_entry *e)
{
    return cfg->refine && e->refine.state != GT_REFINE_SETTLED && e->refine.ncontenders > 0;
}

bool gt_refine_needs_analysis(const gt_tune_config *cfg, const gt_wisdom_entry *e)
{
    return cfg->refine && e->refine.state == GT_REFINE_REOPENED && e->refine.ncontenders == 0;
}

/* A contender's median cost over the winner's in its pairs; NaN before its first. */
static double median_ratio(const gt_refine_contender *k)
{
    double ratio[GT_REFINE_OBSERVATIONS];
    for (unsigned i = 0; i < k->n; i++)
        ratio[i] = k->cost[i] / k->incumbent[i];
    return gt_stats_median(ratio, k->n);
}

size_t gt_refine_pick(const gt_wisdom_refine *rf, size_t picked[GT_REFINE_PER_LAUNCH])
{
    size_t n = 0;
    for (size_t i = 0; i < rf->ncontenders && n < GT_REFINE_PER_LAUNCH; i++)
        if (rf->contenders[i].n == 0)
            picked[n++] = i;
    while (n < GT_REFINE_PER_LAUNCH && n < rf->ncontenders) {
        size_t lead = SIZE_MAX;
        double best = INFINITY;
        for (size_t i = 0; i < rf->ncontenders; i++) {
            bool taken = false;
            for (size_t j = 0; j < n; j++)
                taken |= picked[j] == i;
            if (taken)
                continue;
            double r = median_ratio(&rf->contenders[i]);
            if (lead == SIZE_MAX || r < best) {
                best = r;
                lead = i;
            }
        }
        picked[n++] = lead;
    }
    return n;
}

static void clear_pairs(gt_wisdom_refine *rf)
{
    for (unsigned i = 0; i < rf->ncontenders; i++)
        rf->contenders[i].n = 0;
}

static void drop(gt_wisdom_refine *rf, size_t c)
{
    memmove(&rf->contenders[c], &rf->contenders[c + 1], (rf->ncontenders - c - 1) * sizeof rf->contenders[0]);
    rf->ncontenders--;
}

/* The next step along a series: `to` moved from `from`, so to x (to / from), kept within
   1..most; 0 when that is no step at all. */
static uint32_t step_on(uint32_t from, uint32_t to, uint64_t most)
{
    if (from == 0 || to == from)
        return 0;
    double next = round((double)to * ((double)to / (double)from));
    next = fmax(1, fmin(next, (double)most));
    return next == (double)to ? 0 : (uint32_t)next;
}

/* A winner that took over by moving along a series, its span or its chunk, may gain more from
   the next step the same way: spans wider than any a sample could judge (a sample holds a few
   spans per worker), which whole shares of launches can. That step joins the contenders. */
static void add_next_step(gt_wisdom_refine *rf, const gt_schedule *from, const gt_schedule *to, const uint32_t grid[3])
{
    gt_axis moved = moved_axis(from, to);
    if (moved == GT_AXIS_SPAN) {
        uint32_t span = step_on(from->span, to->span, widest_span(&to->group, grid));
        gt_schedule next = with_span(to, span);
        if (span)
            add_contender(rf, &next, to);
    } else if (moved == GT_AXIS_ASSIGN && from->assign.kind == to->assign.kind && gt_assign_has_chunk(to->assign.kind)) {
        gt_schedule next = *to;
        next.assign.chunk = step_on(from->assign.chunk, to->assign.chunk, gt_walk_positions(grid, to->span) / 2);
        if (next.assign.chunk)
            add_contender(rf, &next, to);
    }
}

/* Contender k becomes the winner. The old winner becomes contender k when k took over on one
   share far ahead, which may have misled; when the rank test ruled it out, it leaves (it lost
   its first share again in every copy_cols series, a launch before the entry could settle).
   Every pair was against the old winner, so none is kept. The other contenders make their
   moves from the new winner (when copy_cols' item=column took over from tiled:8x8, its group
   contender, which still had the tiled items, could not win), and the next step along the
   series the winner moved on joins them. */
static void promote(gt_wisdom_entry *e, gt_refine_contender *k, const uint32_t grid[3], bool tested)
{
    gt_schedule old = e->schedule;
    size_t taken = (size_t)(k - e->refine.contenders);
    e->schedule = k->schedule;
    e->cost = gt_stats_median(k->cost, k->n);
    k->schedule = old;
    gt_wisdom_refine was = e->refine;
    e->refine.ncontenders = 0;
    for (unsigned i = 0; i < was.ncontenders; i++) {
        if (tested && i == taken)
            continue;
        gt_schedule s = was.contenders[i].schedule;
        same_move(&old, &e->schedule, &s, &s);
        add_contender(&e->refine, &s, &e->schedule);
    }
    clear_pairs(&e->refine);
    add_next_step(&e->refine, &old, &e->schedule, grid);
}

/* The settled cost comes from the first settled launch: a whole launch, which is what later
   launches are compared with (a winner's cost on three quarters of a launch, after a
   contender's share, was up to 25% below its whole-launch cost here). */
static void settle(gt_wisdom_refine *rf)
{
    rf->state = GT_REFINE_SETTLED;
    rf->settled_cost = NAN;
    rf->drifted = 0;
}

gt_refine_event gt_refine_record(const gt_tune_config *cfg, gt_wisdom_entry *e, const uint32_t grid[3], size_t c,
                                 double contender_cost, double incumbent_cost, double *p)
{
    gt_wisdom_refine *rf = &e->refine;
    *p = NAN;
    if (c >= rf->ncontenders)
        return GT_REFINE_EVENT_NONE;
    gt_refine_contender *k = &rf->contenders[c];
    if (k->n == GT_REFINE_OBSERVATIONS) { /* keep the latest */
        memmove(k->cost, k->cost + 1, (GT_REFINE_OBSERVATIONS - 1) * sizeof k->cost[0]);
        memmove(k->incumbent, k->incumbent + 1, (GT_REFINE_OBSERVATIONS - 1) * sizeof k->incumbent[0]);
        k->n--;
    }
    k->cost[k->n] = contender_cost;
    k->incumbent[k->n] = incumbent_cost;
    k->n++;
    gt_refine_event ev = GT_REFINE_EVENT_COMPARED;
    if (k->n == 1 && !(contender_cost < incumbent_cost)) {
        drop(rf, c); /* no faster on its first share: not worth the launches a test needs */
        ev = GT_REFINE_EVENT_DROPPED;
    } else if (k->n == 1 && incumbent_cost > GT_REFINE_HOPELESS * contender_cost) {
        promote(e, k, grid, false); /* far ahead on its first share: every launch it waits costs more */
        ev = GT_REFINE_EVENT_REPLACED;
    } else if (k->n >= GT_REFINE_SIGHT_PAIRS && !(median_ratio(k) * (1 + cfg->min_gain) < 1)) {
        drop(rf, c); /* no gain of min_gain in sight: the launches a test needs would be lost */
        ev = GT_REFINE_EVENT_DROPPED;
    } else if (k->n >= GT_REFINE_MIN_PAIRS) {
        gt_signed_rank_test better, worse;
        gt_signed_rank_test_less(k->cost, k->incumbent, k->n, cfg->min_gain, &better);
        gt_signed_rank_test_less(k->incumbent, k->cost, k->n, 0, &worse);
        if (better.p < GT_RANK_TEST_ALPHA) {
            *p = better.p;
            promote(e, k, grid, true);
            ev = GT_REFINE_EVENT_REPLACED;
        } else if (worse.p < GT_RANK_TEST_ALPHA) {
            *p = worse.p;
            drop(rf, c);
            ev = GT_REFINE_EVENT_DROPPED;
        }
    }
    return ev;
}

bool gt_refine_end_launch(const gt_tune_config *cfg, gt_wisdom_entry *e)
{
    gt_wisdom_refine *rf = &e->refine;
    rf->launches++;
    if (rf->state == GT_REFINE_SETTLED || !(rf->ncontenders == 0 || rf->launches >= cfg->refine_limit))
        return false;
    settle(rf);
    return true;
}

gt_refine_event gt_refine_check_drift(const gt_tune_config *cfg, gt_wisdom_entry *e, double cost)
{
    gt_wisdom_refine *rf = &e->refine;
    if (!cfg->refine || rf->state != GT_REFINE_SETTLED || !(cost >= 0))
        return GT_REFINE_EVENT_NONE;
    if (!(rf->settled_cost > 0)) {
        rf->settled_cost = cost; /* the first settled launch */
        return GT_REFINE_EVENT_NONE;
    }
    if (cost <= rf->settled_cost * (1 + GT_REFINE_DRIFT)) {
        rf->drifted = 0;
        return GT_REFINE_EVENT_NONE;
    }
    if (++rf->drifted < GT_REFINE_DRIFT_LAUNCHES)
        return GT_REFINE_EVENT_DRIFTED;
    rf->state = GT_REFINE_REOPENED;
    rf->launches = 0;
    rf->drifted = 0;
    rf->settled_cost = NAN;
    clear_pairs(rf);
    return GT_REFINE_EVENT_REOPENED;
}
