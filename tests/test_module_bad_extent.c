/* test_module_bad_extent.c: a buffer extent declared for a scalar parameter. */
#include <gridtune/kernel.h>

GT_KERNEL(scale_by, float *, dst, float, factor)
{
    dst[gt_global_id(0)] *= factor;
}
GT_BUFFER_EXTENT(scale_by, factor, sizeof(float));
