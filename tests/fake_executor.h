/* fake_executor.h: a deterministic executor for tuner tests.
 * It runs nothing; it counts how often each workgroup was handed to it and reports a wall
 * time from a cost model: every workgroup costs base_ns, times the factor of each schedule
 * part the model names (e.g. "item=tiled:4x4" 0.5), times a drift that grows linearly along
 * the grid's linear order, divided by the worker count. Counter values follow the same model.
 * A tenant may take time from the sample batches (boxes) of one schedule part: it preempts a
 * worker for tenant_ns in every tenant_period-th such batch, which the fake's probes (when
 * added) see. */
#ifndef GT_FAKE_EXECUTOR_H
#define GT_FAKE_EXECUTOR_H

#include "tuner/executor.h"

#include <gridtune/range.h>
#include <stdint.h>

#define FAKE_FACTORS_MAX 16

typedef struct fake_factor {
    const char *part; /* "group=tiled:4x4", "item=column" or "assign=block" */
    double factor;    /* multiplies the cost of every workgroup run under it */
    double cpi;       /* multiplies the cycles per instruction instead (0: leave alone) */
} fake_factor;

typedef struct fake_executor {
    uint32_t grid[3];
    uint64_t groups;
    unsigned workers;
    double base_ns;
    double drift;         /* the last workgroup costs (1 + drift) times the first */
    fake_factor factors[FAKE_FACTORS_MAX];
    unsigned nfactors;
    uint8_t *runs;        /* times each workgroup ran */
    unsigned batches;
    int fail_at_batch;    /* 1-based batch number that fails with -EIO; 0 never */
    gt_counter_status counters;
    gt_probe_status probes;  /* state on once fake_executor_add_probes ran */
    bool probed;
    const char *tenant_part; /* NULL: no tenant */
    unsigned tenant_period;
    unsigned tenant_seen;    /* batches of tenant_part so far */
    uint64_t tenant_ns;
    unsigned disturbed;      /* batches the tenant took time from */
} fake_executor;

/* Sets up a fake for range with `workers`, no counters. Free with fake_executor_fini. */
void fake_executor_init(fake_executor *f, const gt_range *range, unsigned workers, gt_executor *exec);
void fake_executor_fini(fake_executor *f);
/* Adds counters named PAPI_TOT_CYC and PAPI_TOT_INS, in hardware mode. */
void fake_executor_add_cycle_counters(fake_executor *f, gt_executor *exec);
void fake_executor_factor(fake_executor *f, const char *part, double factor, double cpi);
/* Batches come with probe figures from now on. */
void fake_executor_add_probes(fake_executor *f, gt_executor *exec);
/* Every period-th batch of a schedule with part ("" for every schedule) loses ns to a tenant. */
void fake_executor_tenant(fake_executor *f, const char *part, unsigned period, uint64_t ns);
/* Workgroups run a number of times other than once; 0 when all ran exactly once. */
uint64_t fake_executor_miscounted(const fake_executor *f);

#endif
