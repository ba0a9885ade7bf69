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
