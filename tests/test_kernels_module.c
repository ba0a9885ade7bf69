/* test_kernels_module.c: a small kernel module for the loader and signature tests. */
#include <gridtune/kernel.h>

GT_KERNEL(scale, float *, dst, const float *, src, float, factor)
{
    size_t i = gt_global_id(0);
    dst[i] = src[i] * factor;
}
GT_BUFFER_EXTENT(scale, dst, sizeof(float));
GT_BUFFER_EXTENT(scale, src, 2 * sizeof(float)); /* more than it reads, so the two limits differ */

GT_KERNEL(nothing)
{
}

GT_KERNEL(twelve, int8_t, a, int16_t, b, int32_t, c, int64_t, d, float, e, double, f, const char *, g, void *, h,
          uint8_t, i, uint16_t, j, uint32_t, k, uint64_t, l)
{
}

/* dst[i] = src[offset + i] * scale over a 1-D range of count items, in workgroups of a multiple
 * of 8: its preconditions read every kind of scalar, both buffers' sizes and the range. */
GT_KERNEL(window, float *, dst, const float *, src, int32_t, offset, uint64_t, count, double, scale)
{
    size_t i = gt_global_id(0);
    dst[i] = (float)(src[(size_t)offset + i] * scale);
}
static int fits(uint64_t elements, uint64_t bytes)
{
    return elements <= bytes / sizeof(float);
}
GT_REQUIRE(window, gt_work_dim() == 1);
GT_REQUIRE(window, gt_param(offset) >= 0 && gt_param(scale) > 0.0);
GT_REQUIRE(window, gt_param(count) == gt_global_size(0));
GT_REQUIRE(window, gt_local_size(0) % 8 == 0 && gt_num_groups(0) * gt_local_size(0) == gt_global_size(0));
GT_REQUIRE(window, fits(gt_global_size(0), gt_buffer_bytes(dst)));
GT_REQUIRE(window, (uint64_t)gt_param(offset) + gt_global_size(0) <= gt_buffer_bytes(src) / sizeof(float));
