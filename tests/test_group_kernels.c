/* test_group_kernels.c: GT_KERNEL_GROUP kernels on the worker pool. Under every item order,
 * group order and assignment, in 1, 2 and 3 dimensions with ragged workgroup shapes:
 * - every item runs once in every region, and a region starts only when the one before it has
 *   finished for the whole workgroup (every item reads what all the others wrote before);
 * - GT_PRIVATE values live from one region to the next, each item its own;
 * - local memory is the running thread's own: two threads never share it, and a thread that
 *   runs workgroup after workgroup reuses its own;
 * - the kernel's record refuses spans, and the pool refuses a span for it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/pool.h"
#include "tuner/grid.h"

#include <gridtune/kernel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGIONS 3
#define MAX_GROUP_ITEMS 64

/* Per item of the launch (global linear id): hits[REGIONS * id + r] counts region r's runs of
 * it; bad[id] counts what it found wrong. Per workgroup (linear group id): where its local
 * memory was, and the thread that ran it. */
typedef struct group_seen {
    uintptr_t local;
    pid_t tid;
} group_seen;

static size_t linear_id(size_t x, size_t y, size_t z, size_t gx, size_t gy)
{
    return (z * gy + y) * gx + x;
}

/* Region 0: each item keeps its own id (private) and writes it into its slot of local memory.
 * Region 1: each item checks that every slot holds its owner's id (all of region 0 is done),
 * then counts. Region 2: each item checks its private value is still its own. Every region
 * counts its runs of each item. */
GT_KERNEL_GROUP(barrier_check, (uint32_t slot[MAX_GROUP_ITEMS]; uint32_t pad;), uint32_t *, hits, uint32_t *, bad,
                group_seen *, seen)
{
    GT_PRIVATE(uint32_t, mine);
    const size_t gx = gt_global_size(0), gy = gt_global_size(1);
    const size_t lx = gt_local_size(0), ly = gt_local_size(1);
    const size_t n = lx * ly * gt_local_size(2);
    GT_ITEMS {
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);
        size_t l = linear_id(gt_local_id(0), gt_local_id(1), gt_local_id(2), lx, ly);
        GT_P(mine) = (uint32_t)id;
        GT_L(slot)[l] = (uint32_t)id;
        hits[REGIONS * id]++;
    }
    GT_ITEMS {
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);
        for (size_t l = 0; l < n; l++) {
            size_t lz = l / (lx * ly), r = l % (lx * ly);
            size_t owner = linear_id(gt_group_id(0) * lx + r % lx, gt_group_id(1) * ly + r / lx,
                                     gt_group_id(2) * gt_local_size(2) + lz, gx, gy);
            bad[id] += GT_L(slot)[l] != owner;
        }
        hits[REGIONS * id + 1]++;
    }
    GT_ITEMS {
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);
        bad[id] += GT_P(mine) != id;
        hits[REGIONS * id + 2]++;
    }
    size_t g = linear_id(gt_group_id(0), gt_group_id(1), gt_group_id(2), gt_num_groups(0), gt_num_groups(1));
    seen[g] = (group_seen){(uintptr_t)GT_L(slot), gettid()};
}

static gt_schedule schedule(const char *text)
{
    gt_schedule s;
    char err[256];
    if (gt_schedule_parse(text, &s, err, sizeof err) != 0)
        fail_msg("bad schedule in test: %s", err);
    return s;
}

typedef struct check_buffers {
    uint32_t *hits, *bad;
    group_seen *seen;
    size_t items, groups;
} check_buffers;

static check_buffers buffers_for(const gt_range *r)
{
    check_buffers cb = {.items = r->global[0] * r->global[1] * r->global[2], .groups = gt_range_group_count(r)};
    cb.hits = malloc(REGIONS * cb.items * sizeof *cb.hits);
    cb.bad = malloc(cb.items * sizeof *cb.bad);
    cb.seen = malloc(cb.groups * sizeof *cb.seen);
    assert_true(cb.hits && cb.bad && cb.seen);
    return cb;
}

static void buffers_free(check_buffers *cb)
{
    free(cb->hits);
    free(cb->bad);
    free(cb->seen);
}

/* Runs barrier_check over r under schedule text, on the pool's workers or (here) on the calling
 * thread alone, and checks every item, region and workgroup. */
static void run_and_check(gt_pool *pool, bool here, const gt_range *r, const char *text, check_buffers *cb)
{
    memset(cb->hits, 0, REGIONS * cb->items * sizeof *cb->hits);
    memset(cb->bad, 0, cb->items * sizeof *cb->bad);
    memset(cb->seen, 0, cb->groups * sizeof *cb->seen);
    void *args[] = {&cb->hits, &cb->bad, &cb->seen};
    gt_batch b = {.run = gt_kernel_desc_barrier_check.run, .no_spans = true, .args = args, .range = *r,
                  .schedule = schedule(text)};
    char err[256];
    if ((here ? gt_pool_run_here : gt_pool_run)(pool, &b, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", text, err);
    for (size_t i = 0; i < cb->items; i++) {
        for (unsigned k = 0; k < REGIONS; k++)
            if (cb->hits[REGIONS * i + k] != 1)
                fail_msg("%s: item %zu ran %u times in region %u", text, i, cb->hits[REGIONS * i + k], k);
        if (cb->bad[i])
            fail_msg("%s: item %zu found %u things wrong (a region overlapped the one before, or its private "
                     "value was lost)", text, i, cb->bad[i]);
    }
    for (size_t g = 0; g < cb->groups; g++)
        for (size_t h = 0; h < g; h++)
            if (cb->seen[g].tid != cb->seen[h].tid && cb->seen[g].local == cb->seen[h].local)
                fail_msg("%s: workgroups %zu and %zu ran on different threads with the same local memory", text, h, g);
}

static void every_item_runs_once_per_region_under_every_schedule(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    const gt_range ranges[] = {
        {.dims = 1, .global = {320, 1, 1}, .local = {64, 1, 1}},
        {.dims = 2, .global = {35, 12, 1}, .local = {7, 4, 1}},
        {.dims = 3, .global = {15, 6, 4}, .local = {5, 3, 2}},
    };
    const char *items[] = {"linear", "column", "tiled:2x2", "tiled:3x1", "tiled:4x4", "hilbert", "zigzag", "morton",
                           "strided:2/1"};
    const char *groups[] = {"linear", "zigzag", "hilbert"};
    const char *assigns[] = {"block", "cyclic:2", "dynamic:1", "dynamic:4", "stealing"};
    for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++) {
        const gt_range *r = &ranges[ri];
        check_buffers cb = buffers_for(r);
        for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
                for (size_t a = 0; a < sizeof assigns / sizeof assigns[0]; a++) {
                    char text[GT_SCHEDULE_TEXT_MAX];
                    snprintf(text, sizeof text, "group=%s,item=%s,assign=%s", groups[g], items[i], assigns[a]);
                    run_and_check(pool, false, r, text, &cb);
                }
        buffers_free(&cb);
    }
    gt_pool_destroy(pool);
}

/* The calling thread alone (a small launch's way) runs it right too, reusing one place for
 * local memory. */
static void runs_on_the_calling_thread(void **state)
{
    (void)state;
    gt_range r = {.dims = 2, .global = {14, 8, 1}, .local = {7, 4, 1}};
    check_buffers cb = buffers_for(&r);
    char err[256];
    gt_pool *pool;
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1}, &pool, err, sizeof err), 0);
    run_and_check(pool, true, &r, "item=tiled:3x2", &cb);
    gt_pool_destroy(pool);
    for (size_t g = 1; g < cb.groups; g++) /* one thread: one place, reused */
        assert_int_equal(cb.seen[g].local, cb.seen[0].local);
    buffers_free(&cb);
}

/* The record says what the loader and the tuner need; a span is refused. */
static void record_refuses_spans(void **state)
{
    (void)state;
    const gt_kernel_desc *k = &gt_kernel_desc_barrier_check;
    assert_int_equal(k->flags, GT_KERNEL_WORKGROUP | GT_KERNEL_NO_SPANS);
    assert_int_equal(k->local_bytes, (MAX_GROUP_ITEMS + 1) * sizeof(uint32_t));
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1}, &pool, err, sizeof err), 0);
    gt_batch b = {.run = k->run, .no_spans = true, .range = {.dims = 1, .global = {64, 1, 1}, .local = {8, 1, 1}},
                  .schedule = schedule("span=4")};
    assert_int_not_equal(gt_pool_run(pool, &b, NULL, err, sizeof err), 0);
    assert_non_null(strstr(err, "span"));
    gt_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_item_runs_once_per_region_under_every_schedule),
        cmocka_unit_test(runs_on_the_calling_thread),
        cmocka_unit_test(record_refuses_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
