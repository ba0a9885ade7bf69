/* batch.c: planning a batch.
 * A batch given as runs (the analysis's stretches) is taken as it is, after a bounds check.
 * The group order is applied over the batch's box, not the whole grid, so a sample of a few
 * rows of workgroups is walked the way the candidate would walk the full launch. Workgroups
 * marked in the skip bitmap (already run) are dropped after ordering, which keeps the order of
 * the rest intact; a span they cut becomes the runs on either side. */
#include "batch.h"

#include "tuner/grid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve_box(const gt_batch *b, const uint32_t grid[3], uint32_t origin[3], uint32_t extent[3], char *err,
                       size_t errlen)
{
    bool whole = !b->box_extent[0] && !b->box_extent[1] && !b->box_extent[2];
    for (int d = 0; d < 3; d++) {
        origin[d] = whole ? 0 : b->box_origin[d];
        extent[d] = whole ? grid[d] : b->box_extent[d];
        if (extent[d] == 0 || origin[d] > grid[d] || extent[d] > grid[d] - origin[d]) {
            snprintf(err, errlen,
                     "batch box dimension %d (origin %u, extent %u) does not fit in the grid of %u workgroups", d,
                     b->box_origin[d], b->box_extent[d], grid[d]);
            return -EINVAL;
        }
    }
    return 0;
}

/* Appends the workgroups [x, x + n) of row (y, z) of the grid as runs, cut at skipped ones. A
 * span none of whose workgroups is skipped is one run, found without a test per workgroup. */
static void add_span(gt_batch_plan *plan, const uint8_t *skip, uint32_t x, uint32_t n, uint32_t y, uint32_t z)
{
    uint32_t first = gt_grid_linear(plan->grid, x, y, z);
    if (!gt_bitmap_any(skip, first, first + n)) {
        plan->runs[plan->nruns++] = (gt_group_run){first, n};
        plan->ngroups += n;
        return;
    }
    gt_group_run *last = NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = first + i;
        if (gt_bitmap_test(skip, id)) {
            last = NULL;
            continue;
        }
        if (last)
            last->count++;
        else
            *(last = &plan->runs[plan->nruns++]) = (gt_group_run){id, 1};
        plan->ngroups++;
    }
}

/* The batch's own runs: each inside one row of the grid, at most a span long. */
static int copy_runs(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    plan->runs = malloc((size_t)b->nruns * sizeof *plan->runs);
    if (!plan->runs) {
        snprintf(err, errlen, "out of memory planning %u runs", b->nruns);
        return -ENOMEM;
    }
    uint64_t groups = (uint64_t)plan->grid[0] * plan->grid[1] * plan->grid[2];
    for (uint32_t i = 0; i < b->nruns; i++) {
        gt_group_run run = b->runs[i];
        if (run.count < 1 || run.count > b->schedule.span || run.first >= groups ||
            run.first % plan->grid[0] + run.count > plan->grid[0]) {
            snprintf(err, errlen, "run %u (workgroup %u, %u long) leaves its row of %u workgroups or its span of %u",
                     i, run.first, run.count, plan->grid[0], b->schedule.span);
            return -EINVAL;
        }
        plan->runs[plan->nruns++] = run;
        plan->ngroups += run.count;
    }
    return 0;
}

/* The skipped workgroups inside the box: population counts of eight bytes, then of bytes, where
 * a row's bits cover them whole, one test per workgroup at the edges. */
static uint64_t skipped_in_box(const uint8_t *skip, const uint32_t grid[3], const uint32_t origin[3],
                               const uint32_t extent[3])
{
    uint64_t n = 0;
    for (uint32_t z = 0; skip && z < extent[2]; z++)
        for (uint32_t y = 0; y < extent[1]; y++) {
            uint32_t i = gt_grid_linear(grid, origin[0], origin[1] + y, origin[2] + z), end = i + extent[0];
            for (; i < end && i % 8; i++)
                n += gt_bitmap_test(skip, i);
            for (; (uint64_t)i + 64 <= end; i += 64) {
                uint64_t word;
                memcpy(&word, skip + i / 8, sizeof word);
                n += (uint64_t)__builtin_popcountll(word);
            }
            for (; (uint64_t)i + 8 <= end; i += 8)
                n += (uint64_t)__builtin_popcount(skip[i / 8]);
            for (; i < end; i++)
                n += gt_bitmap_test(skip, i);
        }
    return n;
}

/* The box is cut into spans along x (the last of each row narrower), the group order walks the
 * box of spans, and each span becomes one run, or several where skipped workgroups cut it. */
static int plan_groups(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    uint32_t span = b->schedule.span;
    if (span < 1 || span > GT_SPAN_MAX) {
        snprintf(err, errlen, "span %u: a span runs 1 to %u workgroups", span, GT_SPAN_MAX);
        return -EINVAL;
    }
    if (span > 1 && b->no_spans) {
        snprintf(err, errlen, "span=%u: this kernel runs one workgroup per call and refuses spans", span);
        return -EINVAL;
    }
    if (b->nruns)
        return copy_runs(b, plan, err, errlen);
    uint32_t origin[3], extent[3];
    int rc = resolve_box(b, plan->grid, origin, extent, err, errlen);
    if (rc)
        return rc;
    uint32_t spans[3] = {(extent[0] + span - 1) / span, extent[1], extent[2]};
    uint32_t nspans = spans[0] * spans[1] * spans[2];
    uint32_t ngroups = extent[0] * extent[1] * extent[2];
    uint64_t nskipped = skipped_in_box(b->skip, plan->grid, origin, extent);
    uint32_t *order = malloc((size_t)nspans * sizeof *order);
    /* each skipped workgroup cuts one run in two at most, and one run per workgroup at most */
    uint64_t most_runs = nspans + nskipped < ngroups ? nspans + nskipped : ngroups;
    plan->runs = malloc((size_t)most_runs * sizeof *plan->runs);
    if (!order || !plan->runs) {
        free(order);
        snprintf(err, errlen, "out of memory ordering %u workgroups", ngroups);
        return -ENOMEM;
    }
    rc = gt_order_fill(&b->schedule.group, spans, order);
    if (rc) {
        free(order);
        snprintf(err, errlen, "the group order cannot be applied to a box of %ux%ux%u spans", spans[0], spans[1],
                 spans[2]);
        return rc;
    }
    bool whole_grid = memcmp(extent, plan->grid, sizeof extent) == 0;
    for (uint32_t i = 0; i < nspans && whole_grid && span == 1; i++) /* the order's ids are the grid's */
        if (!gt_bitmap_test(b->skip, order[i])) {
            plan->runs[plan->nruns++] = (gt_group_run){order[i], 1};
            plan->ngroups++;
        }
    for (uint32_t i = 0; i < nspans && !(whole_grid && span == 1); i++) {
        uint32_t c[3];
        gt_grid_coords(spans, order[i], c);
        uint32_t x = c[0] * span, n = extent[0] - x < span ? extent[0] - x : span;
        add_span(plan, b->skip, origin[0] + x, n, origin[1] + c[1], origin[2] + c[2]);
    }
    free(order);
    return 0;
}

/* Linear, column and tiled items are loop nests of the workgroup function; other orders are
 * walked as a list of coordinates. */
static int plan_items(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    const gt_order *o = &b->schedule.item;
    plan->nitems = gt_range_group_items(&plan->range);
    switch (o->kind) {
    case GT_ORDER_LINEAR:
        plan->walk = GT_WALK_LINEAR;
        return 0;
    case GT_ORDER_COLUMN:
        plan->walk = GT_WALK_COLUMN;
        return 0;
    case GT_ORDER_TILED:
        if (o->p1 && o->p2) {
            plan->walk = GT_WALK_TILED;
            plan->tile[0] = o->p1;
            plan->tile[1] = o->p2;
            return 0;
        }
        break; /* gt_order_fill refuses the zero side below */
    default:
        break;
    }
    plan->walk = GT_WALK_LIST;
    uint32_t shape[3] = {(uint32_t)plan->range.local[0], (uint32_t)plan->range.local[1],
                         (uint32_t)plan->range.local[2]};
    uint32_t *perm = malloc(plan->nitems * sizeof *perm);
    plan->items = malloc(plan->nitems * sizeof *plan->items);
    int rc = perm && plan->items ? gt_order_fill(o, shape, perm) : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < plan->nitems; i++) {
        uint32_t c[3];
        gt_grid_coords(shape, perm[i], c);
        plan->items[i] = (gt_item){(uint16_t)c[0], (uint16_t)c[1], (uint16_t)c[2], 0};
    }
    free(perm);
    if (rc)
        snprintf(err, errlen, "cannot order the %zu work-items of a workgroup: %s", plan->nitems,
                 rc == -ENOMEM ? "out of memory" : "bad item order");
    return rc;
}

int gt_batch_plan_build(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    *plan = (gt_batch_plan){0};
    if (!b->run) {
        snprintf(err, errlen, "batch has no workgroup function");
        return -EINVAL;
    }
    int rc = gt_range_check(&b->range, err, errlen);
    if (rc)
        return rc;
    plan->range = gt_range_normalized(&b->range);
    gt_range_groups(&plan->range, plan->grid);
    rc = plan_groups(b, plan, err, errlen);
    if (rc == 0)
        rc = plan_items(b, plan, err, errlen);
    if (rc)
        gt_batch_plan_free(plan);
    return rc;
}

void gt_batch_plan_free(gt_batch_plan *plan)
{
    free(plan->runs);
    free(plan->items);
    plan->runs = NULL;
    plan->items = NULL;
}
