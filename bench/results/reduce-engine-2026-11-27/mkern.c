#include <gridtune/kernel.h>
GT_KERNEL_GROUP_SIZED(KNAME, (16, 16, 1), (float ta[16 * 16]; float tb[16 * 16];), float *, c, const float *, a, const float *, b, int32_t, n)
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
            _Pragma("GCC unroll 16") for (size_t k = 0; k < 16; k++) s += GT_L(ta)[ly * 16 + k] * GT_L(tb)[k * 16 + lx];
            GT_P(acc) = s;
        }
    }
    GT_ITEMS { c[gt_global_id(1) * w + gt_global_id(0)] = GT_P(acc); }
}
#define CAT2(a,b) a##b
#define CAT(a,b) CAT2(a,b)
gt_workgroup_fn *CAT(get_, KNAME)(void) { return CAT(gt__group_, KNAME); }
