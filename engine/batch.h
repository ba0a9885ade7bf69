/* batch.h: turning a batch (range, box, skip bitmap, schedule) into the two lists the workers
 * walk: the workgroups in group order, and the work-items of one workgroup in item order. */
#ifndef GT_BATCH_H
#define GT_BATCH_H

#include "pool.h"

typedef struct gt_batch_plan {
    gt_range range;    /* normalised: unused dimensions are 1 */
    uint32_t grid[3];  /* workgroups per dimension of the whole launch */
    uint32_t *groups;  /* linear workgroup ids in schedule order */
    uint32_t ngroups;
    gt_item *items;    /* NULL for the linear item order */
    size_t nitems;
} gt_batch_plan;

/* Returns 0, or -EINVAL / -ENOMEM with a sentence in err. On success the caller frees the
 * plan with gt_batch_plan_free. */
int gt_batch_plan_build(const gt_batch *b, gt_batch_plan *plan, char *err, size_t errlen);
void gt_batch_plan_free(gt_batch_plan *plan);

#endif
