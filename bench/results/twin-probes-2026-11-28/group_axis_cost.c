/* group_axis_cost W H: the median of 15 listings of the default space's group axis for a grid
   of W x H workgroups (16x16 items, 2 workers), in ms. */
#include "tuner/clock.h"
#include "tuner/space.h"
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    uint32_t grid[3] = {(uint32_t)atoi(argv[1]), (uint32_t)atoi(argv[2]), 1}, items[3] = {16, 16, 1};
    gt_space_config c = gt_space_config_default();
    double t[15];
    size_t n = 0;
    for (int k = 0; k < 15; k++) {
        gt_space_entry *e = NULL;
        uint64_t t0 = gt_clock_ns();
        gt_space_axis(&c, GT_AXIS_GROUP, &gt_schedule_default, items, grid, 4096, 2, &e, &n);
        t[k] = (double)(gt_clock_ns() - t0) / 1e6;
        free(e);
    }
    qsort(t, 15, sizeof *t, cmp);
    printf("%ux%u: %zu candidates, %.3f ms\n", grid[0], grid[1], n, t[7]);
    return 0;
}
