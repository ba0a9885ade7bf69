/* clock.h: the monotonic nanosecond clock every timing in gridtune reads. */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t gt_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
