/* executor.h: the interface through which the tuner runs workgroups.
 * The tuner never touches threads: it asks an executor to run a batch (a box of the grid,
 * minus a skip bitmap, under one schedule) and gets back the wall time and the counter
 * values of that batch (instruments.h). The daemon's pool implements it
 * (engine/pool_executor.c); the tests implement it with a deterministic cost model. */
#ifndef GT_EXECUTOR_H
#define GT_EXECUTOR_H

#include "instruments.h"
#include "schedule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Consecutive workgroups along dimension 0 (a span, or the part of one that skipped workgroups
 * left), run by one call of the workgroup function. */
typedef struct gt_group_run {
    uint32_t first; /* the linear id of the first */
    uint32_t count; /* 1 .. the schedule's span */
} gt_group_run;

typedef struct gt_exec_batch {
    gt_schedule schedule;
    /* The box [origin, origin + extent) in workgroup coordinates; an all-zero extent means
       the whole grid. */
    uint32_t box_origin[3];
    uint32_t box_extent[3];
    /* Bitmap over the linear workgroup ids of the whole grid: bit i set = do not run group i.
       May be NULL. */
    const uint8_t *skip;
    /* When nruns > 0, the batch is exactly these runs, in this order, handed out to the
       workers by the schedule's assignment; box and skip are not used then. The analysis
       plans its samples this way (stretch.h). */
    const gt_group_run *runs;
    uint32_t nruns;
} gt_exec_batch;

typedef struct gt_exec_result {
    uint64_t wall_ns; /* from the batch's start to its last workgroup's end */
    uint64_t groups;  /* workgroups run */
    /* Counter values summed over the workers, in the order of counters->used. */
    int64_t counters[GT_COUNTERS_MAX];
    bool probed;            /* probe figures were read around the batch */
    gt_probe_figures probe; /* their change over the batch, summed over the workers */
    uint64_t worst_offcpu_ns; /* the longest any one worker waited for other tasks */
} gt_exec_result;

typedef struct gt_executor {
    /* Runs the batch and waits for it. Returns 0, or a negative errno with a sentence in
       err; the batch did not run then. */
    int (*run)(void *ctx, const gt_exec_batch *batch, gt_exec_result *result, char *err, size_t errlen);
    void *ctx;
    unsigned workers;
    bool no_spans; /* the kernel runs one workgroup per call: analysis leaves the span axis out */
    const gt_counter_status *counters; /* may be NULL: no counters, wall time only */
    const gt_probe_status *probes;     /* may be NULL: no probes */
} gt_executor;

#endif
