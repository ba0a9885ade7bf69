/* pool.h: the worker pool and executor, usable in-process without any socket.
 *
 * N worker threads, pinned to CPUs, parked on a condition variable when idle. The pool runs
 * one batch at a time: a set of workgroups of one launch with a schedule. Every workgroup of
 * a batch runs exactly once, whatever the assignment policy and the worker count. Callers
 * from several threads are serialised. */
#ifndef GT_POOL_H
#define GT_POOL_H

#include "counters.h"
#include "probes/probes.h"
#include "tuner/executor.h"
#include "tuner/schedule.h"

#include <gridtune/kernel.h>
#include <gridtune/range.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_POOL_MAX_WORKERS 256

typedef struct gt_pool gt_pool;

typedef struct gt_pool_config {
    unsigned workers; /* 0: the number of online CPUs */
    bool no_pin;      /* true: leave workers unpinned */
    /* NULL: no counters. Borrowed: it must outlive the pool, have a slot per worker and serve
       no other pool; worker i attaches slot i. */
    gt_counters *counters;
    /* NULL: no probes. Borrowed: it must outlive the pool and serve no other pool; worker i is
       watched in probe slot i. A worker the probes cannot watch leaves the pool unprobed. */
    gt_probes *probes;
    /* After its share of a batch each worker polls this long for the next batch before it
       parks, and the submitter as long for the batch's end before it sleeps, each giving its
       CPU to any thread that waits for it (spin.h): back-to-back batches, as the tuner's
       samples are, then cost no wake-up. 0: both sleep at once. */
    unsigned spin_us;
} gt_pool_config;

/* The spin_us gridtuned's executors use unless told otherwise (--executor-spin). */
#define GT_POOL_DEFAULT_SPIN_US 200

/* Workers are pinned round-robin to the CPUs the process may run on, and attach their counters
 * before this returns. Returns 0 or a negative errno with a sentence in err: -EINVAL when the
 * counters have fewer slots than workers, -EBUSY when a slot is already attached (the counters
 * serve another pool), PAPI's failure as an errno when a worker's counters cannot start (rather
 * than a sum that silently misses a worker). The caller owns the pool and frees it with
 * gt_pool_destroy. */
int gt_pool_create(const gt_pool_config *cfg, gt_pool **out, char *err, size_t errlen);
/* Joins the workers. No gt_pool_run may be in progress. */
void gt_pool_destroy(gt_pool *pool);
unsigned gt_pool_workers(const gt_pool *pool);
/* The pool has probes and they watch every worker: batch results carry probe figures. */
bool gt_pool_probed(const gt_pool *pool);
/* The probes' status as the pool's batches see them: status as gt_probes_open left it, made
 * GT_PROBES_UNAVAILABLE, with why, when the probes could not watch every worker; true when it
 * made that change. */
bool gt_pool_probe_status(const gt_pool *pool, gt_probe_status *status);
/* Worker i's thread id and its probe figures since the pool started (zeros without probes). */
void gt_pool_worker_probe(const gt_pool *pool, unsigned i, pid_t *tid, gt_probe_figures *total);

/* One batch: which workgroups of the launch to run, and how.
 * The subset is the box [origin, origin + extent) in workgroup coordinates (an all-zero
 * extent means the whole grid), minus the workgroups whose bit is set in skip, a bitmap over
 * the linear workgroup ids of the whole grid (bit i is skip[i / 8] >> (i % 8) & 1; may be
 * NULL). The group order is applied over the box's shape. */
typedef struct gt_batch {
    gt_workgroup_fn *run;
    bool no_spans; /* the kernel refuses spans (GT_KERNEL_NO_SPANS): a span > 1 is an error */
    void *const *args;
    gt_range range;
    gt_schedule schedule;
    uint32_t box_origin[3];
    uint32_t box_extent[3];
    const uint8_t *skip;
    /* When nruns > 0: run exactly these runs in this order (gt_exec_batch's runs); box and
       skip are not used. Each must lie in one row of the grid and hold at most span
       workgroups. */
    const gt_group_run *runs;
    uint32_t nruns;
} gt_batch;

typedef struct gt_worker_stats {
    uint64_t elapsed_ns; /* from the batch's start to the end of this worker's last workgroup;
                            not timed per workgroup, which would cost more than tiny groups */
    uint64_t groups;     /* workgroups this worker ran */
    /* The counters' change over the batch, read before this worker's first workgroup and after
       its last one (even when it ran none), never per workgroup; in the order of the
       counters' status->used, zeros past ncounters. */
    int64_t counters[GT_COUNTERS_MAX];
    gt_probe_figures probe; /* the probes' figures over the batch, when the result is probed */
} gt_worker_stats;

typedef struct gt_batch_result {
    uint64_t wall_ns; /* from posting the batch to the last worker finishing */
    uint64_t groups;  /* workgroups run in total */
    unsigned workers;
    unsigned ncounters;                /* the counters' status->nused; 0 without counters */
    int64_t counters[GT_COUNTERS_MAX]; /* the workers' counters summed; zeros past ncounters */
    bool probed;                       /* the probes watched every worker over the batch */
    gt_probe_figures probe;            /* their figures summed over the workers */
    uint64_t probe_worst_offcpu_ns;    /* the longest any one worker waited */
    gt_worker_stats worker[GT_POOL_MAX_WORKERS];
} gt_batch_result;

/* Runs the batch and waits for it. batch, its args and the buffers they point at stay the
 * caller's, and must stay valid until this returns. Returns 0, or -EINVAL (bad range, box or schedule) or
 * -ENOMEM, with a sentence in err; nothing runs then. result may be NULL. */
int gt_pool_run(gt_pool *pool, const gt_batch *batch, gt_batch_result *result, char *err, size_t errlen);
/* The same on the calling thread, without waking the workers: for a batch so small that waking
 * them would cost more than its work. It waits for a gt_pool_run in progress, and none starts
 * until it returns. The result has one worker, no counters (the caller has no counters slot:
 * ncounters 0) and no probe figures (probed false). */
int gt_pool_run_here(gt_pool *pool, const gt_batch *batch, gt_batch_result *result, char *err, size_t errlen);

#endif
