/* seeds.c: the seed benchmark kernels, built as the module libgridtune-seeds.so.
 * Matrices are n x n, row-major, n a multiple of the workgroup size. Bodies are straight-line
 * C over one work-item so that the linear item order compiles to a vectorisable loop; the
 * host side (seedbench.c) holds the generators and the references they are checked against.
 * Each kernel states its launch as preconditions (GT_REQUIRE): the range is the matrix (n x n
 * items, or n in 1-D for the integral images, whose items walk a whole row or column) and every
 * buffer holds what its index expressions reach, so gridtuned refuses any launch that would
 * take a kernel out of bounds. Sizes are compared as element counts, n * n in uint64_t against
 * bytes / sizeof: n is an int32_t, so neither side can overflow. The 2-D kernels also declare
 * per-item extents, whose error names both sizes. */
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
