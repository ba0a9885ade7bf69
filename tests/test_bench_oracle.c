/* test_bench_oracle.c: behaviour of the benchmark drivers' oracle (bench/oracle.c).
 * Adding merges what launches said of a schedule; a cap keeps every kept schedule and the
 * best-analysed others in their order of addition; timing runs every schedule once per round in
 * the rotated order, names the lowest and highest median, and times the three lowest and the
 * kept ones again, whose costs are then those runs' medians. The runs are a fake that hands
 * out set times, so nothing here depends on a clock. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bench/oracle.h"

const char *const say_prog = "test_bench_oracle";

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static gt_schedule parsed(const char *text)
{
    gt_schedule s;
    char err[256];
    assert_int_equal(gt_schedule_parse(text, &s, err, sizeof err), 0);
    return s;
}

static void add(gt_bench_oracle *o, const char *text, bool keep, double analysis)
{
    gt_schedule s = parsed(text);
    assert_int_equal(gt_bench_oracle_add(o, &s, keep, analysis), 0);
}

static void test_add_merges_what_launches_said(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    add(&o, "group=linear,item=linear,assign=dynamic:2", false, 5.0);
    add(&o, "assign=dynamic:2", true, NAN); /* the same schedule, written otherwise */
    add(&o, "group=linear,item=linear,assign=dynamic:2", false, 3.0);
    add(&o, "group=linear,item=linear,assign=dynamic:2", false, 4.0);
    assert_int_equal(gt_bench_oracle_count(&o), 1);
    assert_true(o.entries[0].keep);
    assert_true(o.entries[0].analysis == 3.0);
    assert_string_equal(gt_bench_oracle_text(&o, 0), "group=linear,item=linear,assign=dynamic:2");
    gt_bench_oracle_free(&o);
}

static void test_add_text_refuses_what_does_not_parse(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    assert_int_equal(gt_bench_oracle_add_text(&o, "assign=sideways", true, NAN, "a launch"), -1);
    assert_int_equal(gt_bench_oracle_count(&o), 0);
    assert_int_equal(gt_bench_oracle_add_text(&o, "assign=block", true, NAN, "a launch"), 0);
    assert_int_equal(gt_bench_oracle_find_text(&o, "group=linear,item=linear,assign=block"), 0);
    assert_int_equal(gt_bench_oracle_find_text(&o, "assign=stealing"), -1);
    gt_bench_oracle_free(&o);
}

static void test_cap_keeps_the_kept_and_the_best_analysed_in_order(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    add(&o, "assign=dynamic:1", true, 7.0);  /* the default: kept whatever its analysis */
    add(&o, "assign=dynamic:2", false, 9.0); /* the worst analysed: goes */
    add(&o, "assign=dynamic:4", false, 1.0);
    add(&o, "assign=block", true, NAN); /* a pick */
    add(&o, "assign=dynamic:8", false, NAN); /* not measured: goes first */
    add(&o, "assign=stealing", false, 5.0);
    assert_int_equal(gt_bench_oracle_cap(&o, 4), 0);
    static const char *const left[] = {"group=linear,item=linear,assign=dynamic:1",
                                       "group=linear,item=linear,assign=dynamic:4",
                                       "group=linear,item=linear,assign=block",
                                       "group=linear,item=linear,assign=stealing"};
    assert_int_equal(gt_bench_oracle_count(&o), ARRAY_LEN(left));
    for (size_t i = 0; i < ARRAY_LEN(left); i++)
        assert_string_equal(gt_bench_oracle_text(&o, i), left[i]);
    assert_true(o.entries[0].keep && o.entries[2].keep);
    assert_true(o.entries[1].analysis == 1.0 && o.entries[3].analysis == 5.0);
    assert_int_equal(o.dropped, 2);
    assert_int_equal(gt_bench_oracle_find_text(&o, "assign=stealing"), 3);
    assert_int_equal(gt_bench_oracle_find_text(&o, "assign=dynamic:2"), -1);
    gt_bench_oracle_free(&o);
}

static void test_cap_never_drops_a_kept_schedule(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    add(&o, "assign=dynamic:1", true, NAN);
    add(&o, "assign=dynamic:2", false, 1.0);
    add(&o, "assign=block", true, NAN);
    add(&o, "assign=stealing", true, 2.0);
    assert_int_equal(gt_bench_oracle_cap(&o, 2), 0);
    assert_int_equal(gt_bench_oracle_count(&o), 3);
    assert_int_equal(gt_bench_oracle_find_text(&o, "assign=dynamic:2"), -1);
    assert_int_equal(o.dropped, 1);
    /* a cap the oracle is within leaves it alone */
    assert_int_equal(gt_bench_oracle_cap(&o, 3), 0);
    assert_int_equal(gt_bench_oracle_count(&o), 3);
    assert_int_equal(o.dropped, 1);
    gt_bench_oracle_free(&o);
}

/* The fake run: schedule i takes times[i] ns, plus the round it runs in, and the order of the
 * runs is written down. fail_at: the run (from 1) that fails, 0 for none. */
typedef struct fake {
    uint64_t times[8];
    size_t order[64];
    unsigned runs, fail_at;
} fake;

static int fake_run(void *ctx, const gt_bench_oracle *o, size_t i, uint64_t *ns)
{
    fake *f = ctx;
    assert_true(i < gt_bench_oracle_count(o));
    f->order[f->runs++] = i;
    if (f->runs == f->fail_at)
        return -1;
    *ns = f->times[i] + f->runs;
    return 0;
}

static void four_schedules(gt_bench_oracle *o)
{
    add(o, "assign=dynamic:1", true, NAN);
    add(o, "assign=dynamic:2", false, NAN);
    add(o, "assign=block", false, NAN);
    add(o, "assign=stealing", false, NAN);
}

static void test_time_rotates_the_rounds_and_ranks_by_median(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    four_schedules(&o);
    fake f = {.times = {3000, 1000, 4000, 2000}};
    assert_int_equal(gt_bench_oracle_time(&o, 2, "test", fake_run, &f), 0);
    /* round 2 of 2 starts half-way into the list; then the three lowest medians, lowest first
       (1, 3, 0), two rounds again, the second a third of the way in */
    static const size_t order[] = {0, 1, 2, 3, 2, 3, 0, 1, 1, 3, 0, 3, 0, 1};
    assert_int_equal(f.runs, ARRAY_LEN(order));
    for (size_t k = 0; k < ARRAY_LEN(order); k++)
        assert_int_equal(f.order[k], order[k]);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(o.entries[i].times.n, 2);
    assert_int_equal(o.best, 1);
    assert_int_equal(o.worst, 2);
    /* schedule 1 ran second and eighth: its median is the mean of the two */
    assert_int_equal(o.entries[1].times.median_ns, 1000 + (2 + 8) / 2);
    /* its cost is that of its runs again, the 9th and 14th, which did not choose it */
    assert_int_equal(o.entries[1].retimed.n, 2);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 1), 1000 + (9 + 14) / 2);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 3), 2000 + (10 + 12) / 2);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 0), 3000 + (11 + 13) / 2);
    /* the highest median was not run again: its cost is its median */
    assert_int_equal(o.entries[2].retimed.n, 0);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 2), 4000 + (3 + 5) / 2);
    /* an oracle is timed once */
    assert_int_equal(gt_bench_oracle_time(&o, 2, "test", fake_run, &f), -1);
    gt_bench_oracle_free(&o);
}

/* A kept schedule (the default, a pick) runs again with the three lowest, whatever its median,
   so that every cost the figures use comes from the same rounds; another does not. */
static void test_kept_schedules_are_timed_again_too(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    add(&o, "assign=dynamic:1", true, NAN); /* the highest median, kept */
    add(&o, "assign=dynamic:2", false, NAN);
    add(&o, "assign=block", false, NAN);
    add(&o, "assign=stealing", false, NAN);
    add(&o, "assign=dynamic:4", false, NAN); /* the second highest, not kept */
    fake f = {.times = {5000, 1000, 2000, 3000, 4000}};
    assert_int_equal(gt_bench_oracle_time(&o, 1, "test", fake_run, &f), 0);
    /* one round of all five, then one of the lowest three and the kept one */
    static const size_t order[] = {0, 1, 2, 3, 4, 1, 2, 3, 0};
    assert_int_equal(f.runs, ARRAY_LEN(order));
    for (size_t k = 0; k < ARRAY_LEN(order); k++)
        assert_int_equal(f.order[k], order[k]);
    assert_int_equal(o.best, 1);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 0), 5000 + 9);
    assert_int_equal(o.entries[4].retimed.n, 0);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 4), 4000 + 5);
    gt_bench_oracle_free(&o);
}

static void test_one_schedule_is_not_timed_again(void **state)
{
    (void)state;
    gt_bench_oracle o = {0};
    add(&o, "assign=block", true, NAN);
    fake f = {.times = {500}};
    assert_int_equal(gt_bench_oracle_time(&o, 3, "test", fake_run, &f), 0);
    /* nothing chose it over another, so its runs are its cost */
    assert_int_equal(f.runs, 3);
    assert_int_equal(o.entries[0].retimed.n, 0);
    assert_int_equal(gt_bench_oracle_median_ns(&o, 0), 500 + 2);
    gt_bench_oracle_free(&o);
}

/* Four schedules timed reps rounds, run fail_at failing: the timing stops there. */
static void assert_stops_at(unsigned reps, unsigned fail_at)
{
    gt_bench_oracle o = {0};
    four_schedules(&o);
    fake f = {.times = {1, 2, 3, 4}, .fail_at = fail_at};
    assert_int_equal(gt_bench_oracle_time(&o, reps, "test", fake_run, &f), -1);
    assert_int_equal(f.runs, fail_at);
    gt_bench_oracle_free(&o);
}

/* In the first rounds, and in the rounds again (one round of four, then runs 5-7). */
static void test_time_stops_at_a_failed_run(void **state)
{
    (void)state;
    assert_stops_at(3, 3);
    assert_stops_at(1, 6);
    gt_bench_oracle empty = {0};
    fake f = {0};
    assert_int_equal(gt_bench_oracle_time(&empty, 1, "test", fake_run, &f), -1);
    assert_int_equal(f.runs, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_merges_what_launches_said),
        cmocka_unit_test(test_add_text_refuses_what_does_not_parse),
        cmocka_unit_test(test_cap_keeps_the_kept_and_the_best_analysed_in_order),
        cmocka_unit_test(test_cap_never_drops_a_kept_schedule),
        cmocka_unit_test(test_time_rotates_the_rounds_and_ranks_by_median),
        cmocka_unit_test(test_kept_schedules_are_timed_again_too),
        cmocka_unit_test(test_one_schedule_is_not_timed_again),
        cmocka_unit_test(test_time_stops_at_a_failed_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
