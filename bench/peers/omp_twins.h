/* omp_twins.h: the OpenMP twins of the seed benchmarks, a peer gridtune is measured against.
 * Each twin does the same arithmetic as its GT_KERNEL in kernels/seeds.c, written as the loop
 * nest an OpenMP programmer would write: the range's dimensions as nested loops, dimension 0
 * innermost, and `#pragma omp parallel for schedule(runtime)` on the outermost loop (rows in
 * 2-D, the single loop in 1-D). The schedule kind and chunk are set per call, so one build
 * serves static, dynamic and guided. Twins work on the seed case's own buffers, and their
 * output is checked with the same reference (gt_seed_case_verify). */
#ifndef GT_OMP_TWINS_H
#define GT_OMP_TWINS_H

#include "kernels/seedbench.h"

#include <stddef.h>

typedef enum gt_omp_kind {
    GT_OMP_STATIC,
    GT_OMP_DYNAMIC,
    GT_OMP_GUIDED,
} gt_omp_kind;

#define GT_OMP_KINDS 3

/* "static", "dynamic" or "guided" ("unknown" for any other value). */
const char *gt_omp_kind_name(gt_omp_kind kind);

/* Runs the twin of c's benchmark once over c's buffers with schedule(kind, chunk) on threads
 * threads (chunk >= 1 counts iterations of the parallel loop). Returns 0, or -ENOENT with a
 * sentence in err when the benchmark's kernel has no twin, -EINVAL for a zero chunk or thread
 * count (or either above INT_MAX, or a kind not in gt_omp_kind). The schedule is set with
 * omp_set_schedule, so it stays the calling thread's run-sched-var after the call. */
int gt_omp_twin_run(gt_seed_case *c, gt_omp_kind kind, unsigned chunk, unsigned threads, char *err, size_t errlen);

/* The bandwidth probe: copies bytes from src to dst with threads threads, each one contiguous
 * share, through memcpy. The physical limit the matrix copies are compared with. threads 0
 * copies with one thread. */
void gt_memcpy_probe(void *dst, const void *src, size_t bytes, unsigned threads);

#endif
