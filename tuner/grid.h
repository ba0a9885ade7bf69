/* grid.h: range validation and grid geometry.
 * A launch's range is checked once here; everything downstream (orders, the executor) then
 * works on the grid shape in workgroups, with linear index x + X*(y + Y*z). */
#ifndef GT_GRID_H
#define GT_GRID_H

#include <gridtune/range.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Checks dims (1..3), sizes (non-zero, global a multiple of local), the workgroup size
 * (at most GT_MAX_GROUP_ITEMS items) and the group count (fits in 32 bits).
 * Returns 0, or -EINVAL with a sentence naming the bad value in err. */
int gt_range_check(const gt_range *r, char *err, size_t errlen);

/* The range with unused dimensions forced to 1: call after gt_range_check succeeded. */
gt_range gt_range_normalized(const gt_range *r);

/* Workgroups per dimension (1 beyond dims) and in total, for a checked range. */
void gt_range_groups(const gt_range *r, uint32_t groups[3]);
uint32_t gt_range_group_count(const gt_range *r);
size_t gt_range_group_items(const gt_range *r);

static inline uint32_t gt_grid_linear(const uint32_t shape[3], uint32_t x, uint32_t y, uint32_t z)
{
    return x + shape[0] * (y + shape[1] * z);
}

static inline void gt_grid_coords(const uint32_t shape[3], uint32_t idx, uint32_t c[3])
{
    c[0] = idx % shape[0];
    idx /= shape[0];
    c[1] = idx % shape[1];
    c[2] = idx / shape[1];
}

/* Bitmaps over the linear workgroup ids (bit i is map[i / 8] >> (i % 8) & 1): the workgroups a
 * batch skips, or an analysis has run. A NULL map is empty. */
static inline bool gt_bitmap_test(const uint8_t *map, uint32_t i)
{
    return map && (map[i / 8] >> (i % 8) & 1);
}

static inline void gt_bitmap_set(uint8_t *map, uint32_t i)
{
    map[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Whether any bit of [begin, end) is set; eight bytes, then bytes, at a time between the edges. */
static inline bool gt_bitmap_any(const uint8_t *map, uint32_t begin, uint32_t end)
{
    if (!map)
        return false;
    while (begin < end && begin % 8)
        if (gt_bitmap_test(map, begin++))
            return true;
    for (; (uint64_t)begin + 64 <= end; begin += 64) {
        uint64_t word;
        memcpy(&word, map + begin / 8, sizeof word);
        if (word)
            return true;
    }
    for (; (uint64_t)begin + 8 <= end; begin += 8)
        if (map[begin / 8])
            return true;
    while (begin < end)
        if (gt_bitmap_test(map, begin++))
            return true;
    return false;
}

#endif
