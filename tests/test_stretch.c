/* test_stretch.c: stretches of a schedule's walk over the whole grid (tuner/stretch.c).
 * A stretch must follow the schedule's group order over its spans from the asked position,
 * leave out workgroups already run, cut spans only where those are, wrap at the walk's end,
 * and, taken again and again, run every workgroup exactly once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/grid.h"
#include "tuner/stretch.h"

static gt_schedule schedule_of(const char *text)
{
    gt_schedule s;
    char err[256];
    if (gt_schedule_parse(text, &s, err, sizeof err) != 0)
        fail_msg("bad schedule in the test: %s", err);
    return s;
}

static void mark(uint8_t *done, const gt_stretch *st)
{
    for (uint32_t i = 0; i < st->nruns; i++)
        for (uint32_t g = st->runs[i].first; g < st->runs[i].first + st->runs[i].count; g++)
            done[g / 8] |= (uint8_t)(1u << (g % 8));
}

static void assert_run(const gt_stretch *st, uint32_t i, uint32_t first, uint32_t count)
{
    assert_true(i < st->nruns);
    assert_int_equal(st->runs[i].first, first);
    assert_int_equal(st->runs[i].count, count);
}

static void test_a_linear_stretch_is_consecutive_workgroups(void **state)
{
    (void)state;
    const uint32_t grid[3] = {10, 4, 1};
    gt_walks *w = gt_walks_create(grid);
    assert_non_null(w);
    gt_schedule s = schedule_of("group=linear,item=linear,assign=dynamic:1");
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 13, 3, NULL, &st), 0);
    assert_int_equal(st.nruns, 3);
    assert_run(&st, 0, 13, 1);
    assert_run(&st, 2, 15, 1);
    assert_int_equal(st.groups, 3);
    assert_int_equal(st.start, 13);
    assert_int_equal(st.next, 16);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* Spans of 4 over rows of 10: 4, 4 and the row's last 2, each one run. */
static void test_spans_are_runs_and_the_last_of_a_row_is_narrower(void **state)
{
    (void)state;
    const uint32_t grid[3] = {10, 4, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=linear,span=4,item=linear,assign=dynamic:1");
    assert_int_equal(gt_walk_positions(grid, 4), 12);
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 0, 10, NULL, &st), 0);
    assert_int_equal(st.nruns, 3);
    assert_run(&st, 0, 0, 4);
    assert_run(&st, 1, 4, 4);
    assert_run(&st, 2, 8, 2);
    assert_int_equal(st.groups, 10);
    gt_stretch_free(&st);
    /* a stretch never holds more than asked: its last span is cut short */
    assert_int_equal(gt_stretch_take(w, &s, 0, 7, NULL, &st), 0);
    assert_int_equal(st.nruns, 2);
    assert_run(&st, 1, 4, 3);
    assert_int_equal(st.groups, 7);
    assert_int_equal(st.next, 2);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* The column order walks down the columns of spans. */
static void test_a_stretch_follows_the_group_order(void **state)
{
    (void)state;
    const uint32_t grid[3] = {6, 3, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=column,span=2,item=linear,assign=dynamic:1");
    gt_stretch st;
    /* spans: 3 x 3; column-major position 4 is span (1, 1): workgroups 8 and 9 */
    assert_int_equal(gt_stretch_take(w, &s, 4, 4, NULL, &st), 0);
    assert_int_equal(st.nruns, 2);
    assert_run(&st, 0, 8, 2);  /* span (1, 1) */
    assert_run(&st, 1, 14, 2); /* span (1, 2) */
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* Workgroups already run are left out, cutting the span around them; the walk goes on past
   them until the stretch holds what was asked. */
static void test_done_workgroups_cut_spans_and_are_passed(void **state)
{
    (void)state;
    const uint32_t grid[3] = {8, 2, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=linear,span=4,item=linear,assign=dynamic:1");
    uint8_t done[2] = {0};
    done[0] = 1u << 1 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7; /* 1, and the whole second span */
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 0, 7, done, &st), 0);
    assert_int_equal(st.nruns, 3);
    assert_run(&st, 0, 0, 1);
    assert_run(&st, 1, 2, 2);
    assert_run(&st, 2, 8, 4);
    assert_int_equal(st.groups, 7);
    assert_int_equal(st.next, 3);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* A walk that reaches its end goes on from position 0, and a start past the end wraps. */
static void test_the_walk_wraps(void **state)
{
    (void)state;
    const uint32_t grid[3] = {5, 1, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=linear,item=linear,assign=dynamic:1");
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 8, 3, NULL, &st), 0); /* 8 mod 5 = 3 */
    assert_int_equal(st.start, 3);
    assert_run(&st, 0, 3, 1);
    assert_run(&st, 1, 4, 1);
    assert_run(&st, 2, 0, 1);
    assert_int_equal(st.next, 1);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* Asking for more than is left takes what is left; nothing left is an empty stretch. */
static void test_a_stretch_takes_what_is_left(void **state)
{
    (void)state;
    const uint32_t grid[3] = {4, 2, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=hilbert,span=2,item=linear,assign=dynamic:1");
    uint8_t done[1] = {0x0f};
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 1, 100, done, &st), 0);
    assert_int_equal(st.groups, 4);
    mark(done, &st);
    gt_stretch_free(&st);
    assert_int_equal(done[0], 0xff);
    assert_int_equal(gt_stretch_take(w, &s, 0, 1, done, &st), 0);
    assert_int_equal(st.nruns, 0);
    assert_int_equal(st.groups, 0);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

static void test_a_bad_span_is_refused(void **state)
{
    (void)state;
    const uint32_t grid[3] = {4, 2, 1};
    gt_walks *w = gt_walks_create(grid);
    gt_schedule s = schedule_of("group=linear,item=linear,assign=dynamic:1");
    s.span = 0;
    gt_stretch st;
    assert_int_equal(gt_stretch_take(w, &s, 0, 1, NULL, &st), -EINVAL);
    gt_stretch_free(&st);
    s.span = GT_SPAN_MAX + 1;
    assert_int_equal(gt_stretch_take(w, &s, 0, 1, NULL, &st), -EINVAL);
    gt_stretch_free(&st);
    gt_walks_destroy(w);
}

/* Stretches of different schedules from scattered positions, marked done as they go, run
   every workgroup exactly once, and every run lies in one row and one span. More schedules
   than the walks keep permutations for, so evicted ones are filled again. */
static void test_stretches_run_every_workgroup_once(void **state)
{
    (void)state;
    static const char *const schedules[] = {
        "group=linear,item=linear,assign=dynamic:1",       "group=column,span=3,item=linear,assign=block",
        "group=tiled:4x2,span=2,item=linear,assign=block", "group=hilbert,item=linear,assign=stealing",
        "group=zigzag,span=5,item=linear,assign=block",    "group=morton,span=4,item=linear,assign=block",
        "group=strided:3/2,item=linear,assign=block",      "group=tiled:2x2,item=linear,assign=block",
        "group=column,item=linear,assign=block",           "group=hilbert,span=7,item=linear,assign=block",
    };
    const size_t nschedules = sizeof schedules / sizeof schedules[0];
    static const uint32_t grids[][3] = {{13, 7, 1}, {5, 4, 3}, {40, 1, 1}, {1, 9, 2}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
        const uint32_t *grid = grids[gi];
        uint32_t groups = grid[0] * grid[1] * grid[2];
        uint8_t *done = calloc((groups + 7) / 8, 1);
        unsigned *runs = calloc(groups, sizeof *runs);
        gt_walks *w = gt_walks_create(grid);
        assert_true(done && runs && w);
        for (unsigned k = 0; k < 1000; k++) {
            gt_schedule s = schedule_of(schedules[k % nschedules]);
            gt_stretch st;
            uint64_t positions = gt_walk_positions(grid, s.span);
            assert_int_equal(gt_stretch_take(w, &s, (k * 7919u) % positions, 1 + k % 5, done, &st), 0);
            for (uint32_t i = 0; i < st.nruns; i++) {
                assert_true(st.runs[i].count >= 1 && st.runs[i].count <= s.span);
                assert_true(st.runs[i].first % grid[0] + st.runs[i].count <= grid[0]);
                for (uint32_t g = st.runs[i].first; g < st.runs[i].first + st.runs[i].count; g++)
                    runs[g]++;
            }
            mark(done, &st);
            bool empty = st.nruns == 0;
            gt_stretch_free(&st);
            if (empty)
                break;
        }
        for (uint32_t g = 0; g < groups; g++)
            assert_int_equal(runs[g], 1);
        gt_walks_destroy(w);
        free(runs);
        free(done);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_linear_stretch_is_consecutive_workgroups),
        cmocka_unit_test(test_spans_are_runs_and_the_last_of_a_row_is_narrower),
        cmocka_unit_test(test_a_stretch_follows_the_group_order),
        cmocka_unit_test(test_done_workgroups_cut_spans_and_are_passed),
        cmocka_unit_test(test_the_walk_wraps),
        cmocka_unit_test(test_a_stretch_takes_what_is_left),
        cmocka_unit_test(test_a_bad_span_is_refused),
        cmocka_unit_test(test_stretches_run_every_workgroup_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
