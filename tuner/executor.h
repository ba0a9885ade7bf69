/* executor.h: the interface through which the tuner runs workgroups.
 * The tuner never touches threads: it asks an executor to run a batch (a box of the grid,
 * minus a skip bitmap, under one schedule) and gets back the wall time and the counter
 * values of that batch. The daemon's pool implements it (engine/pool_executor.c); the tests
 * implement it with a deterministic cost model. */
#ifndef GT_EXECUTOR_H
#define GT_EXECUTOR_H

#include "schedule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most counters an executor reports per batch. */
#define GT_COUNTERS_MAX 8
/* Room for a counter's name, such as "perf::TASK-CLOCK", terminator included. */
#define GT_COUNTER_NAME_MAX 64

/* Which counters an executor reads, and which it could not, with the counter library's
 * reason. Filled by the executor's owner (engine/counters.c for the pool). */
#define GT_COUNTERS_UNAVAILABLE_MAX 16
typedef enum gt_counter_mode {
    GT_COUNTERS_HARDWARE, /* at least one asked-for event is counted */
    GT_COUNTERS_SOFTWARE, /* none was: perf::TASK-CLOCK and the monotonic clock instead */
    GT_COUNTERS_NONE,     /* the counter library is unusable: the monotonic clock only */
} gt_counter_mode;

typedef struct gt_counter_status {
    gt_counter_mode mode;
    unsigned nused;
    char used[GT_COUNTERS_MAX][GT_COUNTER_NAME_MAX];
    unsigned nunavailable;
    struct {
        char name[GT_COUNTER_NAME_MAX];
        char reason[128];
    } unavailable[GT_COUNTERS_UNAVAILABLE_MAX];
    char note[192]; /* one sentence on the mode, e.g. why it fell back */
} gt_counter_status;

const char *gt_counter_mode_name(gt_counter_mode m);

/* What the probes (probes/) saw of the workers while a batch ran, summed over the workers. */
typedef struct gt_probe_figures {
    uint64_t involuntary_switches; /* switched out while still runnable */
    uint64_t offcpu_ns;            /* time spent runnable but not running: taken by others */
    uint64_t migrations;           /* moves to another CPU */
    uint64_t page_faults;          /* user-mode page faults; 0 when page_faults is not watched */
} gt_probe_figures;

typedef enum gt_probe_state {
    GT_PROBES_ON,          /* loaded and attached; batches come with figures */
    GT_PROBES_OFF,         /* turned off (gridtuned --no-probes) */
    GT_PROBES_UNAVAILABLE, /* could not load or attach; reason says why */
} gt_probe_state;

typedef struct gt_probe_status {
    gt_probe_state state;
    bool page_faults; /* the page-fault tracepoint is attached too */
    char reason[192]; /* why off or unavailable, or which tracepoints are attached */
} gt_probe_status;

const char *gt_probe_state_name(gt_probe_state s);
/* "on", "off (reason)" or "unavailable (reason)": the one line logs, status and reports show. */
void gt_probe_status_summary(const gt_probe_status *st, char *out, size_t outlen);

typedef struct gt_exec_batch {
    gt_schedule schedule;
    /* The box [origin, origin + extent) in workgroup coordinates; an all-zero extent means
       the whole grid. */
    uint32_t box_origin[3];
    uint32_t box_extent[3];
    /* Bitmap over the linear workgroup ids of the whole grid: bit i set = do not run group i.
       May be NULL. */
    const uint8_t *skip;
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
    const gt_counter_status *counters; /* may be NULL: no counters, wall time only */
    const gt_probe_status *probes;     /* may be NULL: no probes */
} gt_executor;

#endif
