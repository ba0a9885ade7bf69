/* omp_twins.c: the OpenMP twins of the seed kernels (kernels/seeds.c), one function each.
 * A twin is the kernel's body inside the loop nest of its range: dimension 1 (y) outermost and
 * shared out by `omp parallel for schedule(runtime)`, dimension 0 (x) innermost and plain, so
 * that gcc -O3 vectorises it where the kernel's own linear item order would be. Bodies keep the
 * kernels' arithmetic and summation order, so outputs pass the same verification. */
#include "bench/peers/omp_twins.h"

#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Buffer indices of every seed case: the output first, then the inputs in parameter order. */
enum { BUF_OUT = 0, BUF_IN = 1, BUF_WEIGHTS = 2 };

#define CONV_TAPS 11

typedef void twin_fn(const gt_seed_case *c, int threads);

/* ---- 1-D: one parallel iteration per work-item, each walking a whole row or column -------- */

static void twin_integral_rows(const gt_seed_case *c, int threads)
{
    uint32_t *out = c->buffers[BUF_OUT];
    const uint32_t *in = c->buffers[BUF_IN];
    size_t items = c->range.global[0], w = c->n;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t y = 0; y < items; y++) {
        uint32_t sum = 0;
        for (size_t x = 0; x < w; x++) {
            sum += in[y * w + x];
            out[y * w + x] = sum;
        }
    }
}

static void twin_integral_cols(const gt_seed_case *c, int threads)
{
    uint32_t *out = c->buffers[BUF_OUT];
    const uint32_t *in = c->buffers[BUF_IN];
    size_t items = c->range.global[0], w = c->n;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t x = 0; x < items; x++) {
        uint32_t sum = 0;
        for (size_t y = 0; y < w; y++) {
            sum += in[y * w + x];
            out[y * w + x] = sum;
        }
    }
}

/* ---- 2-D: rows in parallel, x innermost ---------------------------------------------------- */

static void twin_conv11(const gt_seed_case *c, int threads)
{
    float *out = c->buffers[BUF_OUT];
    const float *in = c->buffers[BUF_IN], *weights = c->buffers[BUF_WEIGHTS];
    size_t rows = c->range.global[1], cols = c->range.global[0], n = c->n, w = n + CONV_TAPS - 1;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < cols; x++) {
            float acc = 0.0f;
            for (size_t dy = 0; dy < CONV_TAPS; dy++)
                for (size_t dx = 0; dx < CONV_TAPS; dx++)
                    acc += in[(y + dy) * w + x + dx] * weights[dy * CONV_TAPS + dx];
            out[y * n + x] = acc;
        }
}

static void twin_matmul(const gt_seed_case *c, int threads)
{
    float *out = c->buffers[BUF_OUT];
    const float *a = c->buffers[BUF_IN], *b = c->buffers[BUF_WEIGHTS];
    size_t rows = c->range.global[1], cols = c->range.global[0], w = c->n;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < cols; x++) {
            float acc = 0.0f;
            for (size_t k = 0; k < w; k++)
                acc += a[y * w + k] * b[k * w + x];
            out[y * w + x] = acc;
        }
}

/* The three copies differ only in where element (x, y) is read and written; each keeps its
 * kernel's access pattern (copy_cols on purpose: consecutive x are n elements apart). */
#define COPY_TWIN(name, dst_at, src_at)                                                              \
    static void name(const gt_seed_case *c, int threads)                                           \
    {                                                                                              \
        float *dst = c->buffers[BUF_OUT];                                                          \
        const float *src = c->buffers[BUF_IN];                                                     \
        size_t rows = c->range.global[1], cols = c->range.global[0], n = c->n;                     \
        _Pragma("omp parallel for schedule(runtime) num_threads(threads)")                         \
        for (size_t y = 0; y < rows; y++)                                                          \
            for (size_t x = 0; x < cols; x++)                                                      \
                dst[dst_at] = src[src_at];                                                         \
    }

COPY_TWIN(twin_copy_rows, y * n + x, y * n + x)
COPY_TWIN(twin_copy_cols, x * n + y, x * n + y)
COPY_TWIN(twin_transpose, x * n + y, y * n + x)

/* ---- the workgroup kernels' twins, as an OpenMP programmer writes them -------------------- */

/* No tiles: the cache-friendly row loop (i, k, j), which sums each c[y][x] over k in order. */
static void twin_matmul_tiled(const gt_seed_case *c, int threads)
{
    float *out = c->buffers[BUF_OUT];
    const float *a = c->buffers[BUF_IN], *b = c->buffers[BUF_WEIGHTS];
    size_t w = c->n;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t y = 0; y < w; y++) {
        float *row = out + y * w;
        for (size_t x = 0; x < w; x++)
            row[x] = 0.0f;
        for (size_t k = 0; k < w; k++) {
            float aik = a[y * w + k];
            for (size_t x = 0; x < w; x++)
                row[x] += aik * b[k * w + x];
        }
    }
}

/* One sum per 16 rows, each a SIMD reduction (its own order: checked within the tolerance). */
static void twin_reduce(const gt_seed_case *c, int threads)
{
    float *sums = c->buffers[BUF_OUT];
    const float *src = c->buffers[BUF_IN];
    size_t stretch = 16 * c->n, groups = c->n / 16;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t g = 0; g < groups; g++) {
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (size_t i = 0; i < stretch; i++)
            s += src[g * stretch + i];
        sums[g] = s;
    }
}

static void twin_stencil5(const gt_seed_case *c, int threads)
{
    float *out = c->buffers[BUF_OUT];
    const float *in = c->buffers[BUF_IN];
    size_t n = c->n, w = n + 2;
#pragma omp parallel for schedule(runtime) num_threads(threads)
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            size_t at = (y + 1) * w + x + 1;
            out[y * n + x] = 0.5f * in[at] + 0.125f * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
        }
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Keyed by the kernel's name: a twin stands for a GT_KERNEL, whichever benchmark launches it. */
static const struct {
    const char *kernel;
    twin_fn *run;
} twins[] = {
    {"integral_rows", twin_integral_rows},
    {"integral_cols", twin_integral_cols},
    {"conv11", twin_conv11},
    {"matmul", twin_matmul},
    {"copy_rows", twin_copy_rows},
    {"copy_cols", twin_copy_cols},
    {"transpose", twin_transpose},
    {"matmul_tiled", twin_matmul_tiled},
    {"reduce", twin_reduce},
    {"stencil5", twin_stencil5},
};

static const struct {
    const char *name;
    omp_sched_t sched;
} kinds[GT_OMP_KINDS] = {
    [GT_OMP_STATIC] = {"static", omp_sched_static},
    [GT_OMP_DYNAMIC] = {"dynamic", omp_sched_dynamic},
    [GT_OMP_GUIDED] = {"guided", omp_sched_guided},
};

const char *gt_omp_kind_name(gt_omp_kind kind)
{
    return (unsigned)kind < GT_OMP_KINDS ? kinds[kind].name : "unknown";
}

static twin_fn *twin_find(const char *kernel)
{
    for (size_t i = 0; i < sizeof twins / sizeof twins[0]; i++)
        if (strcmp(twins[i].kernel, kernel) == 0)
            return twins[i].run;
    return NULL;
}

int gt_omp_twin_run(gt_seed_case *c, gt_omp_kind kind, unsigned chunk, unsigned threads, char *err, size_t errlen)
{
    twin_fn *run = twin_find(c->bench->kernel);
    if (!run) {
        snprintf(err, errlen, "%s: kernel %s has no OpenMP twin", c->bench->name, c->bench->kernel);
        return -ENOENT;
    }
    if ((unsigned)kind >= GT_OMP_KINDS) {
        snprintf(err, errlen, "%s: OpenMP schedule kind %d is not static, dynamic or guided", c->bench->name,
                 (int)kind);
        return -EINVAL;
    }
    /* OpenMP takes both as int; 0 would silently mean "the runtime's default". */
    if (chunk == 0 || chunk > INT_MAX) {
        snprintf(err, errlen, "%s: OpenMP chunk %u is out of range; expected 1 to %d iterations", c->bench->name,
                 chunk, INT_MAX);
        return -EINVAL;
    }
    if (threads == 0 || threads > INT_MAX) {
        snprintf(err, errlen, "%s: thread count %u is out of range; expected 1 to %d threads", c->bench->name,
                 threads, INT_MAX);
        return -EINVAL;
    }
    /* schedule(runtime) reads the calling thread's run-sched-var, which this sets. */
    omp_set_schedule(kinds[kind].sched, (int)chunk);
    run(c, (int)threads);
    return 0;
}
