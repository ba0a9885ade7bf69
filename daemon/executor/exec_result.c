/* exec_result.c: a tuner result across the executor's channel, and its checks (exec_result.h). */
#include "exec_result.h"

#include "tuner/refine.h"
#include "tuner/sentence.h"
#include "tuner/wisdom.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t gt_exec_result_write(const gt_tune_result *r, void *buf, size_t cap)
{
    size_t need = sizeof *r + r->ncandidates * sizeof *r->candidates;
    for (size_t i = 0; i < r->ncandidates; i++)
        need += r->candidates[i].nsamples * sizeof *r->candidates[i].samples;
    if (need > cap || r->ncandidates > GT_EXEC_RESULT_MAX_CANDIDATES)
        return 0;
    unsigned char *p = buf;
    memcpy(p, r, sizeof *r);
    p += sizeof *r;
    if (r->ncandidates)
        memcpy(p, r->candidates, r->ncandidates * sizeof *r->candidates);
    p += r->ncandidates * sizeof *r->candidates;
    for (size_t i = 0; i < r->ncandidates; i++) {
        size_t n = r->candidates[i].nsamples * sizeof *r->candidates[i].samples;
        if (n)
            memcpy(p, r->candidates[i].samples, n);
        p += n;
    }
    return need;
}

/* A bool's byte may hold anything: it is made 0 or 1 through its bytes, never read as a bool
 * before. */
static void fix_bool(bool *b)
{
    unsigned char byte;
    memcpy(&byte, b, 1);
    byte = byte != 0;
    memcpy(b, &byte, 1);
}

static void terminate(char *s, size_t size)
{
    s[size - 1] = '\0';
}

/* What formatting the schedule reads must be in range: the orders' and the assignment's kinds
 * (gt_order_format refuses a bad order kind; gt_assign_format would index past its names). */
static bool schedule_ok(const gt_schedule *s)
{
    char text[64];
    return gt_order_format(&s->group, text, sizeof text) >= 0 && gt_order_format(&s->item, text, sizeof text) >= 0 &&
           (unsigned)s->assign.kind <= GT_ASSIGN_STEALING;
}

static int check_sample(gt_sample *s)
{
    fix_bool(&s->used);
    fix_bool(&s->disturbed);
    fix_bool(&s->probed);
    return (unsigned)s->kind <= GT_SAMPLE_WARM_UP ? 0 : -1;
}

static int check_candidate(gt_candidate *c)
{
    fix_bool(&c->eliminated);
    fix_bool(&c->stretched);
    terminate(c->style, sizeof c->style);
    if (!schedule_ok(&c->schedule) || c->phase >= GT_AXIS_COUNT)
        return -1;
    for (size_t i = 0; i < c->nsamples; i++)
        if (check_sample(&c->samples[i]) != 0)
            return -1;
    return 0;
}

static int check_result(gt_tune_result *r)
{
    fix_bool(&r->wisdom_changed);
    fix_bool(&r->steady_contention);
    fix_bool(&r->remainder_probed);
    fix_bool(&r->resumed);
    fix_bool(&r->confirmation.ran);
    fix_bool(&r->confirmation.replaced);
    fix_bool(&r->confirmation.out_of_reach);
    fix_bool(&r->confirmation.test.exact);
    fix_bool(&r->refine.ran);
    fix_bool(&r->refine.settled_now);
    for (unsigned i = 0; i < GT_REFINE_PER_LAUNCH; i++)
        fix_bool(&r->refine.shares[i].cut_short);
    terminate(r->reason, sizeof r->reason);
    terminate(r->metric_note, sizeof r->metric_note);
    terminate(r->wisdom_note, sizeof r->wisdom_note);
    if ((unsigned)r->source > GT_SOURCE_DEFAULT || (unsigned)r->metric > GT_METRIC_ENERGY || !schedule_ok(&r->winner) ||
        r->unexplored >> GT_AXIS_COUNT)
        return -1;
    if (r->confirmation.ran &&
        (r->confirmation.incumbent >= r->ncandidates || r->confirmation.challenger >= r->ncandidates))
        return -1;
    if (r->refine.state < 0 || r->refine.state >= GT_REFINE_STATES || r->refine.event < 0 ||
        r->refine.event > GT_REFINE_EVENT_REOPENED || r->refine.nshares > GT_REFINE_PER_LAUNCH)
        return -1;
    for (unsigned i = 0; i < r->refine.nshares; i++)
        if (!schedule_ok(&r->refine.shares[i].contender) || r->refine.shares[i].event < 0 ||
            r->refine.shares[i].event > GT_REFINE_EVENT_DROPPED)
            return -1;
    for (size_t i = 0; i < r->ncandidates; i++)
        if (check_candidate(&r->candidates[i]) != 0)
            return -1;
    return 0;
}

int gt_exec_result_read(const void *buf, size_t len, gt_tune_result *out, char *err, size_t errlen)
{
    const unsigned char *p = buf, *end = p + len;
    memset(out, 0, sizeof *out);
    if (len < sizeof *out)
        return gt_sentence_fail(err, errlen, -EPROTO, "the executor's result has %zu bytes, fewer than one result", len);
    gt_tune_result r;
    memcpy(&r, p, sizeof r);
    p += sizeof r;
    size_t n = r.ncandidates;
    r.candidates = NULL;
    r.ncandidates = 0;
    if (n > GT_EXEC_RESULT_MAX_CANDIDATES || n > (size_t)(end - p) / sizeof(gt_candidate))
        return gt_sentence_fail(err, errlen, -EPROTO, "the executor's result claims %zu candidates", n);
    gt_candidate *c = calloc(n ? n : 1, sizeof *c);
    if (!c)
        return gt_sentence_fail(err, errlen, -EPROTO, "out of memory reading the executor's result");
    memcpy(c, p, n * sizeof *c);
    p += n * sizeof *c;
    size_t *counts = calloc(n ? n : 1, sizeof *counts);
    for (size_t i = 0; counts && i < n; i++) {
        counts[i] = c[i].nsamples;
        c[i].samples = NULL; /* never the executor's pointers */
        c[i].nsamples = 0;
    }
    r.candidates = c;
    r.ncandidates = n; /* from here gt_tune_result_free frees what was read */
    int rc = counts ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (counts[i] > (size_t)(end - p) / sizeof(gt_sample) || !(c[i].samples = malloc((counts[i] ? counts[i] : 1) *
                                                                                         sizeof(gt_sample)))) {
            rc = -1;
            break;
        }
        memcpy(c[i].samples, p, counts[i] * sizeof(gt_sample));
        c[i].nsamples = counts[i];
        p += counts[i] * sizeof(gt_sample);
    }
    free(counts);
    if (rc == 0 && (p != end || check_result(&r) != 0))
        rc = -1;
    if (rc) {
        gt_tune_result_free(&r);
        return gt_sentence_fail(err, errlen, -EPROTO, "the executor's result does not hold together");
    }
    *out = r;
    return 0;
}
