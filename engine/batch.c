/* batch.c: planning a batch.
 * The group order is applied over the batch's box, not the whole grid, so a sample of a few
 * rows of workgroups is walked the way the candidate would walk the full launch. Workgroups
 * marked in the skip bitmap (already run) are dropped after ordering, which keeps the order of
 * the rest intact. */
#include "batch.h"

#include "tuner/grid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static bool skipped(const uint8_t *skip, uint32_t id)
{
    return skip && (skip[id / 8] >> (id % 8) & 1);
}

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

static int plan_groups(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    uint32_t origin[3], extent[3];
    int rc = resolve_box(b, plan->grid, origin, extent, err, errlen);
    if (rc)
        return rc;
    uint32_t n = extent[0] * extent[1] * extent[2];
    plan->groups = malloc((size_t)n * sizeof *plan->groups);
    if (!plan->groups) {
        snprintf(err, errlen, "out of memory ordering %u workgroups", n);
        return -ENOMEM;
    }
    rc = gt_order_fill(&b->schedule.group, extent, plan->groups);
    if (rc) {
        snprintf(err, errlen, "the group order cannot be applied to a box of %ux%ux%u workgroups", extent[0],
                 extent[1], extent[2]);
        return rc;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c[3];
        gt_grid_coords(extent, plan->groups[i], c);
        uint32_t id = gt_grid_linear(plan->grid, origin[0] + c[0], origin[1] + c[1], origin[2] + c[2]);
        if (!skipped(b->skip, id))
            plan->groups[kept++] = id;
    }
    plan->ngroups = kept;
    return 0;
}

static int plan_items(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen)
{
    plan->nitems = gt_range_group_items(&plan->range);
    if (b->schedule.item.kind == GT_ORDER_LINEAR)
        return 0; /* the kernel's own nested loop, which the compiler vectorises */
    uint32_t shape[3] = {(uint32_t)plan->range.local[0], (uint32_t)plan->range.local[1],
                         (uint32_t)plan->range.local[2]};
    uint32_t *perm = malloc(plan->nitems * sizeof *perm);
    plan->items = malloc(plan->nitems * sizeof *plan->items);
    int rc = perm && plan->items ? gt_order_fill(&b->schedule.item, shape, perm) : -ENOMEM;
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
    free(plan->groups);
    free(plan->items);
    plan->groups = NULL;
    plan->items = NULL;
}
