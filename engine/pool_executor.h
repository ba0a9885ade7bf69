/* pool_executor.h: the tuner's executor interface, served by the worker pool.
 * It binds one launch (kernel, bound arguments, range) to a pool, so that the
 * tuner's batches of that launch run on the pool's workers and come back with the wall
 * time and the workers' counters summed. */
#ifndef GT_POOL_EXECUTOR_H
#define GT_POOL_EXECUTOR_H

#include "pool.h"
#include "tuner/executor.h"

typedef struct gt_pool_executor {
    gt_pool *pool;
    const gt_kernel_desc *kernel;
    void *const *args;
    gt_range range;
    bool here; /* run the batches on the calling thread (gt_pool_run_here); false after init */
    gt_batch_result last; /* the pool's full result of the latest batch, per worker */
} gt_pool_executor;

/* Fills pe and exec so that exec runs batches of this launch on pool. pool, args, counters
 * and probes (both may be NULL) are borrowed and must outlive every use of exec; counters must
 * be the ones the pool was created with, and probes the status of the pool's probes. */
void gt_pool_executor_init(gt_pool_executor *pe, gt_pool *pool, const gt_counters *counters,
                           const gt_probe_status *probes, const gt_kernel_desc *kernel, void *const *args,
                           const gt_range *range, gt_executor *exec);
/* Makes exec run its batches on the calling thread (gt_pool_run_here) and tell the tuner what
 * runs them there: one worker, no counters (a metric that needs them falls back to time) and
 * no probes. So the decision is keyed, and the report written, for one worker. */
void gt_pool_executor_run_here(gt_pool_executor *pe, gt_executor *exec);

#endif
