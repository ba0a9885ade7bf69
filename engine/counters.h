/* counters.h: PAPI counters, one event set per worker thread.
 * gt_counters_create checks the asked-for events once; each worker thread then attaches,
 * which creates and starts its own event set (PAPI_thread_init is done here), and reads its
 * values around every batch it runs: counters are read per batch, never per work-item. When
 * no asked-for event can be counted (a virtual machine without a PMU), perf::TASK-CLOCK is
 * used instead and the status says so; when PAPI itself is unusable, no counters are read. */
#ifndef GT_COUNTERS_H
#define GT_COUNTERS_H

#include "tuner/instruments.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gt_counters gt_counters;

/* The events tried when none are given: PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM. */
extern const char *const gt_counters_default_events[];
extern const unsigned gt_counters_default_nevents;

/* events: names PAPI knows (presets, native names such as "perf::TASK-CLOCK" or
 * "rapl:::PACKAGE_ENERGY:PACKAGE0"); NULL for the default list (nevents is then ignored).
 * slots: the most threads that will attach. The events are probed on the calling thread;
 * those that cannot be added are listed in the status with PAPI's reason, and the status's
 * used lists the others in asked order. Returns 0 (also in the software and none modes), or
 * -EINVAL for no events, more than GT_COUNTERS_MAX, an empty, too long or repeated name, or 0
 * slots, -ENOMEM; with a sentence in err. The caller owns *out. */
int gt_counters_create(const char *const *events, unsigned nevents, unsigned slots,
                       gt_counters **out, char *err, size_t errlen);
/* All threads must have detached. */
void gt_counters_destroy(gt_counters *c);
const gt_counter_status *gt_counters_status(const gt_counters *c);

/* On the worker thread: register it with PAPI, create, fill and start its event set in
 * slot. One slot per thread, one thread per slot; slots of different threads may be used
 * concurrently. Returns 0 (a no-op when nothing is counted), -EINVAL for a slot out of
 * range, -EBUSY for a slot already attached, or another negative errno when PAPI fails; a
 * slot that failed reads zeros and needs no detach. */
int gt_counters_thread_attach(gt_counters *c, unsigned slot);
/* On the same thread: the values counted since attach, status->nused of them (zeros when
 * unusable). Callers take differences of two reads. */
void gt_counters_thread_read(gt_counters *c, unsigned slot, int64_t *values);
/* On the same thread: stop and free the slot's event set, unregister the thread. */
void gt_counters_thread_detach(gt_counters *c, unsigned slot);

#endif
