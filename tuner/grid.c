/* grid.c: range validation and grid geometry.
 * Every range a launch brings is checked here once, so that orders and workers may assume
 * sane sizes: 1 to 3 dimensions, uniform workgroups, 16-bit local coordinates and a 32-bit
 * workgroup count. */
#include "grid.h"

#include <errno.h>
#include <gridtune/kernel.h>
#include <stdio.h>

int gt_range_check(const gt_range *r, char *err, size_t errlen)
{
    if (r->dims < 1 || r->dims > GT_MAX_DIMS) {
        snprintf(err, errlen, "range has %u dimensions; expected 1, 2 or 3", r->dims);
        return -EINVAL;
    }
    uint64_t items = 1, groups = 1;
    for (unsigned d = 0; d < r->dims; d++) {
        if (r->global[d] == 0 || r->local[d] == 0) {
            snprintf(err, errlen, "range dimension %u has global size %zu and local size %zu; both must be at least 1",
                     d, r->global[d], r->local[d]);
            return -EINVAL;
        }
        if (r->global[d] % r->local[d] != 0) {
            snprintf(err, errlen, "range dimension %u: global size %zu is not a multiple of the local size %zu", d,
                     r->global[d], r->local[d]);
            return -EINVAL;
        }
        if (r->local[d] > GT_MAX_GROUP_ITEMS) {
            snprintf(err, errlen, "range dimension %u: local size %zu exceeds %u", d, r->local[d], GT_MAX_GROUP_ITEMS);
            return -EINVAL;
        }
        items *= r->local[d];
        if (items > GT_MAX_GROUP_ITEMS) {
            snprintf(err, errlen, "workgroup of %llu+ work-items exceeds the limit of %u",
                     (unsigned long long)items, GT_MAX_GROUP_ITEMS);
            return -EINVAL;
        }
        uint64_t n = r->global[d] / r->local[d];
        if (n > UINT32_MAX || groups * n > UINT32_MAX) {
            snprintf(err, errlen, "range has more than %u workgroups", UINT32_MAX);
            return -EINVAL;
        }
        groups *= n;
    }
    return 0;
}

gt_range gt_range_normalized(const gt_range *r)
{
    gt_range n = *r;
    for (unsigned d = r->dims; d < GT_MAX_DIMS; d++)
        n.global[d] = n.local[d] = 1;
    return n;
}

void gt_range_groups(const gt_range *r, uint32_t groups[3])
{
    for (unsigned d = 0; d < GT_MAX_DIMS; d++)
        groups[d] = d < r->dims ? (uint32_t)(r->global[d] / r->local[d]) : 1;
}

uint32_t gt_range_group_count(const gt_range *r)
{
    uint32_t g[3];
    gt_range_groups(r, g);
    return g[0] * g[1] * g[2];
}

size_t gt_range_group_items(const gt_range *r)
{
    size_t n = 1;
    for (unsigned d = 0; d < r->dims; d++)
        n *= r->local[d];
    return n;
}
