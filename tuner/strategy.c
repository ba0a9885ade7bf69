/* strategy.c: racing and nested analysis over the axes of the candidate space.
 *
 * Statistics rules: candidates are ranked by the median cost per work-item of their samples.
 * A winner is clear when its worst sample, raised by the minimum gain, is still below every
 * rival's best sample. An axis is flat when all its remaining candidates' medians lie within
 * the minimum gain of each other; then the incumbent stays. Candidates whose medians lie within
 * the minimum gain of the best one tie, and the first listed of them is the axis's pick (on
 * every axis but the spans'). A challenger replaces the incumbent only when its median beats
 * the incumbent's by the minimum gain. A candidate whose first look costs twice the best
 * median leaves the race. Last, the confirmation measures the incumbent and its best
 * challenger again in pairs, and the rank test decides between them. */
#include "strategy.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The confirmation measures the incumbent and its challenger this many times each: four
   against four is the fewest whose rank test can show a difference at p < 0.05 (1/70). */
#define CONFIRM_PAIRS 4
/* The share of the budget (after calibration) kept for the confirmation. */
#define CONFIRM_SHARE 0.2
/* A check's one look takes over only when it is this much faster than the incumbent. Samples
   of one schedule differ by up to a quarter here (transpose's column order with a span of 404:
   0.80-0.98 ns per item in one analysis), and the span check's look at a span of 1, 5% below,
   took one transpose analysis of 16 to a launch at 1.44x the best; the checks' wins in
   copy_cols were by 3-4x (bench/results/check-gain-2026-11-27/). */
#define CHECK_GAIN 0.25

typedef struct axis_run {
    const gt_tune_config *cfg;
    gt_sampler *s;
    gt_tune_result *r;
    size_t *listed; /* candidate indices of this axis in nested order: styles, then parameters */
    size_t *field;  /* the same indices, best first after ranking; racing's survivors lead */
    size_t n;
    size_t incumbent;
    size_t slots; /* samples this axis may spend, as the limits stood when it began */
    double share; /* its share of the samples left when it began (its size over the axes') */
    char *err;
    size_t errlen;
} axis_run;

static double median_of(const axis_run *a, size_t cand)
{
    return a->r->candidates[cand].median;
}

/* Ranks by median, candidates without a measured median last; stable for equal medians so
   the incumbent (listed first) keeps its place on ties. */
static void rank(axis_run *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t c = a->field[i];
        double m = median_of(a, c);
        size_t j = i;
        for (; j > 0; j--) {
            double p = median_of(a, a->field[j - 1]);
            if (!(isnan(p) && !isnan(m)) && !(m < p))
                break;
            a->field[j] = a->field[j - 1];
        }
        a->field[j] = c;
    }
}

static bool clear_winner(const axis_run *a, size_t n)
{
    const gt_candidate *best = &a->r->candidates[a->field[0]];
    if (n < 2 || gt_candidate_samples_used(best) < a->cfg->min_samples || isnan(best->max))
        return false;
    for (size_t i = 1; i < n; i++) {
        const gt_candidate *c = &a->r->candidates[a->field[i]];
        if (!(best->max * (1 + a->cfg->min_gain) < c->min))
            return false;
    }
    return true;
}

static bool flat(const axis_run *a, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    bool has_incumbent = false;
    for (size_t i = 0; i < n; i++) {
        double m = median_of(a, a->field[i]);
        if (isnan(m))
            return false;
        lo = fmin(lo, m);
        hi = fmax(hi, m);
        has_incumbent |= a->field[i] == a->incumbent;
    }
    return has_incumbent && hi <= lo * (1 + a->cfg->min_gain);
}

/* Candidate c's median is below the incumbent's by the fraction gain. */
static bool beats_by(const axis_run *a, size_t c, double gain)
{
    return c != a->incumbent && median_of(a, c) * (1 + gain) < median_of(a, a->incumbent);
}

/* Candidate c's median beats the incumbent's by the minimum gain: c takes over. */
static bool beats_incumbent(const axis_run *a, size_t c)
{
    return beats_by(a, c, a->cfg->min_gain);
}

/* The candidate's last sample when it is its look (or the glance that ended it); NULL else. */
static const gt_sample *last_look(const gt_candidate *c)
{
    const gt_sample *last = c->nsamples ? &c->samples[c->nsamples - 1] : NULL;
    return last && (last->kind == GT_SAMPLE_LOOK || last->kind == GT_SAMPLE_GLANCE) ? last : NULL;
}

/* A candidate whose look (or the glance that ended it) costs GT_TUNE_HOPELESS times the best
   median so far leaves the race: it cannot win, and its samples are the most expensive ones. */
static void drop_if_hopeless(axis_run *a, size_t c)
{
    gt_candidate *cand = &a->r->candidates[c];
    const gt_sample *look = last_look(cand);
    if (c != a->incumbent && look)
        cand->eliminated = gt_cost_hopeless(a->r, look->cost);
}

/* The column item order's look (or glance) cost this many times the best median so far: its
   column walk leaves the race unlooked at. */
#define WALK_FAR (2 * GT_TUNE_HOPELESS)

/* The column walk (tuner/space.c) keeps the column item order and changes only which workgroup
   comes next. Where the column item order alone costs WALK_FAR times the best so far under the
   row-wise base, the data runs along the rows, and the walk, whose items go down the columns
   too, is as slow: over copy_rows the column item order's first sample cost 6.7 times the best
   so far or more in 9 of 10 cold launches (median 9.3), the walk's a median of 9.9, and its
   stretched looks took 2-8 ms of analyses limited to 3-10. Over copy_cols and transpose, where
   the walk wins, the column item order cost 0.5-2.1 and 0.8-3.0 times the best; a glance of
   80 workgroups at 4.3 took transpose's walk out in 1 of 24 cold launches
   (bench/results/walk-far-2026-11-29/). */
static void drop_walk_if_far(axis_run *a, size_t c)
{
    const gt_candidate *col = &a->r->candidates[c];
    const gt_sample *look = col->nsamples == 1 ? last_look(col) : NULL; /* its first sample */
    if (col->schedule.item.kind != GT_ORDER_COLUMN || !look ||
        !gt_cost_hopeless(a->r, look->cost / (WALK_FAR / GT_TUNE_HOPELESS)))
        return;
    for (size_t i = 0; i < a->n; i++) {
        gt_candidate *walk = &a->r->candidates[a->listed[i]];
        gt_schedule twin = walk->schedule;
        twin.group = col->schedule.group;
        if (strncmp(walk->style, "walk=", 5) == 0 && walk->nsamples == 0 && gt_schedule_equal(&twin, &col->schedule))
            walk->eliminated = true;
    }
}

/* The axis has had its samples: the slots it began with, or its share of what it spent and
   what is left now (rounded up), whichever is fewer. The time limit falls as faster candidates
   turn up (it is the budget's share of the launch at the best speed seen), so slots counted
   when only the slow default's speed was known outlast the limit: copy_rows' assignment axis,
   counted before block's look at a quarter of the default's cost, left the span axis after it
   no sample in 3 of 6 of gridtuned's cold launches, and 16 of 120 in-process ones picked no
   span; none of 120 with the share counted again (bench/results/axis-share-2026-11-26/). */
static bool axis_spent(const axis_run *a, size_t spent)
{
    size_t now = (size_t)ceil(a->share * (double)(spent + gt_sampler_slots_left(a->s)));
    return spent >= a->slots || spent >= now;
}

/* An incumbent measured on an earlier axis takes a round that does not rotate (an axis's
   first, its looks) after the others. First, it spent the round's first slot, and where the
   time limit leaves an axis one or two slots, that was all of them: over transpose the column
   walk, a stretched candidate, took a sample of 0.9-1.0 ms first on the span axis and again on
   the group axis, and 6 of 8 cold launches ended with no look at a span
   (bench/results/span-columns-2026-11-29/). */
static bool incumbent_goes_last(const axis_run *a, const size_t *list, size_t n, bool rotate)
{
    if (rotate || gt_candidate_samples_used(&a->r->candidates[a->incumbent]) == 0)
        return false;
    for (size_t j = 0; j < n; j++)
        if (list[j] == a->incumbent)
            return true;
    return false;
}

/* One round: a sample of each of the first n candidates of list still in the race, starting at
   an offset that rotates with the round when asked, so that no candidate always runs first.
   Returns -ENOSPC when the budget ran out. */
static int run_round(axis_run *a, const size_t *list, size_t n, bool rotate, size_t *spent)
{
    unsigned round = gt_sampler_next_round(a->s);
    bool last = incumbent_goes_last(a, list, n, rotate);
    for (size_t j = 0; j < n + last; j++) {
        size_t c = j == n ? a->incumbent : list[rotate ? (j + round) % n : j];
        if ((last && j < n && c == a->incumbent) || a->r->candidates[c].eliminated)
            continue;
        if (axis_spent(a, *spent))
            return -ENOSPC;
        int rc = gt_sampler_run(a->s, c, round, false, a->err, a->errlen);
        if (rc < 0)
            return rc;
        *spent += (size_t)rc; /* re-measures come out of this axis's share, not the next axes' */
        drop_if_hopeless(a, c);
        drop_walk_if_far(a, c);
    }
    return 0;
}

/* Moves the field's eliminated candidates behind the first n others; returns how many of the
   first n are still in the race. Stable, so the ranking holds. */
static size_t drop_eliminated(axis_run *a, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = a->field[i];
        if (a->r->candidates[c].eliminated)
            continue;
        memmove(&a->field[kept + 1], &a->field[kept], (i - kept) * sizeof *a->field);
        a->field[kept++] = c;
    }
    return kept;
}

/* Successive halving: each stage gives every survivor an equal share of the stage's samples,
   then the worse half is dropped. Stages get equal shares of the axis's samples. */
static int race(axis_run *a)
{
    size_t alive = a->n, spent = 0;
    unsigned stages = 1;
    while ((1u << stages) < a->n)
        stages++;
    for (unsigned stage = 0; alive > 0; stage++) {
        size_t left = spent < a->slots ? a->slots - spent : 0; /* re-measures may overrun a little */
        size_t stage_slots = left / (stages > stage ? stages - stage : 1);
        size_t per = stage_slots / alive ? stage_slots / alive : 1;
        int rc = 0;
        for (size_t k = 0; k < per && rc == 0; k++)
            rc = run_round(a, a->field, alive, stage > 0 || k > 0, &spent); /* looks: styles first */
        rank(a, alive);
        alive = drop_eliminated(a, alive);
        if (rc == -ENOSPC)
            return 0;
        if (rc < 0)
            return rc;
        if (alive <= 1 || clear_winner(a, alive) || flat(a, alive))
            return 0;
        size_t keep = (alive + 1) / 2;
        for (size_t i = keep; i < alive; i++)
            a->r->candidates[a->field[i]].eliminated = true;
        alive = keep;
    }
    return 0;
}

/* The seed's loop: every style with every parameter in turn, round after round, until the
   axis's samples are spent or, after min_samples rounds, its winner is clear or it is flat. */
static int nested(axis_run *a)
{
    size_t spent = 0;
    size_t rounds = a->slots / a->n ? a->slots / a->n : 1;
    for (size_t k = 0; k < rounds; k++) {
        int rc = run_round(a, a->listed, a->n, false, &spent);
        rank(a, a->n);
        drop_eliminated(a, a->n);
        if (rc == -ENOSPC)
            break;
        if (rc < 0)
            return rc;
        if (k + 1 >= a->cfg->min_samples && (clear_winner(a, a->n) || flat(a, a->n)))
            break;
    }
    return 0;
}

/* A candidate of the axis other than the incumbent had a sample: the time limit or the
   budget had not ended the analysis before the axis. One that ends within an axis leaves it
   explored: its looks went to each style's first setting first (axis_field). */
static bool reached(const axis_run *a)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->listed[i] != a->incumbent && a->r->candidates[a->listed[i]].nsamples > 0)
            return true;
    return false;
}

/* The candidates of an axis around the incumbent, as indices into r->candidates. */
static int axis_field(axis_run *a, gt_axis axis)
{
    gt_space_entry *entries;
    size_t n;
    /* Spans are bounded by what a sample at the incumbent's speed holds: the default's is far
       smaller where the default is slow (copy_rows: 1289 workgroups, the incumbent's 2300). */
    uint64_t sample_groups = axis == GT_AXIS_SPAN ? gt_sampler_groups_of(a->s, a->incumbent)
                                                  : gt_sampler_sample_groups(a->s);
    int rc = gt_space_axis(&a->cfg->space, axis, &a->r->candidates[a->incumbent].schedule,
                           gt_sampler_item_shape(a->s), gt_sampler_grid(a->s), sample_groups,
                           gt_sampler_workers(a->s), &entries, &n);
    if (rc < 0)
        return rc;
    a->listed = calloc(n ? n : 1, sizeof *a->listed);
    a->field = calloc(n ? n : 1, sizeof *a->field);
    /* Stretched: a candidate that moves the group order (every one of the group axis but the
       incumbent, which is found, not added). A copy: adding candidates may move them. */
    const gt_order group = a->r->candidates[a->incumbent].schedule.group;
    for (size_t i = 0; a->listed && a->field && i < n && rc == 0; i++) {
        bool stretched = !gt_order_equal(&entries[i].schedule.group, &group);
        rc = gt_sampler_candidate(a->s, &entries[i], (unsigned)axis, stretched, &a->listed[i]);
    }
    /* The race's field starts with each style's first setting, then the other settings: its
       first round looks in that order, so a round the budget cuts short has seen every style. */
    size_t k = 0;
    for (int pass = 0; a->listed && a->field && rc == 0 && pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((i == 0 || strcmp(entries[i].style, entries[i - 1].style) != 0) == (pass == 0))
                a->field[k++] = a->listed[i];
    free(entries);
    a->n = n;
    a->r->candidates[a->incumbent].eliminated = false; /* it defends on every axis */
    return !a->listed || !a->field ? -ENOMEM : rc;
}

static size_t axis_size(const gt_tune_config *cfg, gt_sampler *s, gt_axis axis)
{
    gt_space_entry *entries;
    size_t n = 0;
    if (gt_space_axis(&cfg->space, axis, &gt_schedule_default, gt_sampler_item_shape(s), gt_sampler_grid(s),
                      gt_sampler_sample_groups(s), gt_sampler_workers(s), &entries, &n) < 0)
        return 1;
    free(entries);
    return n;
}

/* The decision and its reason; `lost` is the pick that did not beat candidate 0 in the end
   (keep_start_unless_beaten), SIZE_MAX when none. */
static void decide(const gt_tune_config *cfg, gt_tune_result *r, size_t incumbent, size_t lost)
{
    const gt_candidate *def = &r->candidates[0], *win = &r->candidates[incumbent];
    r->winner = win->schedule;
    size_t samples = gt_tune_samples_used(r);
    char disturbed[64] = "";
    if (r->disturbed_samples && r->steady_contention)
        snprintf(disturbed, sizeof disturbed, "; %u disturbed by steady contention, counted", r->disturbed_samples);
    else if (r->disturbed_samples)
        snprintf(disturbed, sizeof disturbed, "; %u more disturbed by other tasks", r->disturbed_samples);
    /* A resumed analysis starts from the wisdom's winner; its gain over the default is tune.c's. */
    const char *analysis = r->resumed ? "the resumed analysis" : "analysis";
    const char *start = r->resumed ? "the wisdom's winner" : "the default";
    if (incumbent == 0) {
        r->source = r->resumed ? GT_SOURCE_WISDOM : GT_SOURCE_DEFAULT;
        r->estimated_gain = isnan(def->median) ? NAN : 0.0;
        char pick[GT_SCHEDULE_TEXT_MAX];
        if (lost != SIZE_MAX) {
            gt_schedule_format(&r->candidates[lost].schedule, pick, sizeof pick);
            snprintf(r->reason, sizeof r->reason,
                     "%s's pick %.80s ended at %.3g %s, not %.0f%% below %s's %.3g, which stays (%zu candidates, "
                     "%zu samples%s)",
                     analysis, pick, r->candidates[lost].median, gt_metric_unit(r->metric), cfg->min_gain * 100,
                     start, def->median, r->ncandidates, samples, disturbed);
        } else {
            snprintf(r->reason, sizeof r->reason,
                     "%s found no candidate that beats %s by %.0f%% (%zu candidates, %zu samples%s)", analysis, start,
                     cfg->min_gain * 100, r->ncandidates, samples, disturbed);
        }
        return;
    }
    r->source = GT_SOURCE_ANALYSIS;
    r->estimated_gain = def->median / win->median - 1;
    /* The comparison that made it win was against the schedule it varied, on one axis; the
       default's median comes from other rounds, so the two can disagree on a noisy machine. */
    snprintf(r->reason, sizeof r->reason,
             "won %s with a median cost of %.3g %s against %s's %.3g (%zu candidates, %zu samples%s)", analysis,
             win->median, gt_metric_unit(r->metric), start, def->median, r->ncandidates, samples, disturbed);
}

/* The analysis ends away from where it started (candidate 0: the default, or the wisdom's
   winner it resumes from) only when its pick's median beats candidate 0's by the minimum gain,
   the rule every axis applies to its own incumbent. Each step of the way beat the incumbent
   of its axis, but medians gathered later, on other axes and in the confirmation (in one
   copy_cols analysis block's four confirming samples cost 2.4 times its look), can end up
   above candidate 0's: copy_cols' resumed analyses "won" with 0.67-0.98 ns per work-item
   against the wisdom's winner's 0.42-0.78 in 5 of 10 second launches, and such picks ran
   second launches at up to 2.2 times the first (bench/results/keep-start-2026-11-27/). */
static size_t keep_start_unless_beaten(const gt_tune_config *cfg, const gt_tune_result *r, size_t incumbent)
{
    double start = r->candidates[0].median, pick = r->candidates[incumbent].median;
    return incumbent != 0 && start > 0 && !(pick * (1 + cfg->min_gain) < start) ? 0 : incumbent;
}

/* The best candidate other than the incumbent, by median; SIZE_MAX when none was measured. */
static size_t best_challenger(const gt_tune_result *r, size_t incumbent)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < r->ncandidates; i++) {
        const gt_candidate *c = &r->candidates[i];
        if (i != incumbent && !c->eliminated && !isnan(c->median) &&
            (best == SIZE_MAX || c->median < r->candidates[best].median))
            best = i;
    }
    return best;
}

/* The used confirming costs of a candidate, into out (room for all its samples); returns how many. */
static size_t confirming_costs(const gt_candidate *c, double *out)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nsamples; k++)
        if (c->samples[k].kind == GT_SAMPLE_CONFIRM && c->samples[k].used)
            out[n++] = c->samples[k].cost;
    return n;
}

/* The rank test of the challenger's confirming costs against the incumbent's, each side completed
   with the samples it is still owed at the best they could bring the challenger: its own below
   every cost (distinct negatives), the incumbent's above every cost (distinct huge ones). With
   nothing owed, it is the test on the costs as they are. */
static int confirming_test(const gt_tune_config *cfg, const gt_tune_result *r, size_t incumbent, size_t challenger,
                           const unsigned owed[2], gt_rank_test *out)
{
    const gt_candidate *inc = &r->candidates[incumbent], *ch = &r->candidates[challenger];
    double *a = malloc((ch->nsamples + inc->nsamples + owed[0] + owed[1] + 1) * sizeof *a);
    if (!a)
        return -ENOMEM;
    size_t na = confirming_costs(ch, a);
    for (unsigned k = 0; k < owed[0]; k++)
        a[na++] = -1.0 - k;
    size_t nb = confirming_costs(inc, a + na);
    for (unsigned k = 0; k < owed[1]; k++)
        a[na + nb++] = 1e300 * (k + 1);
    gt_rank_test_less(a, na, a + na, nb, cfg->min_gain, out);
    free(a);
    return 0;
}

/* The incumbent and its best challenger, measured again in pairs on fresh stretches (which
   one runs first alternates), and compared by the rank test: the challenger takes over only
   when its costs are lower by the minimum gain. The pairs stop once the challenger is out of
   reach: even the best its owed samples could bring it leaves p at or above the level, and
   samples only add pairs it can lose, so the full test would keep the incumbent too (barring
   exact ties). In the cold launches of bench/results/confirm-reach-2026-11-27/ it was out of
   reach after three of the eight samples in most, which saves about 60% of the confirmation.
   A best challenger the race would call hopeless (gt_cost_hopeless: above GT_TUNE_HOPELESS
   times the best median, the incumbent's, since the challenger is the best of the rest) has
   none: the race drops such a candidate after its look, and one met before a far faster
   incumbent turned up (copy_cols' column items at 2.8 ns per work-item, the column walk's
   0.41) cost the confirmation 0.5-0.6 ms of a 3.9 ms analysis
   (bench/results/assign-last-2026-11-29/). */
static int confirm(const gt_tune_config *cfg, gt_sampler *s, gt_tune_result *r, size_t *incumbent, char *err,
                   size_t errlen)
{
    gt_confirmation *cf = &r->confirmation;
    size_t challenger = best_challenger(r, *incumbent);
    if (challenger == SIZE_MAX || gt_cost_hopeless(r, r->candidates[challenger].median))
        return 0;
    *cf = (gt_confirmation){.ran = true, .incumbent = *incumbent, .challenger = challenger};
    unsigned owed[2] = {CONFIRM_PAIRS, CONFIRM_PAIRS}; /* the challenger's, the incumbent's */
    for (unsigned k = 0; k < CONFIRM_PAIRS && !cf->out_of_reach; k++) {
        unsigned round = gt_sampler_next_round(s);
        size_t pair[2] = {k % 2 ? challenger : *incumbent, k % 2 ? *incumbent : challenger};
        for (int j = 0; j < 2 && !cf->out_of_reach; j++) {
            int rc = gt_sampler_run(s, pair[j], round, true, err, errlen);
            if (rc == -ENOSPC)
                goto test;
            if (rc < 0)
                return rc;
            owed[pair[j] == challenger ? 0 : 1]--;
            gt_rank_test best;
            rc = confirming_test(cfg, r, *incumbent, challenger, owed, &best);
            if (rc < 0)
                return rc;
            cf->out_of_reach = (owed[0] || owed[1]) && !(best.p < GT_RANK_TEST_ALPHA);
        }
    }
test:;
    static const unsigned none[2] = {0, 0};
    int rc = confirming_test(cfg, r, *incumbent, challenger, none, &cf->test);
    if (rc < 0)
        return rc;
    cf->replaced = cf->test.p < GT_RANK_TEST_ALPHA;
    if (cf->replaced)
        *incumbent = challenger;
    return 0;
}

/* The axis's pick: of the candidates whose medians tie with the best one (within the minimum
   gain), the first listed (the incumbent, then each style's settings, simplest first). A tie is
   what the samples cannot tell apart, and a fixed choice among equals keeps cold launches from
   scattering over them: same pick within 3% of the oracle in 4 of 7 benchmarks against 2 and 3
   of 7 (copy_rows 8/10 against 4-5, integral_cols 10/10 against 6-7;
   bench/results/axis-ties-2026-11-27/). The span axis keeps the best-looking span: spans tie in
   samples far more often than on the whole launch, and its first listed, the row-wide span, is
   3.3x the oracle on copy_cols under the column group order (cold 1.71x -> 3.51x with it). */
static size_t axis_leader(const axis_run *a, gt_axis axis)
{
    if (axis == GT_AXIS_SPAN)
        return a->field[0];
    double best = median_of(a, a->field[0]);
    for (size_t i = 0; i < a->n; i++) {
        size_t c = a->listed[i];
        double m = median_of(a, c);
        if (!a->r->candidates[c].eliminated && m <= best * (1 + a->cfg->min_gain))
            return c;
    }
    return a->field[0];
}

/* The axes in the order they are explored. The span axis comes before the group axis, whose
   longer samples would otherwise spend the time a row-wide span needs (copy_rows' cold
   launches 1.6x slower); checks_after_a_move makes up for it. The assignment comes last, under
   the orders and the span chosen: a chunk chosen under the default's orders may lose once they
   moved (small chunks that were harmless become false sharing between workers on neighbouring
   workgroups), and its looks, sized by the default's speed, run at the orders' speed. First, it
   took 0.8-2.3 ms of copy_cols' and transpose's 4-7 ms analyses at the slow default's speed;
   last, their analyses took a median of 2.1 and 3.9 ms against 3.8 and 4.7
   (bench/results/assign-last-2026-11-29/). */
static size_t plan_passes(const gt_tune_config *cfg, gt_sampler *s, gt_axis passes[], size_t sizes[])
{
    static const gt_axis order[] = {GT_AXIS_ITEM, GT_AXIS_SPAN, GT_AXIS_GROUP, GT_AXIS_ASSIGN};
    size_t n = 0;
    for (int k = 0; k < GT_AXIS_COUNT; k++) {
        size_t size = cfg->space.axes & (1u << order[k]) ? axis_size(cfg, s, order[k]) : 0;
        if (size > 1) {
            passes[n] = order[k];
            sizes[n++] = size;
        }
    }
    return n;
}

/* One look at candidate e, a variation of the incumbent after the group or the span axis
   moved it, owed past the time limit (within the workgroup budget): a look of that axis (the
   group axis's as long as its samples). Being one look with no round after it, it takes over
   only when it beats the incumbent by CHECK_GAIN; a smaller gain makes it the confirmation's
   challenger at most, whose pairs decide. Nothing when e had samples already. */
static int owed_look(axis_run *a, const gt_space_entry *e, gt_axis axis)
{
    size_t c;
    int rc = gt_sampler_candidate(a->s, e, (unsigned)axis, axis == GT_AXIS_GROUP, &c);
    if (rc < 0 || a->r->candidates[c].nsamples > 0)
        return rc;
    gt_sampler_owe(a->s, true);
    rc = gt_sampler_run(a->s, c, gt_sampler_next_round(a->s), false, a->err, a->errlen);
    gt_sampler_owe(a->s, false);
    if (rc == -ENOSPC)
        return 0;
    if (rc < 0)
        return rc;
    drop_if_hopeless(a, c);
    if (!a->r->candidates[c].eliminated && beats_by(a, c, fmax(CHECK_GAIN, a->cfg->min_gain)))
        a->incumbent = c;
    return 0;
}

/* An owed look of that axis at the incumbent with item order `item`. */
static int item_check(axis_run *a, const gt_order *item, gt_axis axis)
{
    gt_space_entry check = {.schedule = a->r->candidates[a->incumbent].schedule};
    check.schedule.item = *item;
    snprintf(check.style, sizeof check.style, "item=%s", gt_order_kind_name(item->kind));
    return owed_look(a, &check, axis);
}

/* The span and the item order were chosen under the order before the group axis moved it,
   where they may tie; two checks look at the new order with what the old one could not tell
   apart. The span check: a span of 1. copy_cols' spans of 8-64, chosen under the linear
   order, went with the column order to launches 1.1-1.4x slower than its span of 1, which no
   sample had looked at (the time limit falls with the column order's first look, and ended
   every analysis there). The item check: the best other kind of item order the item axis
   measured. copy_cols' tiled item orders tie with the column one under the linear order
   (2.07-2.23 ns per item against 2.23), and about one cold launch in 12 took a tiled one to
   the column order, where it costs 3-4x the column item order. */
static int checks_after_a_move(axis_run *a, const gt_order *group_before)
{
    const gt_schedule held = a->r->candidates[a->incumbent].schedule;
    if (gt_order_equal(&held.group, group_before))
        return 0;
    if ((a->cfg->space.axes & (1u << GT_AXIS_SPAN)) && held.span > 1) {
        gt_space_entry check = {.schedule = held, .style = "span=series"}; /* as the span axis names it */
        check.schedule.span = 1;
        int rc = owed_look(a, &check, GT_AXIS_GROUP);
        if (rc < 0)
            return rc;
    }
    const gt_schedule now = a->r->candidates[a->incumbent].schedule;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < a->r->ncandidates; i++) {
        const gt_candidate *c = &a->r->candidates[i];
        if (c->phase == GT_AXIS_ITEM && c->schedule.item.kind != now.item.kind && !isnan(c->median) &&
            (best == SIZE_MAX || c->median < a->r->candidates[best].median))
            best = i;
    }
    if (best == SIZE_MAX)
        return 0;
    return item_check(a, &a->r->candidates[best].schedule.item, GT_AXIS_GROUP);
}

/* The widest span the span axis listed (0 when it listed none): the row-wide one where no
   other group order narrows it (space.c). */
static uint32_t widest_span_listed(const axis_run *a)
{
    uint32_t widest = 0;
    for (size_t i = 0; i < a->r->ncandidates; i++) {
        const gt_candidate *c = &a->r->candidates[i];
        if (c->phase == GT_AXIS_SPAN && c->schedule.span > widest)
            widest = c->schedule.span;
    }
    return widest;
}

/* The item order was chosen at the span the analysis started from, where the linear order of a
   workgroup's items walks its rows in short pieces; a span makes them one long row. When the
   span axis moved the span and the item axis had moved the item order, two checks look at the
   start's item order: with the new span, and with the widest span, since the new span was
   the best under the other item order, which the widest need not be under the start's. In 1
   of 5 series of copy_rows, tiled:8x8 items won at a span of 1 and the span axis then took
   128: its launches ran at 2x the oracle's best (linear items, a span of 1024), and
   refinement, whose item contender would have been the linear order at a span of 1 (2.5
   times the winner in the samples, beyond the line at which a contender is not tried),
   settled there (bench/results/tune-2026-11-29-amd-3f7155f.txt). With the first check alone,
   13 of 14 cold launches of copy_rows that took that path in one batch of 45 still ended with
   linear items at a span of 16-512 chosen under tiled ones (spans of 64-512 cost the whole
   launch 1.5-2.1x the row-wide span's); with the second, 13 of 13 ended at the row span
   (bench/results/item-check-widest-2026-11-29/). */
static int item_check_after_a_span(axis_run *a, uint32_t span_before)
{
    const gt_schedule held = a->r->candidates[a->incumbent].schedule;
    const gt_order start = a->r->candidates[0].schedule.item;
    if (held.span == span_before || gt_order_equal(&held.item, &start))
        return 0;
    int rc = item_check(a, &start, GT_AXIS_SPAN);
    uint32_t widest = widest_span_listed(a);
    if (rc < 0 || widest <= held.span)
        return rc;
    gt_space_entry wide = {.schedule = held, .style = "span=series"}; /* as the span axis names it */
    wide.schedule.item = start;
    wide.schedule.span = widest;
    return owed_look(a, &wide, GT_AXIS_SPAN);
}

/* Spans whose looks lie within this share of the incumbent's get a second sample. Looks at
   copy_rows' spans of 512 cost 1.12-1.63x (quartiles) of the row-wide span's look in the same
   analysis, where its whole launch costs 1.48x. */
#define CLOSE_SPANS 0.5

/* Candidate i is another span of the incumbent's orders (held), measured on the span axis and
   still in the race. */
static bool span_rival(const axis_run *a, size_t i, const gt_schedule *held)
{
    const gt_candidate *c = &a->r->candidates[i];
    gt_schedule same = c->schedule;
    same.span = held->span;
    return i != a->incumbent && c->phase == GT_AXIS_SPAN && !c->eliminated && !isnan(c->median) &&
           gt_schedule_equal(&same, held);
}

/* Candidate i is the incumbent or a rival span within line, and has one sample at most. */
static bool close_and_sampled_once(const axis_run *a, size_t i, const gt_schedule *held, double line)
{
    bool close = i == a->incumbent || (span_rival(a, i, held) && median_of(a, i) <= line);
    return close && gt_candidate_samples_used(&a->r->candidates[i]) < 2;
}

/* The span axis's race often ends with its looks (the time limit falls as faster spans turn
   up), so one look decides between spans whose whole launches differ by half: copy_rows' span
   of 512 costs the whole launch 1.48x the row-wide one, and a look at it of 0.175 ns per item
   against the row's 0.200 took 4 of 40 cold launches there, its later samples 0.29-0.47
   (bench/results/span-second-look-2026-11-29/). So every span of the incumbent's orders whose
   median lies within CLOSE_SPANS of the incumbent's, and the incumbent, get a second sample
   when they have one (owed past the time limit, as the checks are), and the best of them takes
   over if its median then beats the incumbent's. */
static int second_looks_at_close_spans(axis_run *a)
{
    const gt_schedule held = a->r->candidates[a->incumbent].schedule;
    const double line = median_of(a, a->incumbent) * (1 + CLOSE_SPANS);
    size_t once = 0; /* close rivals with a single sample */
    for (size_t i = 0; i < a->r->ncandidates; i++)
        once += i != a->incumbent && close_and_sampled_once(a, i, &held, line);
    for (size_t i = 0; once > 0 && i < a->r->ncandidates; i++) {
        if (!close_and_sampled_once(a, i, &held, line))
            continue;
        gt_sampler_owe(a->s, true);
        int rc = gt_sampler_run(a->s, i, gt_sampler_next_round(a->s), false, a->err, a->errlen);
        gt_sampler_owe(a->s, false);
        if (rc == -ENOSPC)
            return 0;
        if (rc < 0)
            return rc;
    }
    size_t best = a->incumbent;
    for (size_t i = 0; i < a->r->ncandidates; i++)
        if (span_rival(a, i, &held) && median_of(a, i) < median_of(a, best))
            best = i;
    if (beats_incumbent(a, best))
        a->incumbent = best;
    return 0;
}

int gt_strategy_run(const gt_tune_config *cfg, gt_sampler *s, gt_tune_result *r, char *err, size_t errlen)
{
    gt_axis passes[GT_AXIS_COUNT];
    size_t sizes[GT_AXIS_COUNT], remaining = 0;
    size_t npasses = plan_passes(cfg, s, passes, sizes);
    for (size_t p = 0; p < npasses; p++)
        remaining += sizes[p];
    gt_sampler_reserve(s, CONFIRM_SHARE, 2 * CONFIRM_PAIRS);
    axis_run a = {.cfg = cfg, .s = s, .r = r, .incumbent = 0, .err = err, .errlen = errlen};
    for (size_t p = 0; p < npasses; p++) {
        gt_order group_before = r->candidates[a.incumbent].schedule.group;
        uint32_t span_before = r->candidates[a.incumbent].schedule.span;
        int rc = axis_field(&a, passes[p]);
        /* Each pass gets the share of the remaining samples its size asks for. */
        a.share = remaining ? (double)sizes[p] / (double)remaining : 0;
        a.slots = remaining ? gt_sampler_slots_left(s) * sizes[p] / remaining : 0;
        remaining -= sizes[p];
        if (rc == 0 && a.n > 1 && a.slots > 0)
            rc = cfg->strategy == GT_STRATEGY_NESTED ? nested(&a) : race(&a);
        if (rc == 0 && a.n > 1 && !reached(&a))
            r->unexplored |= 1u << passes[p];
        if (rc == 0 && a.n > 1) {
            size_t lead = axis_leader(&a, passes[p]);
            if (beats_incumbent(&a, lead))
                a.incumbent = lead;
        }
        free(a.listed);
        free(a.field);
        a.listed = a.field = NULL;
        if (rc == 0 && passes[p] == GT_AXIS_GROUP)
            rc = checks_after_a_move(&a, &group_before);
        if (rc == 0 && passes[p] == GT_AXIS_SPAN)
            rc = second_looks_at_close_spans(&a);
        if (rc == 0 && passes[p] == GT_AXIS_SPAN)
            rc = item_check_after_a_span(&a, span_before);
        if (rc < 0) {
            if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory during the analysis");
            return rc;
        }
    }
    int rc = confirm(cfg, s, r, &a.incumbent, err, errlen);
    if (rc < 0) {
        if (rc == -ENOMEM)
            snprintf(err, errlen, "out of memory during the analysis");
        return rc;
    }
    size_t kept = keep_start_unless_beaten(cfg, r, a.incumbent);
    decide(cfg, r, kept, kept != a.incumbent ? a.incumbent : SIZE_MAX);
    return 0;
}
