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

/* Region 0: each item keeps its own id (private) and writes it into its slot of local memory,
 * and takes the workgroup's next sequence number (order: the item order, as the region ran it).
 * Region 1: each item checks that every slot holds its owner's id (all of region 0 is done),
 * then counts. Region 2: each item checks its private value is still its own. Every region
 * counts its runs of each item. */
#define BARRIER_CHECK_BODY                                                                               \
    GT_PRIVATE(uint32_t, mine);                                                                          \
    const size_t gx = gt_global_size(0), gy = gt_global_size(1);                                         \
    const size_t lx = gt_local_size(0), ly = gt_local_size(1);                                           \
    const size_t n = lx * ly * gt_local_size(2);                                                         \
    GT_L(next) = 0;                                                                                      \
    GT_ITEMS {                                                                                           \
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);                \
        size_t l = linear_id(gt_local_id(0), gt_local_id(1), gt_local_id(2), lx, ly);                    \
        GT_P(mine) = (uint32_t)id;                                                                       \
        GT_L(slot)[l] = (uint32_t)id;                                                                    \
        order[id] = GT_L(next)++;                                                                        \
        hits[REGIONS * id]++;                                                                            \
    }                                                                                                    \
    GT_ITEMS {                                                                                           \
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);                \
        for (size_t l = 0; l < n; l++) {                                                                 \
            size_t lz = l / (lx * ly), r = l % (lx * ly);                                                \
            size_t owner = linear_id(gt_group_id(0) * lx + r % lx, gt_group_id(1) * ly + r / lx,         \
                                     gt_group_id(2) * gt_local_size(2) + lz, gx, gy);                    \
            bad[id] += GT_L(slot)[l] != owner;                                                           \
        }                                                                                                \
        hits[REGIONS * id + 1]++;                                                                        \
    }                                                                                                    \
    GT_ITEMS {                                                                                           \
        size_t id = linear_id(gt_global_id(0), gt_global_id(1), gt_global_id(2), gx, gy);                \
        bad[id] += GT_P(mine) != id;                                                                     \
        hits[REGIONS * id + 2]++;                                                                        \
    }                                                                                                    \
    size_t g = linear_id(gt_group_id(0), gt_group_id(1), gt_group_id(2), gt_num_groups(0), gt_num_groups(1)); \
    seen[g] = (group_seen){(uintptr_t)GT_L(slot), gettid()};

GT_KERNEL_GROUP(barrier_check, (uint32_t slot[MAX_GROUP_ITEMS]; uint32_t next;), uint32_t *, hits, uint32_t *, bad,
                group_seen *, seen, uint32_t *, order)
{
    BARRIER_CHECK_BODY
}

/* The same, compiled for 7 x 4 workgroups as well: a linear walk of that shape runs its own copy
 * of the body, every other walk and shape the general one. */
#define SIZED_X 7
#define SIZED_Y 4
GT_KERNEL_GROUP_SIZED(barrier_check_sized, (SIZED_X, SIZED_Y, 1), (uint32_t slot[MAX_GROUP_ITEMS]; uint32_t next;),
                      uint32_t *, hits, uint32_t *, bad, group_seen *, seen, uint32_t *, order)
{
    BARRIER_CHECK_BODY
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
    uint32_t *hits, *bad, *order;
    group_seen *seen;
    size_t items, groups;
} check_buffers;

static check_buffers buffers_for(const gt_range *r)
{
    check_buffers cb = {.items = r->global[0] * r->global[1] * r->global[2], .groups = gt_range_group_count(r)};
    cb.hits = malloc(REGIONS * cb.items * sizeof *cb.hits);
    cb.bad = malloc(cb.items * sizeof *cb.bad);
    cb.seen = malloc(cb.groups * sizeof *cb.seen);
    cb.order = malloc(cb.items * sizeof *cb.order);
    assert_true(cb.hits && cb.bad && cb.seen && cb.order);
    return cb;
}

static void buffers_free(check_buffers *cb)
{
    free(cb->hits);
    free(cb->bad);
    free(cb->seen);
    free(cb->order);
}

/* Runs kernel k (barrier_check or its sized copy) over r under schedule text, on the pool's
 * workers or (here) on the calling thread alone, and checks every item, region and workgroup. */
static void run_and_check(gt_pool *pool, const gt_kernel_desc *k, bool here, const gt_range *r, const char *text,
                          check_buffers *cb)
{
    memset(cb->hits, 0, REGIONS * cb->items * sizeof *cb->hits);
    memset(cb->bad, 0, cb->items * sizeof *cb->bad);
    memset(cb->seen, 0, cb->groups * sizeof *cb->seen);
    void *args[] = {&cb->hits, &cb->bad, &cb->seen, &cb->order};
    gt_batch b = {.run = k->run, .no_spans = true, .args = args, .range = *r,
                  .schedule = schedule(text)};
    char err[256];
    if ((here ? gt_pool_run_here : gt_pool_run)(pool, &b, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", text, err);
    for (size_t i = 0; i < cb->items; i++) {
        for (unsigned region = 0; region < REGIONS; region++)
            if (cb->hits[REGIONS * i + region] != 1)
                fail_msg("%s: item %zu ran %u times in region %u", text, i, cb->hits[REGIONS * i + region], region);
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
                    run_and_check(pool, &gt_kernel_desc_barrier_check, false, r, text, &cb);
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
    run_and_check(pool, &gt_kernel_desc_barrier_check, true, &r, "item=tiled:3x2", &cb);
    gt_pool_destroy(pool);
    for (size_t g = 1; g < cb.groups; g++) /* one thread: one place, reused */
        assert_int_equal(cb.seen[g].local, cb.seen[0].local);
    buffers_free(&cb);
}

/* A kernel compiled for one workgroup shape (GT_KERNEL_GROUP_SIZED) runs right at that shape and
 * at any other, under every item order, and walks each workgroup's items in the same order as
 * the general kernel: the linear walk at its shape row-major, as the schedule says. */
static void a_sized_kernel_runs_every_shape_in_the_schedules_order(void **state)
{
    (void)state;
    gt_pool *pool;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    const gt_range ranges[] = {
        {.dims = 2, .global = {35, 12, 1}, .local = {SIZED_X, SIZED_Y, 1}}, /* its shape */
        {.dims = 2, .global = {28, 14, 1}, .local = {SIZED_Y, SIZED_X, 1}}, /* transposed */
        {.dims = 1, .global = {320, 1, 1}, .local = {64, 1, 1}},
        {.dims = 3, .global = {14, 8, 2}, .local = {SIZED_X, SIZED_Y, 2}}, /* its rows, stacked */
    };
    const char *items[] = {"linear", "column", "tiled:2x2", "tiled:3x1", "hilbert", "strided:2/1"};
    const char *assigns[] = {"block", "dynamic:1", "stealing"};
    for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++) {
        const gt_range *r = &ranges[ri];
        check_buffers general = buffers_for(r), sized = buffers_for(r);
        for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
            for (size_t a = 0; a < sizeof assigns / sizeof assigns[0]; a++) {
                char text[GT_SCHEDULE_TEXT_MAX];
                snprintf(text, sizeof text, "item=%s,assign=%s", items[i], assigns[a]);
                run_and_check(pool, &gt_kernel_desc_barrier_check, false, r, text, &general);
                run_and_check(pool, &gt_kernel_desc_barrier_check_sized, false, r, text, &sized);
                for (size_t id = 0; id < general.items; id++)
                    if (sized.order[id] != general.order[id])
                        fail_msg("range %zu, %s: item %zu came at position %u in its workgroup, at %u in the general "
                                 "kernel's", ri, text, id, sized.order[id], general.order[id]);
            }
        /* the linear walk: row-major within the workgroup */
        run_and_check(pool, &gt_kernel_desc_barrier_check_sized, true, r, "item=linear", &sized);
        for (size_t z = 0; z < r->global[2]; z++)
            for (size_t y = 0; y < r->global[1]; y++)
                for (size_t x = 0; x < r->global[0]; x++) {
                    size_t id = linear_id(x, y, z, r->global[0], r->global[1]);
                    size_t l = linear_id(x % r->local[0], y % r->local[1], z % r->local[2], r->local[0], r->local[1]);
                    if (sized.order[id] != l)
                        fail_msg("range %zu: item (%zu, %zu, %zu) came at position %u, not %zu", ri, x, y, z,
                                 sized.order[id], l);
                }
        buffers_free(&general);
        buffers_free(&sized);
    }
    gt_pool_destroy(pool);
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
        cmocka_unit_test(a_sized_kernel_runs_every_shape_in_the_schedules_order),
        cmocka_unit_test(record_refuses_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
