/* pool.c: worker threads that run batches of workgroups.
 * Workers are created once, pinned round-robin to the CPUs the process may use, and park on a
 * condition variable between batches, after polling for the next one for spin_us (yielding
 * their CPU meanwhile): an idle daemon costs no CPU, and back-to-back batches no wake-up. The
 * submitter likewise polls for the batch's end before it sleeps. A batch is posted under the
 * pool's mutex (which also publishes the plan to the workers), every worker pulls runs of
 * positions (each a span of workgroups) from the assigner until it is dry, and the last one to finish wakes the caller.
 * A batch too small to pay for waking them runs on the calling thread alone (gt_pool_run_here).
 * Each worker owns a counters slot and reads it once before and once after its share. With
 * probes, each worker is watched in the probe slot of its index, and the submitter reads every
 * worker's probe figures just before posting a batch and just after its last worker is done. */
#include "pool.h"

#include "assign.h"
#include "batch.h"
#include "spin.h"
#include "tuner/clock.h"
#include "tuner/grid.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct worker {
    gt_pool *pool;
    unsigned index;
    int cpu; /* -1: unpinned */
    bool caller; /* not a worker: the thread of gt_pool_run_here, which has no counters slot */
    pthread_t thread;
    int attach_rc; /* gt_counters_thread_attach's result, read by gt_pool_create */
    bool watched;  /* the probes count this thread */
    pid_t tid;
    gt_probe_figures probe_before, probe_after; /* around its share of the batch */
    gt_worker_stats stats;
} worker;

struct gt_pool {
    unsigned nworkers;
    worker *workers;
    gt_counters *counters; /* borrowed; NULL: none */
    gt_probes *probes;     /* borrowed; NULL: none */
    char watch_error[160]; /* why the first worker the probes could not watch was not, or "" */
    pthread_mutex_t submit; /* one batch at a time */

    pthread_mutex_t lock;   /* guards everything below */
    pthread_cond_t wake;    /* workers wait here for a new generation */
    pthread_cond_t done;    /* the creator waits here for starting == 0, a submitter for running == 0 */
    /* written under lock; atomic so that a poller may read them without it */
    _Atomic uint64_t generation;
    unsigned starting; /* workers that have not yet attached their counters */
    _Atomic unsigned running;
    _Atomic bool stopping;
    uint64_t spin_ns; /* set at creation */

    /* the posted batch, read-only for workers while running > 0 */
    const gt_batch *batch;
    gt_batch_plan plan;
    gt_assigner assigner;
    uint64_t start_ns;
};

static void run_share(gt_pool *pool, worker *w)
{
    const gt_batch_plan *plan = &pool->plan;
    gt_group_ctx ctx = {.dims = plan->range.dims,
                        .walk = plan->walk,
                        .tile = {plan->tile[0], plan->tile[1]},
                        .items = plan->items,
                        .nitems = plan->nitems};
    for (int d = 0; d < GT_MAX_DIMS; d++) {
        ctx.global_size[d] = plan->range.global[d];
        ctx.local_size[d] = plan->range.local[d];
        ctx.num_groups[d] = plan->grid[d];
    }
    gt_workgroup_fn *run = pool->batch->run;
    void *const *args = pool->batch->args;
    uint64_t groups = 0;
    uint32_t begin, end;
    int64_t before[GT_COUNTERS_MAX] = {0}, after[GT_COUNTERS_MAX] = {0};
    gt_counters *counters = w->caller ? NULL : pool->counters;
    if (counters)
        gt_counters_thread_read(counters, w->index, before);
    while (gt_assigner_next(&pool->assigner, w->index, &begin, &end)) {
        for (uint32_t p = begin; p < end; p++) {
            uint32_t c[3];
            gt_grid_coords(plan->grid, plan->runs[p].first, c);
            ctx.group_id[0] = c[0];
            ctx.group_id[1] = c[1];
            ctx.group_id[2] = c[2];
            ctx.span = plan->runs[p].count;
            run(&ctx, args);
            groups += ctx.span;
        }
    }
    w->stats = (gt_worker_stats){.elapsed_ns = gt_clock_ns() - pool->start_ns, .groups = groups};
    if (counters) {
        gt_counters_thread_read(counters, w->index, after);
        for (unsigned i = 0; i < gt_counters_status(counters)->nused; i++)
            w->stats.counters[i] = after[i] - before[i];
    }
}

static void pin(worker *w)
{
    if (w->cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        w->cpu = -1; /* a cpuset may forbid it; run unpinned rather than not at all */
}

/* A batch posted after generation seen, or the pool stopping: what a parked worker waits for. */
static bool posted_since(gt_pool *pool, uint64_t seen)
{
    return pool->stopping || pool->generation != seen;
}

typedef struct posted_watch {
    gt_pool *pool;
    uint64_t seen;
} posted_watch;

static bool next_batch_posted(void *ctx)
{
    const posted_watch *w = ctx;
    return posted_since(w->pool, w->seen);
}

static bool batch_done(void *ctx)
{
    return ((gt_pool *)ctx)->running == 0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    gt_pool *pool = w->pool;
    pin(w);
    /* here, on the worker: an event set counts the thread that starts it */
    int rc = pool->counters ? gt_counters_thread_attach(pool->counters, w->index) : 0;
    char why[128];
    pid_t tid = gettid();
    bool watched = pool->probes && gt_probes_watch(pool->probes, w->index, tid, why, sizeof why) == 0;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    w->attach_rc = rc;
    w->watched = watched;
    w->tid = tid;
    if (pool->probes && !watched && !pool->watch_error[0])
        snprintf(pool->watch_error, sizeof pool->watch_error, "worker %u: %.120s", w->index, why);
    if (--pool->starting == 0)
        pthread_cond_signal(&pool->done);
    for (;;) {
        if (pool->spin_ns && !posted_since(pool, seen)) {
            pthread_mutex_unlock(&pool->lock);
            (void)gt_spin_until(pool->spin_ns, next_batch_posted, &(posted_watch){pool, seen});
            pthread_mutex_lock(&pool->lock);
        }
        while (!posted_since(pool, seen))
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stopping)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_share(pool, w);
        /* here, not when the batch ends: a worker that polls for the next batch meanwhile may
           give its CPU to other threads, which is no delay of this batch's */
        if (w->watched)
            gt_probes_read(pool->probes, w->index, &w->probe_after);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    if (rc == 0 && pool->counters)
        gt_counters_thread_detach(pool->counters, w->index);
    if (watched)
        gt_probes_unwatch(pool->probes, tid);
    return NULL;
}

/* The CPUs this process may run on, in order; returns how many. */
static unsigned allowed_cpus(int *cpus, unsigned max)
{
    cpu_set_t set;
    unsigned n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

static int start_workers(gt_pool *pool, bool no_pin, char *err, size_t errlen)
{
    int cpus[CPU_SETSIZE];
    unsigned ncpus = allowed_cpus(cpus, CPU_SETSIZE);
    /* workers must not take the daemon's signals; they inherit this mask. A kernel's own faults
       stay deliverable, so that a handler (an executor's) sees them: on a thread that blocks
       them the kernel kills the process without calling it. */
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS, SIGTRAP, SIGABRT};
    sigset_t all, old;
    sigfillset(&all);
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
        sigdelset(&all, faults[f]);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = 0;
    unsigned i;
    pool->starting = pool->nworkers; /* no worker runs yet: no lock needed */
    for (i = 0; i < pool->nworkers; i++) {
        worker *w = &pool->workers[i];
        *w = (worker){.pool = pool, .index = i, .cpu = no_pin || ncpus == 0 ? -1 : cpus[i % ncpus]};
        rc = pthread_create(&w->thread, NULL, worker_main, w);
        if (rc) {
            snprintf(err, errlen, "cannot start worker thread %u of %u: %s", i + 1, pool->nworkers, strerror(rc));
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&pool->lock);
    pool->starting -= pool->nworkers - i; /* the ones that never started */
    while (pool->starting > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    if (rc) {
        pool->nworkers = i; /* let destroy join the ones that started */
        return -rc;
    }
    return 0;
}

/* The first worker whose counters did not attach, as a sentence. */
static int check_counters(const gt_pool *pool, char *err, size_t errlen)
{
    for (unsigned i = 0; i < pool->nworkers; i++) {
        int rc = pool->workers[i].attach_rc;
        if (rc == -EINVAL)
            snprintf(err, errlen, "the counters object refused slot %u: a pool of %u workers needs counters with "
                     "at least %u slots, one per worker", i, pool->nworkers, pool->nworkers);
        else if (rc == -EBUSY)
            snprintf(err, errlen, "slot %u of the counters object is already attached by another thread; one "
                     "counters object serves one pool", i);
        else if (rc)
            snprintf(err, errlen, "worker %u of %u cannot start its counters: %s", i + 1, pool->nworkers,
                     strerror(-rc));
        if (rc)
            return rc;
    }
    return 0;
}

static unsigned default_workers(void)
{
    int cpus[CPU_SETSIZE];
    unsigned n = allowed_cpus(cpus, CPU_SETSIZE);
    return n ? n : 1;
}

int gt_pool_create(const gt_pool_config *cfg, gt_pool **out, char *err, size_t errlen)
{
    unsigned n = cfg && cfg->workers ? cfg->workers : default_workers();
    if (n > GT_POOL_MAX_WORKERS) {
        snprintf(err, errlen, "%u workers requested; the most a pool can have is %u", n, GT_POOL_MAX_WORKERS);
        return -EINVAL;
    }
    gt_pool *pool = calloc(1, sizeof *pool);
    worker *workers = calloc(n, sizeof *workers);
    if (!pool || !workers) {
        free(pool);
        free(workers);
        snprintf(err, errlen, "out of memory creating a pool of %u workers", n);
        return -ENOMEM;
    }
    pool->nworkers = n;
    pool->workers = workers;
    pool->counters = cfg ? cfg->counters : NULL;
    pool->probes = cfg ? cfg->probes : NULL;
    pool->spin_ns = cfg ? (uint64_t)cfg->spin_us * 1000 : 0;
    pthread_mutex_init(&pool->submit, NULL);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    int rc = start_workers(pool, cfg && cfg->no_pin, err, errlen);
    if (rc == 0)
        rc = check_counters(pool, err, errlen);
    if (rc) {
        gt_pool_destroy(pool);
        return rc;
    }
    *out = pool;
    return 0;
}

void gt_pool_destroy(gt_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->nworkers; i++)
        pthread_join(pool->workers[i].thread, NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->submit);
    free(pool->workers);
    free(pool);
}

unsigned gt_pool_workers(const gt_pool *pool)
{
    return pool->nworkers;
}

bool gt_pool_probed(const gt_pool *pool)
{
    for (unsigned i = 0; pool->probes && i < pool->nworkers; i++)
        if (!pool->workers[i].watched)
            return false;
    return pool->probes != NULL;
}

bool gt_pool_probe_status(const gt_pool *pool, gt_probe_status *status)
{
    if (!pool->probes || gt_pool_probed(pool))
        return false;
    status->state = GT_PROBES_UNAVAILABLE;
    snprintf(status->reason, sizeof status->reason, "the worker threads could not be watched: %.140s",
             pool->watch_error);
    return true;
}

void gt_pool_worker_probe(const gt_pool *pool, unsigned i, pid_t *tid, gt_probe_figures *total)
{
    *tid = pool->workers[i].tid;
    gt_probes_read(pool->probes, i, total);
}

static void probes_before(gt_pool *pool)
{
    for (unsigned i = 0; pool->probes && i < pool->nworkers; i++)
        gt_probes_read(pool->probes, i, &pool->workers[i].probe_before);
}

static void probes_after(const gt_pool *pool, gt_batch_result *res)
{
    res->probed = gt_pool_probed(pool);
    res->probe = (gt_probe_figures){0};
    res->probe_worst_offcpu_ns = 0;
    for (unsigned i = 0; res->probed && i < pool->nworkers; i++) {
        res->worker[i].probe = gt_probe_figures_delta(&pool->workers[i].probe_after, &pool->workers[i].probe_before);
        gt_probe_figures_add(&res->probe, &res->worker[i].probe);
        if (res->worker[i].probe.offcpu_ns > res->probe_worst_offcpu_ns)
            res->probe_worst_offcpu_ns = res->worker[i].probe.offcpu_ns;
    }
}

/* The batch's figures from the n workers that ran it, ncounters counters each. */
static void collect(const gt_pool *pool, const worker *ws, unsigned n, unsigned ncounters, gt_batch_result *res)
{
    res->wall_ns = gt_clock_ns() - pool->start_ns;
    res->workers = n;
    res->groups = 0;
    res->ncounters = ncounters;
    memset(res->counters, 0, sizeof res->counters);
    for (unsigned i = 0; i < n; i++) {
        res->worker[i] = ws[i].stats;
        res->groups += ws[i].stats.groups;
        for (unsigned k = 0; k < ncounters; k++)
            res->counters[k] += ws[i].stats.counters[k];
    }
}

/* Posts the batch to the workers and waits for the last one. pool->submit is held. */
static void run_on_workers(gt_pool *pool, gt_batch_result *result)
{
    pthread_mutex_lock(&pool->lock);
    pool->running = pool->nworkers;
    pool->generation++;
    probes_before(pool);
    pool->start_ns = gt_clock_ns();
    pthread_cond_broadcast(&pool->wake);
    if (pool->spin_ns) {
        pthread_mutex_unlock(&pool->lock);
        (void)gt_spin_until(pool->spin_ns, batch_done, pool);
        pthread_mutex_lock(&pool->lock);
    }
    while (pool->running > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    if (result) {
        collect(pool, pool->workers, pool->nworkers,
                pool->counters ? gt_counters_status(pool->counters)->nused : 0, result);
        probes_after(pool, result);
    }
    pool->batch = NULL;
    pthread_mutex_unlock(&pool->lock);
}

/* The caller runs the same worker loop the workers do (run_share), as the only worker and with
 * no counters slot. pool->submit is held, so no worker reads the pool's batch meanwhile. */
static void run_on_caller(gt_pool *pool, gt_batch_result *result)
{
    worker caller = {.pool = pool, .index = 0, .cpu = -1, .caller = true};
    pool->start_ns = gt_clock_ns();
    run_share(pool, &caller);
    if (result) {
        memset(result, 0, offsetof(gt_batch_result, worker));
        collect(pool, &caller, 1, 0, result);
    }
    pool->batch = NULL;
}

static int run_batch(gt_pool *pool, const gt_batch *batch, gt_batch_result *result, bool here, char *err,
                     size_t errlen)
{
    gt_batch_plan plan;
    int rc = gt_batch_plan_build(batch, &plan, err, errlen);
    if (rc)
        return rc;
    pthread_mutex_lock(&pool->submit);
    /* A chunk counts workgroups, as it did before spans: the assigner hands out runs, so it
       gets chunk / span of them (at least one). Otherwise a chunk chosen for single workgroups
       would hand one worker a whole sample once the spans grow. */
    gt_assign assign = batch->schedule.assign;
    if (gt_assign_has_chunk(assign.kind))
        assign.chunk = assign.chunk / batch->schedule.span ? assign.chunk / batch->schedule.span : 1;
    if (gt_assigner_init(&pool->assigner, &assign, plan.nruns, here ? 1 : pool->nworkers) != 0) {
        pthread_mutex_unlock(&pool->submit);
        gt_batch_plan_free(&plan);
        snprintf(err, errlen, "out of memory assigning %u workgroups", plan.ngroups);
        return -ENOMEM;
    }
    pool->batch = batch; /* published to the workers by pool->lock, taken before they are woken */
    pool->plan = plan;
    if (here)
        run_on_caller(pool, result);
    else
        run_on_workers(pool, result);
    gt_assigner_destroy(&pool->assigner);
    pthread_mutex_unlock(&pool->submit);
    gt_batch_plan_free(&plan);
    return 0;
}

int gt_pool_run(gt_pool *pool, const gt_batch *batch, gt_batch_result *result, char *err, size_t errlen)
{
    return run_batch(pool, batch, result, false, err, errlen);
}

int gt_pool_run_here(gt_pool *pool, const gt_batch *batch, gt_batch_result *result, char *err, size_t errlen)
{
    return run_batch(pool, batch, result, true, err, errlen);
}
