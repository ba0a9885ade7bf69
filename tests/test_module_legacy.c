/* test_module_legacy.c: a module as built before launch preconditions existed. It is linked
 * with a version script that exports only gt_module_kernels and gt_module_extents, the
 * accessors such a module had, so the loader finds no gt_module_preconditions in it. */
#include <gridtune/kernel.h>

GT_KERNEL(double_it, int32_t *, v)
{
    v[gt_global_id(0)] *= 2;
}
