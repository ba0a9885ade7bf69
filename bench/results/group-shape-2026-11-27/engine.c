/* matmul_tiled at n = 1088 five ways, 2 OpenMP threads, interleaved rounds, each workgroup or
 * row handed out by `omp for`: the OpenMP twin (row loop i-k-j); the seed kernel's algorithm
 * (16 x 16 tiles staged in local arrays) written as plain loops, with the tile size a constant
 * and read at run time; and the seed kernel itself, its GT_KERNEL_GROUP function called per
 * workgroup under the linear walk, compiled without and with its shape
 * (GT_KERNEL_GROUP_SIZED). No pool, no daemon: what the region loops cost, alone.
 *
 *     gcc -O3 -fopenmp -std=c11 -I../../../include engine.c -o engine && OMP_NUM_THREADS=2 ./engine */
#define _GNU_SOURCE
#include <gridtune/kernel.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 1088
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define MATMUL_TILED_BODY                                                                               \
    GT_PRIVATE(float, acc);                                                                              \
    const size_t w = (size_t)n;                                                                          \
    GT_ITEMS { GT_P(acc) = 0.0f; }                                                                       \
    for (size_t t = 0; t < w; t += 16) {                                                                 \
        GT_ITEMS {                                                                                       \
            size_t lx = gt_local_id(0), ly = gt_local_id(1);                                             \
            GT_L(ta)[ly * 16 + lx] = a[gt_global_id(1) * w + t + lx];                                    \
            GT_L(tb)[ly * 16 + lx] = b[(t + ly) * w + gt_global_id(0)];                                  \
        }                                                                                                \
        GT_ITEMS {                                                                                       \
            size_t lx = gt_local_id(0), ly = gt_local_id(1);                                             \
            float s = GT_P(acc);                                                                         \
            _Pragma("GCC unroll 16") for (size_t k = 0; k < 16; k++) s += GT_L(ta)[ly * 16 + k] * GT_L(tb)[k * 16 + lx]; \
            GT_P(acc) = s;                                                                               \
        }                                                                                                \
    }                                                                                                    \
    GT_ITEMS { c[gt_global_id(1) * w + gt_global_id(0)] = GT_P(acc); }

GT_KERNEL_GROUP(matmul_tiled, (float ta[16 * 16]; float tb[16 * 16];), float *, c, const float *, a, const float *,
                b, int32_t, n)
{
    MATMUL_TILED_BODY
}

#ifdef GT_KERNEL_GROUP_SIZED /* absent from headers before 92f0ade */
GT_KERNEL_GROUP_SIZED(matmul_tiled_sized, (16, 16, 1), (float ta[16 * 16]; float tb[16 * 16];), float *, c,
                      const float *, a, const float *, b, int32_t, n)
{
    MATMUL_TILED_BODY
}
#endif

static float *A, *B, *C;

static void twin(void)
{
    size_t w = N;
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t y = 0; y < w; y++) {
        float *row = C + y * w;
        for (size_t x = 0; x < w; x++)
            row[x] = 0.0f;
        for (size_t k = 0; k < w; k++) {
            float aik = A[y * w + k];
            for (size_t x = 0; x < w; x++)
                row[x] += aik * B[k * w + x];
        }
    }
}

static void plain_tiled(void)
{
    size_t w = N, g = w / 16;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t id = 0; id < g * g; id++) {
        size_t gx = id % g, gy = id / g;
        float ta[256] __attribute__((aligned(64))), tb[256] __attribute__((aligned(64))), acc[256] __attribute__((aligned(64)));
        for (size_t i = 0; i < 256; i++)
            acc[i] = 0.0f;
        for (size_t t = 0; t < w; t += 16) {
            for (size_t ly = 0; ly < 16; ly++)
                for (size_t lx = 0; lx < 16; lx++) {
                    ta[ly * 16 + lx] = A[(gy * 16 + ly) * w + t + lx];
                    tb[ly * 16 + lx] = B[(t + ly) * w + gx * 16 + lx];
                }
            for (size_t ly = 0; ly < 16; ly++)
                for (size_t lx = 0; lx < 16; lx++) {
                    float s = acc[ly * 16 + lx];
#pragma GCC unroll 16
                    for (size_t k = 0; k < 16; k++)
                        s += ta[ly * 16 + k] * tb[k * 16 + lx];
                    acc[ly * 16 + lx] = s;
                }
        }
        for (size_t ly = 0; ly < 16; ly++)
            for (size_t lx = 0; lx < 16; lx++)
                C[(gy * 16 + ly) * w + gx * 16 + lx] = acc[ly * 16 + lx];
    }
}


static volatile size_t runtime_l = 16;
static void plain_tiled_rt(void)
{
    size_t w = N, L = runtime_l, g = w / L;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t id = 0; id < g * g; id++) {
        size_t gx = id % g, gy = id / g;
        float ta[256] __attribute__((aligned(64))), tb[256] __attribute__((aligned(64))), acc[256] __attribute__((aligned(64)));
        for (size_t i = 0; i < L * L; i++)
            acc[i] = 0.0f;
        for (size_t t = 0; t < w; t += 16) {
            for (size_t ly = 0; ly < L; ly++)
                for (size_t lx = 0; lx < L; lx++) {
                    ta[ly * 16 + lx] = A[(gy * L + ly) * w + t + lx];
                    tb[ly * 16 + lx] = B[(t + ly) * w + gx * L + lx];
                }
            for (size_t ly = 0; ly < L; ly++)
                for (size_t lx = 0; lx < L; lx++) {
                    float s = acc[ly * L + lx];
#pragma GCC unroll 16
                    for (size_t k = 0; k < 16; k++)
                        s += ta[ly * 16 + k] * tb[k * 16 + lx];
                    acc[ly * L + lx] = s;
                }
        }
        for (size_t ly = 0; ly < L; ly++)
            for (size_t lx = 0; lx < L; lx++)
                C[(gy * L + ly) * w + gx * L + lx] = acc[ly * L + lx];
    }
}

static void kernel_fn_of(gt_workgroup_fn *fn)
{
    size_t g = N / 16;
    int32_t n = N;
    void *args[4] = {&C, &A, &B, &n};
#pragma omp parallel
    {
        gt_group_ctx ctx = {.dims = 2, .span = 1, .global_size = {N, N, 1}, .local_size = {16, 16, 1},
                            .num_groups = {g, g, 1}, .walk = GT_WALK_LINEAR, .nitems = 256};
#pragma omp for schedule(dynamic, 1)
        for (size_t id = 0; id < g * g; id++) {
            ctx.group_id[0] = id % g;
            ctx.group_id[1] = id / g;
            fn(&ctx, args);
        }
    }
}

static void kernel_fn(void)
{
    kernel_fn_of(gt__group_matmul_tiled);
}

#ifdef GT_KERNEL_GROUP_SIZED
static void kernel_fn_sized(void)
{
    kernel_fn_of(gt__group_matmul_tiled_sized);
}
enum { NVARIANTS = 5 };
#else
#define kernel_fn_sized NULL /* not run */
enum { NVARIANTS = 4 };
#endif

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    size_t w = N;
    A = aligned_alloc(64, w * w * 4);
    B = aligned_alloc(64, w * w * 4);
    C = aligned_alloc(64, w * w * 4);
    for (size_t i = 0; i < w * w; i++) {
        A[i] = (float)(i % 7) - 3;
        B[i] = (float)(i % 5) - 2;
    }
    void (*f[5])(void) = {twin, plain_tiled, plain_tiled_rt, kernel_fn, kernel_fn_sized};
    const char *name[5] = {"omp twin (i-k-j rows)", "omp plain 16x16 tiles", "omp plain, runtime sizes",
                            "GT_KERNEL_GROUP", "GT_KERNEL_GROUP_SIZED"};
    enum { R = 11 };
    double t[NVARIANTS][R];
    float check[NVARIANTS];
    for (int r = 0; r < R; r++)
        for (int k = 0; k < NVARIANTS; k++) {
            double s = now();
            f[k]();
            t[k][r] = now() - s;
            check[k] = C[12345] + C[w * w - 1];
        }
    for (int k = 0; k < NVARIANTS; k++) {
        qsort(t[k], R, sizeof(double), cmp);
        printf("%-28s median %7.2f ms  min %7.2f  (check %g)\n", name[k], t[k][R / 2], t[k][0], check[k]);
    }
    return 0;
}
