/* spin.c: polling that yields (spin.h). */
#include "spin.h"

#include "tuner/clock.h"

#include <sched.h>

bool gt_spin_until(uint64_t spin_ns, bool (*ready)(void *ctx), void *ctx)
{
    uint64_t end = gt_clock_ns() + spin_ns;
    for (;;) {
        if (ready(ctx))
            return true;
        if (gt_clock_ns() >= end)
            return false;
        /* returns at once when no other thread waits for this CPU */
        sched_yield();
    }
}
