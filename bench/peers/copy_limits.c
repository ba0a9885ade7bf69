/* copy_limits.c: gridtune-copy-limits, what a copy of an n x n float matrix can reach on this
 * machine, by the code that does it. copy_rows' target compares gridtune with one memcpy of the
 * whole matrix (memcpy_probe.c); this puts the ways a kernel could copy beside it, with OpenMP
 * threads, in interleaved rounds:
 *   loop          a plain store loop over each row, as the OpenMP twin and the seed kernel do;
 *   stream        the same with non-temporal (streaming) stores, which skip reading the
 *                 destination's lines before writing them;
 *   row memcpy    a memcpy call for each 4 KiB piece of a row (gcc turns a copy loop over
 *                 restrict pointers into such calls), the most a kernel that copies a span of
 *                 a row at a time could hand to the C library;
 *   memcpy        one memcpy per thread of its whole share, the bandwidth probe.
 * Usage: gridtune-copy-limits [N [ROUNDS]] (default 16384 5). Prints each way's median in ms
 * and its share of memcpy's bandwidth. */
#include "bench/peers/omp_twins.h"
#include "tuner/clock.h"
#include "tuner/stats.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

enum { LOOP, STREAM, ROW_MEMCPY, MEMCPY, WAYS, MAX_ROUNDS = 64, SPAN = 1024 };
static const char *const names[WAYS] = {"loop", "stream", "row memcpy", "memcpy"};

/* Called through a pointer, so that the compiler cannot put its own inline copy (rep movs) in
   place of the C library's. */
static void *(*volatile library_memcpy)(void *, const void *, size_t) = memcpy;

static void copy(int way, float *dst, const float *src, size_t n)
{
    if (way == MEMCPY) {
        gt_memcpy_probe(dst, src, n * n * sizeof *dst, (unsigned)omp_get_max_threads());
        return;
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t y = 0; y < n; y++) {
        float *d = dst + y * n;
        const float *s = src + y * n;
        if (way == LOOP) {
            for (size_t x = 0; x < n; x++)
                d[x] = s[x];
        } else if (way == STREAM) {
#ifdef __SSE__
            for (size_t x = 0; x < n; x += 4)
                _mm_stream_ps(d + x, _mm_loadu_ps(s + x));
#else
            for (size_t x = 0; x < n; x++) /* no streaming stores here: a plain loop again */
                d[x] = s[x];
#endif
        } else {
            for (size_t x = 0; x < n; x += SPAN)
                library_memcpy(d + x, s + x, (n - x < SPAN ? n - x : SPAN) * sizeof *d);
        }
    }
#ifdef __SSE__
    _mm_sfence();
#endif
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: gridtune-copy-limits [N [ROUNDS]]\nTimes the ways an n x n float copy can be done "
               "(store loop, streaming stores, row memcpy, whole memcpy) in interleaved rounds.\n"
               "N is a multiple of 4 (default 16384); ROUNDS 1..%d (default 5).\n", MAX_ROUNDS);
        return 0;
    }
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 16384;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (n == 0 || n % 4 || n > 65536 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "gridtune-copy-limits: N must be a multiple of 4 up to 65536 and ROUNDS 1..%d\n",
                MAX_ROUNDS);
        return 2;
    }
    size_t bytes = n * n * sizeof(float);
    /* the same memory the OpenMP twins get */
    float *src = gt_seed_buffer_alloc(bytes), *dst = gt_seed_buffer_alloc(bytes);
    if (!src || !dst) {
        fprintf(stderr, "gridtune-copy-limits: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    double ms[WAYS][MAX_ROUNDS];
    for (int w = 0; w < WAYS; w++) { /* round -1 warms up, untimed, and checks each way's copy */
        memset(dst, 2, bytes);
        copy(w, dst, src, n);
        if (memcmp(dst, src, bytes) != 0) {
            fprintf(stderr, "gridtune-copy-limits: the %s copy is wrong\n", names[w]);
            return 1;
        }
    }
    for (int r = 0; r < rounds; r++)
        for (int w = 0; w < WAYS; w++) {
            uint64_t t0 = gt_clock_ns();
            copy(w, dst, src, n);
            ms[w][r] = (double)(gt_clock_ns() - t0) / 1e6;
        }
    printf("n=%zu, %d threads, median of %d rounds (2 x %.0f MiB moved per copy)\n", n, omp_get_max_threads(),
           rounds, (double)bytes / (1 << 20));
    double med[WAYS];
    for (int w = 0; w < WAYS; w++)
        med[w] = gt_stats_median(ms[w], (size_t)rounds);
    for (int w = 0; w < WAYS; w++)
        printf("  %-11s %8.1f ms  %5.1f GB/s  %3.0f%% of memcpy\n", names[w], med[w], 2.0 * (double)bytes / med[w] / 1e6,
               100.0 * med[MEMCPY] / med[w]);
    free(src);
    free(dst);
    return 0;
}
