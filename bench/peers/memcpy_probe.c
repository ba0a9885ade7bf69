/* memcpy_probe.c: the memory-bandwidth probe the matrix copies are compared with.
 * Each of threads OpenMP threads memcpys one contiguous share of the bytes, so the figure is
 * what the C library's copy reaches with that many threads, whatever a schedule could add. */
#include "bench/peers/omp_twins.h"

#include <limits.h>
#include <omp.h>
#include <string.h>

void gt_memcpy_probe(void *dst, const void *src, size_t bytes, unsigned threads)
{
    if (threads == 0)
        threads = 1;
    if (threads > INT_MAX) /* num_threads takes an int */
        threads = INT_MAX;
    /* Shares differ by at most one byte: the first bytes % threads shares take one more. */
    size_t base = bytes / threads, extra = bytes % threads;
    unsigned char *d = dst;
    const unsigned char *s = src;
    /* A loop over shares rather than one share per thread id: if the runtime gives fewer
     * threads than asked, every share is still copied. schedule(static) so that the caller's
     * run-sched-var (set by gt_omp_twin_run) does not apply here. */
#pragma omp parallel for schedule(static) num_threads((int)threads)
    for (unsigned i = 0; i < threads; i++) {
        size_t start = i * base + (i < extra ? i : extra);
        size_t len = base + (i < extra ? 1 : 0);
        if (len > 0)
            memcpy(d + start, s + start, len);
    }
}
