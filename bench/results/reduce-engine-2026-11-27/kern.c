#include <gridtune/kernel.h>
GT_KERNEL_GROUP_SIZED(KNAME, (256, 1, 1), (float part[256];), float *, sums, const float *, src, int32_t, n)
{
    GT_PRIVATE(float, acc);
    const size_t stretch = 16 * (size_t)n, base = gt_group_id(0) * stretch;
    GT_ITEMS { GT_P(acc) = 0.0f; }
    for (size_t k = 0; k < stretch; k += 256)
        GT_ITEMS { GT_P(acc) += src[base + k + gt_local_id(0)]; }
    GT_ITEMS { GT_L(part)[gt_local_id(0)] = GT_P(acc); }
    for (size_t half = 128; half > 0; half /= 2)
        GT_ITEMS {
            if (gt_local_id(0) < half)
                GT_L(part)[gt_local_id(0)] += GT_L(part)[gt_local_id(0) + half];
        }
    GT_ITEMS { if (gt_local_id(0) == 0) sums[gt_group_id(0)] = GT_L(part)[0]; }
}
#define CAT2(a,b) a##b
#define CAT(a,b) CAT2(a,b)
gt_workgroup_fn *CAT(get_, KNAME)(void) { return CAT(gt__group_, KNAME); }
