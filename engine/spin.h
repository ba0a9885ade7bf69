/* spin.h: polling for something expected within microseconds (a message, a job), which is
 * cheaper than sleeping and being woken when it comes soon: waking a thread costs tens of
 * microseconds on a virtual machine. The poller gives its CPU to any other thread runnable
 * there between polls, so that when there are more busy threads than CPUs it never holds the
 * CPU that the thread it waits for needs (that cost a whole spin, 200 us, per launch). */
#ifndef GT_SPIN_H
#define GT_SPIN_H

#include <stdbool.h>
#include <stdint.h>

/* Polls ready(ctx) until it says true or spin_ns have passed; true when it said true. */
bool gt_spin_until(uint64_t spin_ns, bool (*ready)(void *ctx), void *ctx);

#endif
