/* test_module_wide_scalar.c: a kernel with a scalar wider than gridtune can pass. */
#include <gridtune/kernel.h>

GT_KERNEL(wide, float *, out, long double, big)
{
    out[gt_global_id(0)] = (float)big;
}
