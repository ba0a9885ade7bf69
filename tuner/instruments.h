/* instruments.h: what an executor measures a batch with, and how they stand: the counters
 * (hardware, software or none, and which events) and the probes (on, off or unavailable, and
 * their figures). Filled by the executor's owner (engine/counters.c, probes/probes.c); the
 * tuner, the reports, the logs and the status read them. */
#ifndef GT_INSTRUMENTS_H
#define GT_INSTRUMENTS_H

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

#endif
