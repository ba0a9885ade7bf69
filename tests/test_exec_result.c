/* test_exec_result.c: a tuner result across the executor's channel (daemon/executor/
 * exec_result.h). gridtuned reads it as untrusted bytes: every damage a kernel could do to
 * them is refused, and nothing read points into them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/executor/exec_result.h"
#include "tuner/refine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (1u << 16)

static gt_sample samples[2][3];
static gt_candidate candidates[2];

/* A result with two candidates of three samples, a confirmation between them and a refinement. */
static gt_tune_result sample_result(void)
{
    gt_tune_result r = {.source = GT_SOURCE_ANALYSIS, .winner = gt_schedule_default, .metric = GT_METRIC_TIME,
                        .candidates = candidates, .ncandidates = 2, .groups_total = 64, .groups_analysis = 6,
                        .groups_remainder = 58, .estimated_gain = 0.25};
    snprintf(r.reason, sizeof r.reason, "won the analysis");
    for (int c = 0; c < 2; c++) {
        candidates[c] = (gt_candidate){.schedule = gt_schedule_default, .phase = GT_AXIS_ITEM, .samples = samples[c],
                                       .nsamples = 3, .median = 1.5 + c, .min = 1, .max = 2};
        snprintf(candidates[c].style, sizeof candidates[c].style, "item=linear");
        for (int s = 0; s < 3; s++)
            samples[c][s] = (gt_sample){.kind = GT_SAMPLE_SIZED, .groups = 1, .items = 64, .wall_ns = 1000 + s,
                                        .cost = 1.0 + s, .used = true};
    }
    r.candidates[1].schedule.assign = (gt_assign){.kind = GT_ASSIGN_STEALING};
    samples[1][2].kind = GT_SAMPLE_WARM_UP; /* the last kind */
    r.confirmation =
        (gt_confirmation){.ran = true, .incumbent = 0, .challenger = 1, .out_of_reach = true, .test = {.p = 0.5}};
    r.refine = (gt_refine_outcome){.ran = true, .state = GT_REFINE_REFINING, .nshares = 1,
                                   .event = GT_REFINE_EVENT_COMPARED};
    r.refine.shares[0] = (gt_refine_share){.contender = candidates[1].schedule, .p = NAN,
                                           .event = GT_REFINE_EVENT_COMPARED};
    return r;
}

static unsigned char buf[CAP];

static size_t write_sample(void)
{
    gt_tune_result r = sample_result();
    size_t n = gt_exec_result_write(&r, buf, sizeof buf);
    assert_true(n > sizeof r);
    return n;
}

static int read_back(size_t n, gt_tune_result *out)
{
    char err[256];
    int rc = gt_exec_result_read(buf, n, out, err, sizeof err);
    if (rc)
        assert_non_null(strstr(err, "executor's result"));
    return rc;
}

static void test_a_result_reads_back_the_same(void **state)
{
    (void)state;
    size_t n = write_sample();
    gt_tune_result got;
    assert_int_equal(read_back(n, &got), 0);
    gt_tune_result want = sample_result();
    assert_int_equal(got.ncandidates, 2);
    assert_true(got.candidates != want.candidates);
    for (int c = 0; c < 2; c++) {
        assert_true(gt_schedule_equal(&got.candidates[c].schedule, &want.candidates[c].schedule));
        assert_int_equal(got.candidates[c].nsamples, 3);
        assert_true((unsigned char *)got.candidates[c].samples < buf || (unsigned char *)got.candidates[c].samples >= buf + CAP);
        assert_memory_equal(got.candidates[c].samples, samples[c], sizeof samples[c]);
    }
    assert_string_equal(got.reason, "won the analysis");
    assert_int_equal(got.confirmation.challenger, 1);
    assert_true(got.confirmation.out_of_reach);
    assert_int_equal(got.refine.nshares, 1);
    assert_int_equal(got.refine.shares[0].contender.assign.kind, GT_ASSIGN_STEALING);
    gt_tune_result_free(&got);
}

static void test_a_result_that_does_not_fit_is_not_written(void **state)
{
    (void)state;
    gt_tune_result r = sample_result();
    assert_int_equal(gt_exec_result_write(&r, buf, sizeof r + 10), 0);
}

/* Every length short of the whole, and one byte more, is refused. */
static void test_truncated_or_padded_bytes_are_refused(void **state)
{
    (void)state;
    size_t n = write_sample();
    gt_tune_result got;
    for (size_t len = 0; len < n; len += len < sizeof got + 64 ? 1 : 97)
        assert_int_equal(read_back(len, &got), -EPROTO);
    assert_int_equal(read_back(n + 1, &got), -EPROTO);
}

typedef void damage_fn(gt_tune_result *r, gt_candidate *c, gt_sample *s);

static void bad_source(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->source = 99; }
static void bad_metric(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->metric = -1; }
static void bad_winner(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->winner.group.kind = 1000; }
static void bad_assign(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->winner.assign.kind = 77; }
static void bad_index(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->confirmation.challenger = 2; }
static void bad_state(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->refine.state = 3; }
static void bad_event(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->refine.event = 42; }
static void bad_contender(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->refine.shares[0].contender.item.kind = 500; }
static void bad_shares(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->refine.nshares = GT_REFINE_PER_LAUNCH + 1; }
static void bad_share_event(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->refine.shares[0].event = GT_REFINE_EVENT_DRIFTED; }
static void bad_phase(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)r, (void)s; c->phase = GT_AXIS_COUNT; }
static void bad_kind(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)r, (void)c; s->kind = GT_SAMPLE_WARM_UP + 1; }
static void many_candidates(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)c, (void)s; r->ncandidates = SIZE_MAX / 2; }
static void many_samples(gt_tune_result *r, gt_candidate *c, gt_sample *s) { (void)r, (void)s; c->nsamples = 1000000; }

/* Writes the sample result, damages its bytes in place as a kernel could, and reads it. */
static int read_damaged(damage_fn *damage)
{
    size_t n = write_sample();
    gt_tune_result *r = (gt_tune_result *)buf;
    gt_candidate *c = (gt_candidate *)(buf + sizeof *r);
    gt_sample *s = (gt_sample *)(buf + sizeof *r + 2 * sizeof *c);
    damage(r, c, s);
    gt_tune_result got;
    int rc = read_back(n, &got);
    if (rc == 0)
        gt_tune_result_free(&got);
    return rc;
}

static void test_damaged_fields_are_refused(void **state)
{
    (void)state;
    damage_fn *damages[] = {bad_source, bad_metric, bad_winner, bad_assign, bad_index, bad_state,
                            bad_event, bad_contender, bad_shares, bad_share_event, bad_phase, bad_kind,
                            many_candidates, many_samples};
    for (size_t i = 0; i < sizeof damages / sizeof damages[0]; i++)
        if (read_damaged(damages[i]) != -EPROTO)
            fail_msg("damage %zu was not refused", i);
}

/* Bytes that are not 0 or 1 in a bool, and strings without their terminator, are mended,
 * not refused: nothing about them can mislead the report beyond its own figures. */
static void test_bools_and_strings_are_mended(void **state)
{
    (void)state;
    size_t n = write_sample();
    gt_tune_result *r = (gt_tune_result *)buf;
    memset(&r->wisdom_changed, 0x7f, 1);
    memset(r->reason, 'x', sizeof r->reason);
    gt_candidate *c = (gt_candidate *)(buf + sizeof *r);
    memset(c->style, 'y', sizeof c->style);
    memset(&c->stretched, 0x80, 1);
    gt_tune_result got;
    assert_int_equal(read_back(n, &got), 0);
    unsigned char byte;
    memcpy(&byte, &got.wisdom_changed, 1);
    assert_int_equal(byte, 1);
    assert_int_equal(strlen(got.reason), sizeof got.reason - 1);
    assert_int_equal(strlen(got.candidates[0].style), sizeof got.candidates[0].style - 1);
    memcpy(&byte, &got.candidates[0].stretched, 1);
    assert_int_equal(byte, 1);
    gt_tune_result_free(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_result_reads_back_the_same),
        cmocka_unit_test(test_a_result_that_does_not_fit_is_not_written),
        cmocka_unit_test(test_truncated_or_padded_bytes_are_refused),
        cmocka_unit_test(test_damaged_fields_are_refused),
        cmocka_unit_test(test_bools_and_strings_are_mended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
