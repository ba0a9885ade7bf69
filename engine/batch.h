/* batch.h: turning a batch (range, box, skip bitmap, schedule, or a list of runs) into what the workers walk: the
 * runs of workgroups in group order, and how a workgroup function walks their work-items. */
#ifndef GT_BATCH_H
#define GT_BATCH_H

#include "pool.h"

typedef struct gt_batch_plan {
    gt_range range;     /* normalised: unused dimensions are 1 */
    uint32_t grid[3];   /* workgroups per dimension of the whole launch */
    gt_group_run *runs; /* in schedule order: the spans, cut where a skipped workgroup was */
    uint32_t nruns;
    uint32_t ngroups;   /* workgroups in all runs */
    uint32_t walk;      /* gt_item_walk */
    uint32_t tile[2];   /* GT_WALK_TILED */
    gt_item *items;     /* GT_WALK_LIST: the item order's coordinates; NULL otherwise */
    size_t nitems;
} gt_batch_plan;

/* Returns 0, or -EINVAL / -ENOMEM with a sentence in err. On success the caller frees the
 * plan with gt_batch_plan_free. */
int gt_batch_plan_build(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen);
void gt_batch_plan_free(gt_batch_plan *plan);

#endif
