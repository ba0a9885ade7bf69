/* seeds.c: the seed benchmark kernels, built as the module libgridtune-seeds.so.
 * Matrices are n x n, row-major, n a multiple of the workgroup size. Bodies are straight-line
 * C over one work-item so that the linear item order compiles to a vectorisable loop; the
 * host side (seedbench.c) holds the generators and the references they are checked against.
 * Each kernel states its launch as preconditions (GT_REQUIRE): the range is the matrix (n x n
 * items, or n in 1-D for the integral images, whose items walk a whole row or column) and every
 * buffer holds what its index expressions reach, so gridtuned refuses any launch that would
 * take a kernel out of bounds. Sizes are compared as element counts, n * n in uint64_t against
 * bytes / sizeof: n is an int32_t, so neither side can overflow. The 2-D kernels also declare
 * per-item extents, whose error names both sizes. The workgroup kernels at the end need barriers
 * and local memory; they state the workgroup sizes they accept too. */
#include <gridtune/kernel.h>

/* Running sum along row y; in holds small values, so uint32_t sums are exact. */
GT_KERNEL(integral_rows, uint32_t *, out, const uint32_t *, in, int32_t, n)
{
    size_t y = gt_global_id(0), w = (size_t)n;
    uint32_t sum = 0;
    for (size_t x = 0; x < w; x++) {
        sum += in[y * w + x];
        out[y * w + x] = sum;
    }
}
GT_REQUIRE(integral_rows, gt_work_dim() == 1);
GT_REQUIRE(integral_rows, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n));
GT_REQUIRE(integral_rows, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(out) / sizeof(uint32_t));
GT_REQUIRE(integral_rows, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(in) / sizeof(uint32_t));

/* Running sum down column x: neighbouring work-items walk neighbouring columns. */
GT_KERNEL(integral_cols, uint32_t *, out, const uint32_t *, in, int32_t, n)
{
    size_t x = gt_global_id(0), w = (size_t)n;
    uint32_t sum = 0;
    for (size_t y = 0; y < w; y++) {
        sum += in[y * w + x];
        out[y * w + x] = sum;
    }
}
GT_REQUIRE(integral_cols, gt_work_dim() == 1);
GT_REQUIRE(integral_cols, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n));
GT_REQUIRE(integral_cols, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(out) / sizeof(uint32_t));
GT_REQUIRE(integral_cols, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(in) / sizeof(uint32_t));

/* 11x11 convolution over an input padded to (n + 10) x (n + 10), so no item needs a border
 * test. */
GT_KERNEL(conv11, float *, out, const float *, in, const float *, weights, int32_t, n)
{
    size_t x = gt_global_id(0), y = gt_global_id(1), w = (size_t)n + 10;
    float acc = 0.0f;
    for (size_t dy = 0; dy < 11; dy++)
        for (size_t dx = 0; dx < 11; dx++)
            acc += in[(y + dy) * w + x + dx] * weights[dy * 11 + dx];
    out[y * (size_t)n + x] = acc;
}
GT_BUFFER_EXTENT(conv11, out, sizeof(float));
GT_BUFFER_EXTENT(conv11, in, sizeof(float)); /* a lower bound: the input is padded */
GT_REQUIRE(conv11, gt_work_dim() == 2);
GT_REQUIRE(conv11, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(conv11, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(out) / sizeof(float));
GT_REQUIRE(conv11, ((uint64_t)gt_param(n) + 10) * ((uint64_t)gt_param(n) + 10) <= gt_buffer_bytes(in) / sizeof(float));
GT_REQUIRE(conv11, 11 * 11 <= gt_buffer_bytes(weights) / sizeof(float));

/* Naive C = A B, summing k in order. */
GT_KERNEL(matmul, float *, c, const float *, a, const float *, b, int32_t, n)
{
    size_t x = gt_global_id(0), y = gt_global_id(1), w = (size_t)n;
    float acc = 0.0f;
    for (size_t k = 0; k < w; k++)
        acc += a[y * w + k] * b[k * w + x];
    c[y * w + x] = acc;
}
GT_BUFFER_EXTENT(matmul, c, sizeof(float));
GT_BUFFER_EXTENT(matmul, a, sizeof(float));
GT_BUFFER_EXTENT(matmul, b, sizeof(float));
GT_REQUIRE(matmul, gt_work_dim() == 2);
GT_REQUIRE(matmul, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(matmul, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(c) / sizeof(float));
GT_REQUIRE(matmul, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(a) / sizeof(float));
GT_REQUIRE(matmul, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(b) / sizeof(float));

/* Consecutive work-items copy consecutive elements. */
GT_KERNEL(copy_rows, float *, dst, const float *, src, int32_t, n)
{
    size_t x = gt_global_id(0), y = gt_global_id(1);
    dst[y * (size_t)n + x] = src[y * (size_t)n + x];
}
GT_BUFFER_EXTENT(copy_rows, dst, sizeof(float));
GT_BUFFER_EXTENT(copy_rows, src, sizeof(float));
GT_REQUIRE(copy_rows, gt_work_dim() == 2);
GT_REQUIRE(copy_rows, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(copy_rows, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(dst) / sizeof(float));
GT_REQUIRE(copy_rows, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(src) / sizeof(float));

/* Consecutive work-items copy elements n apart (the column-wise copy of the ARM study). */
GT_KERNEL(copy_cols, float *, dst, const float *, src, int32_t, n)
{
    size_t x = gt_global_id(0), y = gt_global_id(1);
    dst[x * (size_t)n + y] = src[x * (size_t)n + y];
}
GT_BUFFER_EXTENT(copy_cols, dst, sizeof(float));
GT_BUFFER_EXTENT(copy_cols, src, sizeof(float));
GT_REQUIRE(copy_cols, gt_work_dim() == 2);
GT_REQUIRE(copy_cols, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(copy_cols, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(dst) / sizeof(float));
GT_REQUIRE(copy_cols, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(src) / sizeof(float));

GT_KERNEL(transpose, float *, dst, const float *, src, int32_t, n)
{
    uint32_t x = gt_global_id(0), y = gt_global_id(1);
    dst[(size_t)x * n + y] = src[(size_t)y * n + x];
}
GT_BUFFER_EXTENT(transpose, dst, sizeof(float));
GT_BUFFER_EXTENT(transpose, src, sizeof(float));
GT_REQUIRE(transpose, gt_work_dim() == 2);
GT_REQUIRE(transpose, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(transpose, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(dst) / sizeof(float));
GT_REQUIRE(transpose, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(src) / sizeof(float));

/* ---- workgroup kernels (GT_KERNEL_GROUP): barriers and local memory ----------------------
 * Each is compiled for the workgroup shape its benchmark launches (GT_KERNEL_GROUP_SIZED), so
 * that a linear walk's region loops have known trip counts. */

/* C = A B in 16 x 16 tiles: each workgroup stages a tile of A and one of B in local memory,
 * then every item sums its 16 products from there, k in order, as the naive matmul does. The
 * product loop is unrolled so that the item loop around it is the innermost one and
 * vectorises. */
GT_KERNEL_GROUP_SIZED(matmul_tiled, (16, 16, 1), (float ta[16 * 16]; float tb[16 * 16];), float *, c,
                      const float *, a, const float *, b, int32_t, n)
{
    GT_PRIVATE(float, acc);
    const size_t w = (size_t)n;
    GT_ITEMS { GT_P(acc) = 0.0f; }
    for (size_t t = 0; t < w; t += 16) {
        GT_ITEMS {
            size_t lx = gt_local_id(0), ly = gt_local_id(1);
            GT_L(ta)[ly * 16 + lx] = a[gt_global_id(1) * w + t + lx];
            GT_L(tb)[ly * 16 + lx] = b[(t + ly) * w + gt_global_id(0)];
        }
        GT_ITEMS {
            size_t lx = gt_local_id(0), ly = gt_local_id(1);
            float s = GT_P(acc);
#pragma GCC unroll 16
            for (size_t k = 0; k < 16; k++)
                s += GT_L(ta)[ly * 16 + k] * GT_L(tb)[k * 16 + lx];
            GT_P(acc) = s;
        }
    }
    GT_ITEMS { c[gt_global_id(1) * w + gt_global_id(0)] = GT_P(acc); }
}
GT_REQUIRE(matmul_tiled, gt_work_dim() == 2 && gt_local_size(0) == 16 && gt_local_size(1) == 16);
GT_REQUIRE(matmul_tiled, gt_param(n) > 0 && gt_param(n) % 16 == 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(matmul_tiled, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(c) / sizeof(float));
GT_REQUIRE(matmul_tiled, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(a) / sizeof(float));
GT_REQUIRE(matmul_tiled, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(b) / sizeof(float));

/* The sum of each 16 n-element stretch of src (16 rows of the n x n matrix) into sums, one
 * value per workgroup of 256 items: item l sums the l-th 256th of the stretch, a contiguous
 * run, in eight partial sums the compiler keeps in vector registers; then a tree of fan-in 16
 * in local memory adds the 256 items' sums: items 0-15 each add 16 of them, then item 0 adds
 * those 16. The sum is one region, not a region per step with the running sum in GT_PRIVATE:
 * that form (the GPU's, each step reading 256 consecutive floats) costs a load and a store of
 * the private value per element, and reached 0.82-0.87 of OpenMP's reads
 * (bench/results/reduce-chunks-2026-11-27/). The tree has two levels, not the GPU's eight that
 * halve at each barrier: every region walks all 256 items, and the binary tree's eight took
 * a fifth of a launch on one worker (bench/results/reduce-fan-in-2026-11-27/). */
GT_KERNEL_GROUP_SIZED(reduce, (256, 1, 1), (float part[256];), float *, sums, const float *, src, int32_t, n)
{
    const size_t share = (size_t)n / 16, base = gt_group_id(0) * 16 * (size_t)n;
    GT_ITEMS {
        const float *s = src + base + gt_local_id(0) * share;
        float lane[8] = {0};
        size_t i = 0;
        for (; i + 8 <= share; i += 8)
            for (size_t j = 0; j < 8; j++)
                lane[j] += s[i + j];
        for (; i < share; i++)
            lane[0] += s[i];
        GT_L(part)[gt_local_id(0)] =
            ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    }
    GT_ITEMS {
        if (gt_local_id(0) < 16) {
            float t = 0.0f;
            for (size_t j = 0; j < 16; j++)
                t += GT_L(part)[gt_local_id(0) * 16 + j];
            GT_L(part)[gt_local_id(0) * 16] = t;
        }
    }
    GT_ITEMS {
        if (gt_local_id(0) == 0) {
            float t = 0.0f;
            for (size_t j = 0; j < 16; j++)
                t += GT_L(part)[j * 16];
            sums[gt_group_id(0)] = t;
        }
    }
}
GT_REQUIRE(reduce, gt_work_dim() == 1 && gt_local_size(0) == 256);
GT_REQUIRE(reduce, gt_param(n) > 0 && gt_param(n) % 16 == 0 && gt_global_size(0) == 16 * (size_t)gt_param(n));
GT_REQUIRE(reduce, (uint64_t)gt_param(n) / 16 <= gt_buffer_bytes(sums) / sizeof(float));
GT_REQUIRE(reduce, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(src) / sizeof(float));

/* out = 0.5 centre + 0.125 (north + south + west + east) over an input padded to (n + 2) x
 * (n + 2): the workgroup's own code stages its tile with a one-element halo in local memory, a
 * row of tile and halo at a time (corners included), and then its items read all five values
 * from there. Staging row by row took 0.84x the time of staging the halo by the workgroup and
 * the tile by its items (bench/results/stencil-staging-2026-11-27/). Any workgroup shape of at
 * most 1024 items: a wide one (256 x 4, the benchmark's, and the one it is compiled for) keeps
 * the rows long, which a 16 x 16 one does not (half the time on one core here). */
#define STENCIL_TILE_MAX (3 * (1024 + 2)) /* (w + 2) x (h + 2) for w x h <= 1024 is at most this */
GT_KERNEL_GROUP_SIZED(stencil5, (256, 4, 1), (float tile[STENCIL_TILE_MAX];), float *, out, const float *, in,
                      int32_t, n)
{
    const size_t w = (size_t)n + 2, lw = gt_local_size(0), lh = gt_local_size(1), tw = lw + 2;
    const size_t x0 = gt_group_id(0) * lw, y0 = gt_group_id(1) * lh;
    float *t = GT_L(tile);
    for (size_t r = 0; r < lh + 2; r++)
        for (size_t i = 0; i < tw; i++)
            t[r * tw + i] = in[(y0 + r) * w + x0 + i];
    GT_ITEMS {
        size_t at = (gt_local_id(1) + 1) * tw + gt_local_id(0) + 1;
        out[gt_global_id(1) * (size_t)n + gt_global_id(0)] =
            0.5f * t[at] + 0.125f * (t[at - tw] + t[at + tw] + t[at - 1] + t[at + 1]);
    }
}
GT_BUFFER_EXTENT(stencil5, out, sizeof(float));
GT_REQUIRE(stencil5, gt_work_dim() == 2 && gt_local_size(0) * gt_local_size(1) <= 1024);
GT_REQUIRE(stencil5, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&
           gt_global_size(1) == (size_t)gt_param(n));
GT_REQUIRE(stencil5, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(out) / sizeof(float));
GT_REQUIRE(stencil5, ((uint64_t)gt_param(n) + 2) * ((uint64_t)gt_param(n) + 2) <= gt_buffer_bytes(in) / sizeof(float));
