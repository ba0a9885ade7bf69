/* stencil5 at n = 8192 three ways, 2 OpenMP threads, interleaved rounds, workgroups handed out
 * by `omp for schedule(static)` in the linear group order: the OpenMP twin (direct row loop),
 * the seed kernel's algorithm (256 x 4 tile and halo staged in a local array) as plain loops,
 * and the seed kernel itself, its GT_KERNEL_GROUP_SIZED function called per workgroup. No pool,
 * no daemon: whether what is left against the twin is the region loops or the algorithm.
 *
 *     gcc -O3 -fopenmp -std=c11 -I../../../include stencil.c -o stencil && OMP_NUM_THREADS=2 ./stencil */
#define _GNU_SOURCE
#include <gridtune/kernel.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 8192
#define LW 256
#define LH 4
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* kernels/seeds.c's stencil5, as it is there */
#define STENCIL_TILE_MAX (3 * (1024 + 2))
GT_KERNEL_GROUP_SIZED(stencil5, (LW, LH, 1), (float tile[STENCIL_TILE_MAX];), float *, out, const float *, in,
                      int32_t, n)
{
    const size_t w = (size_t)n + 2, lw = gt_local_size(0), lh = gt_local_size(1), tw = lw + 2;
    const size_t x0 = gt_group_id(0) * lw, y0 = gt_group_id(1) * lh;
    float *t = GT_L(tile);
    for (size_t i = 0; i < lw; i++) {
        t[i + 1] = in[y0 * w + x0 + i + 1];
        t[(lh + 1) * tw + i + 1] = in[(y0 + lh + 1) * w + x0 + i + 1];
    }
    for (size_t j = 0; j < lh; j++) {
        t[(j + 1) * tw] = in[(y0 + j + 1) * w + x0];
        t[(j + 1) * tw + lw + 1] = in[(y0 + j + 1) * w + x0 + lw + 1];
    }
    GT_ITEMS { t[(gt_local_id(1) + 1) * tw + gt_local_id(0) + 1] = in[(gt_global_id(1) + 1) * w + gt_global_id(0) + 1]; }
    GT_ITEMS {
        size_t at = (gt_local_id(1) + 1) * tw + gt_local_id(0) + 1;
        out[gt_global_id(1) * (size_t)n + gt_global_id(0)] =
            0.5f * t[at] + 0.125f * (t[at - tw] + t[at + tw] + t[at - 1] + t[at + 1]);
    }
}

static float *in, *out;

static void twin(void)
{
    size_t n = N, w = n + 2;
#pragma omp parallel for schedule(static)
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            size_t at = (y + 1) * w + x + 1;
            out[y * n + x] = 0.5f * in[at] + 0.125f * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
        }
}

static void plain_staged(void)
{
    size_t n = N, w = n + 2, gx = n / LW, gy = n / LH;
#pragma omp parallel
    {
        float t[(LW + 2) * (LH + 2)] __attribute__((aligned(64)));
        const size_t tw = LW + 2;
#pragma omp for schedule(static)
        for (size_t g = 0; g < gx * gy; g++) {
            size_t x0 = (g % gx) * LW, y0 = (g / gx) * LH;
            for (size_t i = 0; i < LW; i++) {
                t[i + 1] = in[y0 * w + x0 + i + 1];
                t[(LH + 1) * tw + i + 1] = in[(y0 + LH + 1) * w + x0 + i + 1];
            }
            for (size_t j = 0; j < LH; j++) {
                t[(j + 1) * tw] = in[(y0 + j + 1) * w + x0];
                t[(j + 1) * tw + LW + 1] = in[(y0 + j + 1) * w + x0 + LW + 1];
            }
            for (size_t j = 0; j < LH; j++)
                for (size_t i = 0; i < LW; i++)
                    t[(j + 1) * tw + i + 1] = in[(y0 + j + 1) * w + x0 + i + 1];
            for (size_t j = 0; j < LH; j++)
                for (size_t i = 0; i < LW; i++) {
                    size_t at = (j + 1) * tw + i + 1;
                    out[(y0 + j) * n + x0 + i] =
                        0.5f * t[at] + 0.125f * (t[at - tw] + t[at + tw] + t[at - 1] + t[at + 1]);
                }
        }
    }
}

static void kernel_fn(void)
{
    size_t gx = N / LW, gy = N / LH;
    int32_t n = N;
    void *args[3] = {&out, &in, &n};
#pragma omp parallel
    {
        gt_group_ctx ctx = {.dims = 2, .span = 1, .global_size = {N, N, 1}, .local_size = {LW, LH, 1},
                            .num_groups = {gx, gy, 1}, .walk = GT_WALK_LINEAR, .nitems = LW * LH};
#pragma omp for schedule(static)
        for (size_t g = 0; g < gx * gy; g++) {
            ctx.group_id[0] = g % gx;
            ctx.group_id[1] = g / gx;
            gt__group_stencil5(&ctx, args);
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    size_t n = N, w = n + 2;
    in = aligned_alloc(64, w * w * sizeof *in);
    out = aligned_alloc(64, n * n * sizeof *out);
    for (size_t i = 0; i < w * w; i++)
        in[i] = (float)(i % 97);
    memset(out, 0, n * n * sizeof *out);
    void (*f[3])(void) = {twin, plain_staged, kernel_fn};
    const char *name[3] = {"omp twin (direct rows)", "omp plain, staged 256x4", "GT_KERNEL_GROUP_SIZED"};
    enum { R = 15 };
    double t[3][R];
    double check[3];
    for (int r = 0; r < R; r++)
        for (int k = 0; k < 3; k++) {
            double s = now();
            f[k]();
            t[k][r] = now() - s;
            check[k] = 0;
            for (size_t i = 0; i < n * n; i += 4099)
                check[k] += out[i];
        }
    for (int k = 0; k < 3; k++) {
        qsort(t[k], R, sizeof(double), cmp);
        printf("%-28s median %7.2f ms  min %7.2f  (check %g)\n", name[k], t[k][R / 2], t[k][0], check[k]);
    }
    return 0;
}
