/* clock.h: the one home of gridtune's clocks: the monotonic clock every timing reads (in ns and
 * ms), the wall clock in Unix milliseconds that stamps reports and deadlines, and a sleep of
 * some milliseconds. It lives in the lowest layer because the probes read the monotonic clock
 * too (the same clock as bpf_ktime_get_ns); header-only, so it links nothing. */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

/* The monotonic clock, in nanoseconds. */
static inline uint64_t gt_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Clock id in milliseconds; the two below name the clocks. */
static inline int64_t gt_clock_read_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The monotonic clock, in milliseconds: for timeouts and polling. */
static inline int64_t gt_clock_ms(void)
{
    return gt_clock_read_ms(CLOCK_MONOTONIC);
}

/* The wall clock, in milliseconds since the Unix epoch. */
static inline int64_t gt_clock_unix_ms(void)
{
    return gt_clock_read_ms(CLOCK_REALTIME);
}

/* Sleeps ms milliseconds, the whole of them also when a signal interrupts. */
static inline void gt_clock_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

#endif
