/* pool_executor.c: tuner batches onto the worker pool. */
#include "pool_executor.h"

#include <string.h>

static int pool_executor_run(void *ctx, const gt_exec_batch *b, gt_exec_result *r, char *err, size_t errlen)
{
    gt_pool_executor *pe = ctx;
    gt_batch batch = {
        .run = pe->kernel->run,
        .no_spans = pe->kernel->flags & GT_KERNEL_NO_SPANS,
        .args = pe->args,
        .range = pe->range,
        .schedule = b->schedule,
        .skip = b->skip,
        .runs = b->runs,
        .nruns = b->nruns,
    };
    memcpy(batch.box_origin, b->box_origin, sizeof batch.box_origin);
    memcpy(batch.box_extent, b->box_extent, sizeof batch.box_extent);
    int rc = pe->here ? gt_pool_run_here(pe->pool, &batch, &pe->last, err, errlen)
                      : gt_pool_run(pe->pool, &batch, &pe->last, err, errlen);
    if (rc < 0)
        return rc;
    memset(r, 0, sizeof *r);
    r->wall_ns = pe->last.wall_ns;
    r->groups = pe->last.groups;
    memcpy(r->counters, pe->last.counters, sizeof r->counters);
    r->probed = pe->last.probed;
    r->probe = pe->last.probe;
    r->worst_offcpu_ns = pe->last.probe_worst_offcpu_ns;
    return 0;
}

void gt_pool_executor_init(gt_pool_executor *pe, gt_pool *pool, const gt_counters *counters,
                           const gt_probe_status *probes, const gt_kernel_desc *kernel, void *const *args,
                           const gt_range *range, gt_executor *exec)
{
    pe->pool = pool;
    pe->kernel = kernel;
    pe->args = args;
    pe->range = *range;
    pe->here = false;
    *exec = (gt_executor){
        .run = pool_executor_run,
        .ctx = pe,
        .workers = gt_pool_workers(pool),
        .no_spans = kernel->flags & GT_KERNEL_NO_SPANS,
        .counters = counters ? gt_counters_status(counters) : NULL,
        .probes = probes,
    };
}

void gt_pool_executor_run_here(gt_pool_executor *pe, gt_executor *exec)
{
    pe->here = true;
    exec->workers = 1;
    exec->counters = NULL;
    exec->probes = NULL;
}
