/* test_pool.c: the worker pool runs every workgroup of a batch exactly once, under every
 * assignment policy, span and worker count, and so does the calling thread alone
 * (gt_pool_run_here); boxes and skip bitmaps select subsets, and explicit runs are run as given; item orders reach the kernel,
 * within a workgroup and across a span; every item sees its own ids; bad batches are refused
 * with a sentence. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/batch.h"
#include "engine/pool.h"
#include "tuner/grid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <gridtune/kernel.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Counts how often each work-item runs, by global linear id. */
GT_KERNEL(count_items, uint32_t *, hits)
{
    size_t id = gt_global_id(0) + gt_global_size(0) * (gt_global_id(1) + gt_global_size(1) * gt_global_id(2));
    __atomic_fetch_add(&hits[id], 1, __ATOMIC_RELAXED);
}

/* Records the thread every workgroup ran on. */
GT_KERNEL(note_thread, uint64_t *, tids)
{
    size_t g = gt_group_id(0) + gt_num_groups(0) * (gt_group_id(1) + gt_num_groups(1) * gt_group_id(2));
    tids[g] = (uint64_t)gettid();
}

/* Records the local linear ids of workgroup 0's items in the order they run. */
GT_KERNEL(record_items, uint32_t *, seq, uint32_t *, next)
{
    if (gt_group_id(0) || gt_group_id(1) || gt_group_id(2))
        return;
    uint32_t k = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
    seq[k] = (uint32_t)(gt_local_id(0) + gt_local_size(0) * (gt_local_id(1) + gt_local_size(1) * gt_local_id(2)));
}

/* Writes each item's ids where the test can compare them with the ones it computes itself:
 * for the item at global linear id i, ids[6 i + d] is its group id and ids[6 i + 3 + d] its local
 * id in dimension d (each plus one, so that 0 means never written). */
GT_KERNEL(record_ids, uint32_t *, ids)
{
    size_t id = gt_global_id(0) + gt_global_size(0) * (gt_global_id(1) + gt_global_size(1) * gt_global_id(2));
    for (unsigned d = 0; d < 3; d++) {
        ids[6 * id + d] = (uint32_t)gt_group_id(d) + 1;
        ids[6 * id + 3 + d] = (uint32_t)gt_local_id(d) + 1;
    }
}

static gt_range range3(size_t gx, size_t gy, size_t gz, size_t lx, size_t ly, size_t lz, unsigned dims)
{
    return (gt_range){.dims = dims, .global = {gx, gy, gz}, .local = {lx, ly, lz}};
}

static size_t range_items(const gt_range *r)
{
    size_t n = 1;
    for (unsigned d = 0; d < r->dims; d++)
        n *= r->global[d];
    return n;
}

static gt_schedule schedule(const char *text)
{
    gt_schedule s;
    char err[256];
    if (gt_schedule_parse(text, &s, err, sizeof err) != 0)
        fail_msg("bad schedule in test: %s", err);
    return s;
}

/* Runs count_items over the whole range and checks each work-item ran once. */
static void check_exactly_once(gt_pool *pool, const gt_range *r, const char *sched)
{
    size_t n = range_items(r);
    uint32_t *hits = calloc(n, sizeof *hits);
    void *args[] = {&hits};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = *r, .schedule = schedule(sched)};
    gt_batch_result res;
    char err[256];
    int rc = gt_pool_run(pool, &b, &res, err, sizeof err);
    if (rc)
        fail_msg("pool run failed: %s", err);
    for (size_t i = 0; i < n; i++)
        if (hits[i] != 1)
            fail_msg("%s with %u workers: work-item %zu ran %u times", sched, gt_pool_workers(pool), i, hits[i]);
    uint64_t sum = 0;
    for (unsigned w = 0; w < res.workers; w++)
        sum += res.worker[w].groups;
    assert_int_equal(res.groups, gt_range_group_count(r));
    assert_int_equal(sum, res.groups);
    assert_int_equal(res.workers, gt_pool_workers(pool));
    free(hits);
}

static void exactly_once_every_policy_and_worker_count(void **state)
{
    (void)state;
    const char *assigns[] = {"block", "cyclic:1", "cyclic:3", "dynamic:1", "dynamic:5", "stealing"};
    const char *groups[] = {"linear", "hilbert", "tiled:3x2", "strided:4/2", "grouped:5"};
    const char *items[] = {"zigzag", "linear", "column", "tiled:2x2"};
    const unsigned spans[] = {1, 3, 8, 40}; /* 33 groups a row: the last span of a row is narrower */
    gt_range r = range3(66, 51, 1, 2, 3, 1, 2); /* a 33 x 17 grid */
    for (unsigned workers = 1; workers <= 8; workers++) {
        gt_pool *pool;
        char err[256];
        /* every other pool's workers poll for their next batch, which comes back to back here,
           and are still polling when the pool is destroyed */
        unsigned spin_us = workers % 2 ? 0 : 100;
        assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = workers, .spin_us = spin_us}, &pool, err,
                                        sizeof err),
                         0);
        for (size_t a = 0; a < 6; a++)
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
                for (size_t s = 0; s < 4; s++) {
                    char text[GT_SCHEDULE_TEXT_MAX];
                    snprintf(text, sizeof text, "group=%s,span=%u,item=%s,assign=%s", groups[g], spans[s],
                             items[(a + g + s) % 4], assigns[a]);
                    check_exactly_once(pool, &r, text);
                }
        gt_pool_destroy(pool);
    }
}

/* gt_pool_run_here: every workgroup once, all on the calling thread, whatever the policy; the
 * result has one worker and no counters. */
static void run_here_runs_every_group_once_on_the_caller(void **state)
{
    (void)state;
    const char *assigns[] = {"block", "cyclic:3", "dynamic:5", "stealing"};
    gt_range r = range3(66, 51, 1, 2, 3, 1, 2); /* a 33 x 17 grid */
    size_t n = range_items(&r), groups = gt_range_group_count(&r);
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    for (size_t a = 0; a < 4; a++) {
        char text[GT_SCHEDULE_TEXT_MAX];
        snprintf(text, sizeof text, "group=hilbert,item=zigzag,assign=%s", assigns[a]);
        uint32_t *hits = calloc(n, sizeof *hits);
        uint64_t *tids = calloc(groups, sizeof *tids);
        void *count_args[] = {&hits}, *note_args[] = {&tids};
        gt_batch count = {.run = gt_kernel_desc_count_items.run, .args = count_args, .range = r, .schedule = schedule(text)};
        gt_batch note = {.run = gt_kernel_desc_note_thread.run, .args = note_args, .range = r, .schedule = schedule(text)};
        gt_batch_result res;
        memset(&res, 0xff, sizeof res);
        assert_int_equal(gt_pool_run_here(pool, &count, &res, err, sizeof err), 0);
        for (size_t i = 0; i < n; i++)
            if (hits[i] != 1)
                fail_msg("%s on the caller: work-item %zu ran %u times", text, i, hits[i]);
        assert_int_equal(res.groups, groups);
        assert_int_equal(res.workers, 1);
        assert_int_equal(res.worker[0].groups, groups);
        assert_int_equal(res.ncounters, 0);
        assert_false(res.probed);
        assert_int_equal(gt_pool_run_here(pool, &note, NULL, err, sizeof err), 0);
        for (size_t g = 0; g < groups; g++)
            assert_int_equal(tids[g], (uint64_t)gettid());
        free(hits);
        free(tids);
    }
    gt_pool_destroy(pool);
}

static void exactly_once_in_one_and_three_dimensions(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 3}, &pool, err, sizeof err), 0);
    gt_range one = range3(1000, 1, 1, 8, 1, 1, 1);
    gt_range three = range3(10, 12, 9, 2, 3, 3, 3);
    gt_range single = range3(4, 4, 1, 4, 4, 1, 2); /* one workgroup */
    const char *scheds[] = {"group=linear,item=linear,assign=stealing", "group=morton,item=hilbert,assign=block",
                            "group=column,item=column,assign=dynamic:2", "group=hilbert,item=strided:2/1,assign=cyclic:2",
                            "group=linear,span=4,item=linear,assign=stealing",
                            "group=morton,span=2,item=tiled:2x2,assign=block",
                            "group=column,span=3,item=column,assign=dynamic:2",
                            "group=hilbert,span=7,item=strided:2/1,assign=cyclic:2"};
    for (size_t s = 0; s < 8; s++) {
        check_exactly_once(pool, &one, scheds[s]);
        check_exactly_once(pool, &three, scheds[s]);
        check_exactly_once(pool, &single, scheds[s]);
    }
    gt_pool_destroy(pool);
}

static bool group_in_box(uint32_t gx, uint32_t gy, const uint32_t o[3], const uint32_t e[3])
{
    return gx >= o[0] && gx < o[0] + e[0] && gy >= o[1] && gy < o[1] + e[1];
}

static void box_then_skip_covers_launch_once(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    gt_range r = range3(40, 24, 1, 4, 4, 1, 2); /* a 10 x 6 grid */
    size_t n = range_items(&r);
    uint32_t *hits = calloc(n, sizeof *hits);
    void *args[] = {&hits};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = r,
                  .schedule = schedule("group=hilbert,assign=stealing"),
                  .box_origin = {3, 2, 0}, .box_extent = {4, 2, 1}};
    gt_batch_result res;
    assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
    assert_int_equal(res.groups, 8);
    for (size_t i = 0; i < n; i++) {
        uint32_t gx = (uint32_t)(i % 40 / 4), gy = (uint32_t)(i / 40 / 4);
        assert_int_equal(hits[i], group_in_box(gx, gy, b.box_origin, b.box_extent) ? 1 : 0);
    }
    /* the rest of the launch: whole grid, box's workgroups skipped */
    uint8_t skip[8] = {0};
    for (uint32_t gy = 0; gy < 6; gy++)
        for (uint32_t gx = 0; gx < 10; gx++)
            if (group_in_box(gx, gy, b.box_origin, b.box_extent))
                skip[(gx + 10 * gy) / 8] |= (uint8_t)(1u << ((gx + 10 * gy) % 8));
    gt_batch rest = {.run = b.run, .args = args, .range = r, .schedule = schedule("group=tiled:3x3,assign=cyclic:2"),
                     .skip = skip};
    assert_int_equal(gt_pool_run(pool, &rest, &res, err, sizeof err), 0);
    assert_int_equal(res.groups, 60 - 8);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(hits[i], 1);
    /* again with spans of 4 and 6, which the skipped box cuts: each cut span runs as the
       workgroups on either side */
    for (unsigned span = 4; span <= 6; span += 2) {
        memset(hits, 0, n * sizeof *hits);
        b.schedule.span = span;
        assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
        assert_int_equal(res.groups, 8);
        rest.schedule.span = span;
        assert_int_equal(gt_pool_run(pool, &rest, &res, err, sizeof err), 0);
        assert_int_equal(res.groups, 60 - 8);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(hits[i], 1);
    }
    free(hits);
    gt_pool_destroy(pool);
}

/* A chunk counts workgroups whatever the span: cyclic:8 over spans of 4 deals two spans at a
 * time, so each of two workers gets half of 32 workgroups (a chunk of 8 spans would give the
 * first worker all of them). */
static void chunks_count_workgroups_not_spans(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    uint32_t counts[32 * 4] = {0};
    uint32_t *hits = counts;
    void *args[] = {&hits};
    const char *scheds[] = {"span=4,assign=cyclic:8", "span=8,assign=cyclic:4", "span=2,assign=cyclic:16"};
    for (size_t s = 0; s < 3; s++) {
        gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = range3(32 * 4, 1, 1, 4, 1, 1, 1),
                      .schedule = schedule(scheds[s])};
        gt_batch_result res;
        assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
        if (res.worker[0].groups != 16 || res.worker[1].groups != 16)
            fail_msg("%s: the workers ran %" PRIu64 " and %" PRIu64 " workgroups; expected 16 each", scheds[s],
                     res.worker[0].groups, res.worker[1].groups);
    }
    gt_pool_destroy(pool);
}

/* Every item of a 3-D launch sees its own group and local ids, under spans of every width and
 * every kind of item walk: loop nests and the coordinate list. */
static void every_item_sees_its_ids(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    gt_range r = range3(35, 6, 4, 5, 3, 2, 3); /* a 7 x 2 x 2 grid */
    size_t n = range_items(&r);
    uint32_t *ids = malloc(6 * n * sizeof *ids);
    void *args[] = {&ids};
    const char *items[] = {"linear", "column", "tiled:2x2", "tiled:3x1", "hilbert", "zigzag"};
    for (unsigned span = 1; span <= 8; span++)
        for (size_t k = 0; k < 6; k++) {
            char text[GT_SCHEDULE_TEXT_MAX];
            snprintf(text, sizeof text, "group=zigzag,span=%u,item=%s,assign=dynamic:1", span, items[k]);
            memset(ids, 0, 6 * n * sizeof *ids);
            gt_batch b = {.run = gt_kernel_desc_record_ids.run, .args = args, .range = r, .schedule = schedule(text)};
            assert_int_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0);
            for (size_t i = 0; i < n; i++) {
                size_t g[3] = {i % 35, i / 35 % 6, i / 35 / 6};
                for (unsigned d = 0; d < 3; d++) {
                    if (ids[6 * i + d] != g[d] / r.local[d] + 1 || ids[6 * i + 3 + d] != g[d] % r.local[d] + 1)
                        fail_msg("%s: item (%zu,%zu,%zu) dimension %u sees group %d, local %d", text, g[0], g[1],
                                 g[2], d, (int)ids[6 * i + d] - 1, (int)ids[6 * i + 3 + d] - 1);
                }
            }
        }
    free(ids);
    gt_pool_destroy(pool);
}

/* Records the global linear ids of the items of the first call, in the order they run. */
GT_KERNEL(record_span, uint32_t *, seq, uint32_t *, next)
{
    if (gt_group_id(1) || gt_group_id(2) || gt_group_id(0) >= 3)
        return;
    uint32_t k = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
    seq[k] = (uint32_t)(gt_global_id(0) + gt_global_size(0) * gt_global_id(1));
}

/* A span of three 4x3 workgroups is walked as one 12x3 box: the loop-nest walks order the whole
 * box as the item order orders a 12x3 grid, and the list walks order each workgroup in turn. */
static void item_order_covers_the_span(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1}, &pool, err, sizeof err), 0);
    const char *items[] = {"linear", "column", "tiled:5x2", "hilbert"};
    for (size_t i = 0; i < 4; i++) {
        char text[64];
        snprintf(text, sizeof text, "span=3,item=%s", items[i]);
        gt_batch b = {.run = gt_kernel_desc_record_span.run, .range = range3(12, 6, 1, 4, 3, 1, 2),
                      .schedule = schedule(text)};
        uint32_t seq[36], next = 0, expected[36];
        uint32_t *pseq = seq, *pnext = &next;
        void *args[] = {&pseq, &pnext};
        b.args = args;
        assert_int_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0);
        assert_int_equal(next, 36);
        if (b.schedule.item.kind == GT_ORDER_HILBERT) {
            uint32_t shape[3] = {4, 3, 1}, one[12];
            assert_int_equal(gt_order_fill(&b.schedule.item, shape, one), 0);
            for (uint32_t g = 0; g < 3; g++)
                for (uint32_t k = 0; k < 12; k++)
                    expected[12 * g + k] = 4 * g + one[k] % 4 + 12 * (one[k] / 4);
        } else {
            uint32_t shape[3] = {12, 3, 1};
            assert_int_equal(gt_order_fill(&b.schedule.item, shape, expected), 0);
        }
        assert_memory_equal(seq, expected, sizeof seq);
    }
    gt_pool_destroy(pool);
}

/* Every other workgroup skipped, on a grid whose rows are no whole number of bytes of the
 * bitmap or of eight-byte words: the rest runs once each, whatever the span, the order or a
 * box. */
static void a_checkerboard_skip_cuts_every_span(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    enum { W = 75, H = 3 };
    gt_range r = range3(W * 2, H, 1, 2, 1, 1, 2);
    uint32_t *hits = calloc(W * 2 * H, sizeof *hits);
    void *args[] = {&hits};
    uint8_t skip[(W * H + 7) / 8] = {0};
    for (uint32_t id = 0; id < W * H; id++)
        if ((id % W + id / W) % 2 == 0 || id % W >= 64) /* and a run of 11 skipped at each row's end */
            skip[id / 8] |= (uint8_t)(1u << (id % 8));
    static const char *const schedules[] = {"group=linear", "group=column,span=8", "group=hilbert,span=3",
                                            "group=linear,span=75", "group=zigzag,span=64"};
    for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++) {
        for (int boxed = 0; boxed < 2; boxed++) {
            memset(hits, 0, W * 2 * H * sizeof *hits);
            gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = r,
                          .schedule = schedule(schedules[k]), .skip = skip,
                          .box_origin = {boxed ? 1 : 0, boxed ? 1 : 0, 0},
                          .box_extent = {boxed ? W - 1 : 0, boxed ? H - 1 : 0, boxed ? 1 : 0}};
            gt_batch_result res;
            assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
            uint64_t expected = 0;
            for (uint32_t id = 0; id < W * H; id++) {
                bool inside = !boxed || (id % W >= 1 && id / W >= 1);
                bool runs = inside && !(skip[id / 8] >> (id % 8) & 1);
                expected += runs;
                for (uint32_t item = 0; item < 2; item++)
                    assert_int_equal(hits[(id / W) * W * 2 + (id % W) * 2 + item], runs ? 1 : 0);
            }
            assert_int_equal(res.groups, expected);
        }
    }
    free(hits);
    gt_pool_destroy(pool);
}

/* The plan's runs of a batch: each unskipped workgroup of the grid in exactly one run, none
 * skipped, each run inside one span of one row. */
static void assert_runs_cover(const gt_batch_plan *p, const uint8_t *skip, uint32_t span)
{
    uint32_t groups = p->grid[0] * p->grid[1] * p->grid[2];
    uint8_t *seen = calloc(groups, 1);
    uint32_t total = 0;
    for (uint32_t r = 0; r < p->nruns; r++) {
        const gt_group_run *run = &p->runs[r];
        assert_true(run->count >= 1 && run->count <= span);
        assert_true(run->first % p->grid[0] / span == (run->first % p->grid[0] + run->count - 1) / span);
        for (uint32_t k = 0; k < run->count; k++) {
            assert_false(gt_bitmap_test(skip, run->first + k));
            assert_int_equal(seen[run->first + k]++, 0);
        }
        total += run->count;
    }
    uint32_t unskipped = 0;
    for (uint32_t id = 0; id < groups; id++)
        unskipped += !gt_bitmap_test(skip, id);
    assert_int_equal(total, unskipped);
    assert_int_equal(p->ngroups, unskipped);
    free(seen);
}

/* Planning sizes a batch's runs by its spans and its skipped workgroups (each cuts a run in two
 * at most). Spans of 3 with their middle workgroup skipped reach that bound exactly; spans of a
 * whole row without a skipped workgroup, in a bitmap with bits elsewhere, are one run each;
 * a 3-D grid is cut the same way. */
static void plan_runs_reach_their_bound(void **state)
{
    (void)state;
    char err[256];
    enum { W = 75, H = 3, D = 2 };
    uint8_t skip[(W * H * D + 7) / 8] = {0};
    for (uint32_t id = 0; id < W * H * D; id++)
        if (id % W % 3 == 1)
            skip[id / 8] |= (uint8_t)(1u << (id % 8));
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .range = range3(W * 2, H, D, 2, 1, 1, 3),
                  .schedule = schedule("group=zigzag,span=3"), .skip = skip};
    gt_batch_plan p;
    assert_int_equal(gt_batch_plan_build(&b, &p, err, sizeof err), 0);
    assert_int_equal(p.nruns, 2 * (W / 3) * H * D); /* the spans (W / 3 a row) plus one per skipped */
    assert_runs_cover(&p, skip, 3);
    gt_batch_plan_free(&p);

    memset(skip, 0, sizeof skip);
    for (uint32_t x = 0; x < W; x += 2) /* the last plane's last row only */
        skip[(W * H * D - W + x) / 8] |= (uint8_t)(1u << ((W * H * D - W + x) % 8));
    b.schedule = schedule("group=column,span=75");
    assert_int_equal(gt_batch_plan_build(&b, &p, err, sizeof err), 0);
    assert_int_equal(p.nruns, H * D - 1 + W / 2); /* a run per whole row, then the cut row's runs */
    assert_runs_cover(&p, skip, W);
    gt_batch_plan_free(&p);
}

static void everything_skipped_runs_nothing(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    uint32_t hits[64] = {0};
    uint32_t *p = hits;
    void *args[] = {&p};
    uint8_t skip[1] = {0xff};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = range3(64, 1, 1, 8, 1, 1, 1),
                  .schedule = gt_schedule_default, .skip = skip};
    gt_batch_result res;
    assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
    assert_int_equal(res.groups, 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(hits[i], 0);
    gt_pool_destroy(pool);
}

static void item_order_reaches_the_kernel(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1}, &pool, err, sizeof err), 0);
    const char *items[] = {"linear", "zigzag", "column", "tiled:2x2", "hilbert", "strided:3/1", "grouped:2"};
    uint32_t shape[3] = {4, 3, 1};
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "item=%s", items[i]);
        gt_batch b = {.run = gt_kernel_desc_record_items.run, .range = range3(8, 6, 1, 4, 3, 1, 2),
                      .schedule = schedule(text)};
        uint32_t seq[12], next = 0, expected[12];
        uint32_t *pseq = seq, *pnext = &next;
        void *args[] = {&pseq, &pnext};
        b.args = args;
        assert_int_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0);
        assert_int_equal(next, 12);
        assert_int_equal(gt_order_fill(&b.schedule.item, shape, expected), 0);
        assert_memory_equal(seq, expected, sizeof seq);
    }
    gt_pool_destroy(pool);
}

static void assert_run_refused(gt_pool *pool, gt_batch *b, const char *named)
{
    char err[256] = "";
    assert_int_equal(gt_pool_run(pool, b, NULL, err, sizeof err), -EINVAL);
    if (!strstr(err, named))
        fail_msg("error \"%s\" does not mention \"%s\"", err, named);
}

static void bad_batches_are_refused(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    uint32_t *hits = NULL;
    void *args[] = {&hits};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .schedule = gt_schedule_default};
    b.range = range3(10, 1, 1, 4, 1, 1, 1);
    assert_run_refused(pool, &b, "not a multiple");
    b.range = range3(10, 1, 1, 5, 1, 1, 4);
    assert_run_refused(pool, &b, "4 dimensions");
    b.range = range3(0, 1, 1, 1, 1, 1, 1);
    assert_run_refused(pool, &b, "at least 1");
    b.range = range3(1 << 20, 1, 1, 1 << 17, 1, 1, 1);
    assert_run_refused(pool, &b, "131072");
    b.range = range3(16, 16, 1, 4, 4, 1, 2);
    b.box_origin[0] = 3;
    b.box_extent[0] = 2;
    b.box_extent[1] = 1;
    b.box_extent[2] = 1;
    assert_run_refused(pool, &b, "does not fit");
    b.box_extent[0] = b.box_extent[1] = b.box_extent[2] = 0;
    b.schedule.group.kind = GT_ORDER_TILED; /* tiled:0x0 */
    assert_run_refused(pool, &b, "group order");
    b.schedule = gt_schedule_default;
    b.schedule.span = 0;
    assert_run_refused(pool, &b, "span 0");
    b.schedule.span = 2;
    b.no_spans = true;
    assert_run_refused(pool, &b, "refuses spans");
    b.schedule.span = 1;
    uint32_t counts[16 * 16] = {0};
    hits = counts;
    assert_int_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0); /* a kernel that refuses spans runs spans of 1 */
    assert_int_equal(counts[255], 1);
    b.no_spans = false;
    b.run = NULL;
    assert_run_refused(pool, &b, "no workgroup function");
    gt_pool_destroy(pool);
}

/* A batch of explicit runs (the tuner's stretches) runs exactly those workgroups, spans of
 * any length up to the schedule's included, and a run that leaves its row or its span is
 * refused. */
static void explicit_runs_run_exactly_those(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    gt_range r = range3(40, 24, 1, 4, 4, 1, 2); /* a 10 x 6 grid */
    size_t n = range_items(&r);
    uint32_t *hits = calloc(n, sizeof *hits);
    void *args[] = {&hits};
    const gt_group_run runs[] = {{57, 3}, {0, 1}, {22, 4}, {9, 1}};
    gt_batch b = {.run = gt_kernel_desc_count_items.run, .args = args, .range = r,
                  .schedule = schedule("group=linear,span=4,item=tiled:2x2,assign=dynamic:2"), .runs = runs,
                  .nruns = 4, .box_origin = {9, 9, 9}}; /* the box is not used */
    gt_batch_result res;
    assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
    assert_int_equal(res.groups, 9);
    for (size_t i = 0; i < n; i++) {
        uint32_t g = (uint32_t)(i % 40 / 4 + 10 * (i / 40 / 4));
        bool in = (g >= 57 && g < 60) || g == 0 || (g >= 22 && g < 26) || g == 9;
        assert_int_equal(hits[i], in ? 1 : 0);
    }
    const gt_group_run past_row[] = {{8, 3}}, past_span[] = {{0, 5}}, past_grid[] = {{60, 1}}, empty[] = {{1, 0}};
    const gt_group_run *bad[] = {past_row, past_span, past_grid, empty};
    for (size_t i = 0; i < 4; i++) {
        b.runs = bad[i];
        b.nruns = 1;
        assert_run_refused(pool, &b, "leaves its row");
    }
    free(hits);
    gt_pool_destroy(pool);
}

static void worker_count_defaults_to_usable_cpus(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    assert_int_equal(gt_pool_create(NULL, &pool, err, sizeof err), 0);
    assert_int_equal(gt_pool_workers(pool), (unsigned)CPU_COUNT(&set));
    gt_pool_destroy(pool);
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 5, .no_pin = true}, &pool, err, sizeof err), 0);
    assert_int_equal(gt_pool_workers(pool), 5);
    gt_pool_destroy(pool);
}

static void too_many_workers_is_refused(void **state)
{
    (void)state;
    gt_pool *pool = NULL;
    char err[256] = "";
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = GT_POOL_MAX_WORKERS + 1}, &pool, err, sizeof err),
                     -EINVAL);
    assert_non_null(strstr(err, "257 workers"));
    assert_null(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exactly_once_every_policy_and_worker_count),
        cmocka_unit_test(exactly_once_in_one_and_three_dimensions),
        cmocka_unit_test(run_here_runs_every_group_once_on_the_caller),
        cmocka_unit_test(box_then_skip_covers_launch_once),
        cmocka_unit_test(a_checkerboard_skip_cuts_every_span),
        cmocka_unit_test(plan_runs_reach_their_bound),
        cmocka_unit_test(everything_skipped_runs_nothing),
        cmocka_unit_test(item_order_reaches_the_kernel),
        cmocka_unit_test(every_item_sees_its_ids),
        cmocka_unit_test(chunks_count_workgroups_not_spans),
        cmocka_unit_test(item_order_covers_the_span),
        cmocka_unit_test(bad_batches_are_refused),
        cmocka_unit_test(explicit_runs_run_exactly_those),
        cmocka_unit_test(worker_count_defaults_to_usable_cpus),
        cmocka_unit_test(too_many_workers_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
