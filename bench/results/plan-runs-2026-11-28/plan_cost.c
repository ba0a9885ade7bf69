/* plan_cost GX GY LX LY SCHEDULE [skip]: the median of 11 gt_batch_plan_build calls for a whole
   launch of GX x GY items in LX x LY workgroups, in ms; with "skip", an empty skip bitmap (as the
   remainder of an analysed launch has, with a few bits set). Built against engine/batch.c:
   gcc -O2 -I. -Iinclude -Iengine plan_cost.c engine/batch.c build/release/tuner/libgt_tuner.a -lm */
#include "engine/batch.h"
#include "tuner/clock.h"
#include "tuner/schedule.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void noop(const gt_group_ctx *g, void *const *args) { (void)args; (void)g; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)atoi(argv[1]);
    gt_batch b;
    memset(&b, 0, sizeof b);
    b.run = noop;
    b.range.dims = 2;
    b.range.global[0] = n; b.range.global[1] = atoi(argv[2]); b.range.global[2] = 1;
    b.range.local[0] = atoi(argv[3]); b.range.local[1] = atoi(argv[4]); b.range.local[2] = 1;
    char err[256];
    if (gt_schedule_parse(argv[5], &b.schedule, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    uint8_t *skip = argc > 6 ? calloc(1 << 22, 1) : NULL;
    b.skip = skip;
    double t[11];
    uint32_t runs = 0;
    for (int k = 0; k < 11; k++) {
        gt_batch_plan p;
        uint64_t t0 = gt_clock_ns();
        if (gt_batch_plan_build(&b, &p, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        t[k] = (double)(gt_clock_ns() - t0) / 1e6;
        runs = p.nruns;
        gt_batch_plan_free(&p);
    }
    qsort(t, 11, sizeof *t, cmp);
    printf("%s %s %s%s: %u runs, %.3f ms\n", argv[1], argv[2], argv[5], skip ? " (an empty skip bitmap)" : "", runs, t[5]);
    return 0;
}
