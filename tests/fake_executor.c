/* fake_executor.c: the cost-model executor of the tuner tests. */
#include "fake_executor.h"

#include "tuner/grid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_skipped(const uint8_t *skip, uint32_t g)
{
    return skip && (skip[g / 8] >> (g % 8) & 1);
}

/* The formatted schedule has part ("group=tiled:4x4"); every schedule has the part "". */
static bool text_has_part(const char *text, const char *part)
{
    const char *at = strstr(text, part);
    return at && (!*part || at[strlen(part)] == ',' || at[strlen(part)] == '\0');
}

/* The factors of the schedule's parts that the model names, multiplied. */
static void schedule_factors(const fake_executor *f, const gt_schedule *s, double *time, double *cpi)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    *time = 1;
    *cpi = 1;
    for (unsigned i = 0; i < f->nfactors; i++) {
        if (!text_has_part(text, f->factors[i].part))
            continue;
        *time *= f->factors[i].factor;
        if (f->factors[i].cpi > 0)
            *cpi *= f->factors[i].cpi;
    }
}

static bool has_part(const gt_schedule *s, const char *part)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    return text_has_part(text, part);
}

static int fake_run(void *ctx, const gt_exec_batch *b, gt_exec_result *r, char *err, size_t errlen)
{
    fake_executor *f = ctx;
    f->batches++;
    if (f->fail_at_batch && (int)f->batches == f->fail_at_batch) {
        snprintf(err, errlen, "fake executor: batch %u fails on purpose", f->batches);
        return -EIO;
    }
    uint32_t origin[3] = {0, 0, 0}, extent[3];
    bool whole = !b->box_extent[0] && !b->box_extent[1] && !b->box_extent[2];
    for (int d = 0; d < 3; d++) {
        origin[d] = whole ? 0 : b->box_origin[d];
        extent[d] = whole ? f->grid[d] : b->box_extent[d];
        if (origin[d] + extent[d] > f->grid[d]) {
            snprintf(err, errlen, "fake executor: box outside the grid");
            return -EINVAL;
        }
    }
    double time_factor, cpi;
    schedule_factors(f, &b->schedule, &time_factor, &cpi);
    double ns = 0;
    uint64_t groups = 0;
    for (uint32_t z = origin[2]; z < origin[2] + extent[2]; z++)
        for (uint32_t y = origin[1]; y < origin[1] + extent[1]; y++)
            for (uint32_t x = origin[0]; x < origin[0] + extent[0]; x++) {
                uint32_t g = gt_grid_linear(f->grid, x, y, z);
                if (is_skipped(b->skip, g))
                    continue;
                f->runs[g]++;
                groups++;
                ns += f->base_ns * time_factor * (1 + f->drift * g / (double)f->groups);
            }
    memset(r, 0, sizeof *r);
    r->groups = groups;
    r->wall_ns = (uint64_t)(ns / f->workers);
    r->probed = f->probed;
    if (!whole && f->tenant_part && has_part(&b->schedule, f->tenant_part) && ++f->tenant_seen % f->tenant_period == 0) {
        /* one worker preempted: the batch waits for it */
        f->disturbed++;
        r->wall_ns += f->tenant_ns;
        r->probe = f->probed ? (gt_probe_figures){.involuntary_switches = 1, .offcpu_ns = f->tenant_ns}
                             : (gt_probe_figures){0};
        r->worst_offcpu_ns = f->probed ? f->tenant_ns : 0;
    }
    if (f->counters.nused == 2) {
        r->counters[1] = (int64_t)(groups * 1000);           /* instructions */
        r->counters[0] = (int64_t)(groups * 1000 * cpi);     /* cycles */
    }
    return 0;
}

void fake_executor_init(fake_executor *f, const gt_range *range, unsigned workers, gt_executor *exec)
{
    memset(f, 0, sizeof *f);
    gt_range_groups(range, f->grid);
    f->groups = gt_range_group_count(range);
    f->base_ns = 1000;
    f->workers = workers;
    f->runs = calloc(f->groups, 1);
    f->counters.mode = GT_COUNTERS_NONE;
    *exec = (gt_executor){.run = fake_run, .ctx = f, .workers = workers, .counters = NULL};
}

void fake_executor_fini(fake_executor *f)
{
    free(f->runs);
    f->runs = NULL;
}

void fake_executor_add_cycle_counters(fake_executor *f, gt_executor *exec)
{
    f->counters.mode = GT_COUNTERS_HARDWARE;
    f->counters.nused = 2;
    snprintf(f->counters.used[0], sizeof f->counters.used[0], "PAPI_TOT_CYC");
    snprintf(f->counters.used[1], sizeof f->counters.used[1], "PAPI_TOT_INS");
    exec->counters = &f->counters;
}

void fake_executor_factor(fake_executor *f, const char *part, double factor, double cpi)
{
    if (f->nfactors < FAKE_FACTORS_MAX)
        f->factors[f->nfactors++] = (fake_factor){part, factor, cpi};
}

uint64_t fake_executor_miscounted(const fake_executor *f)
{
    uint64_t bad = 0;
    for (uint64_t g = 0; g < f->groups; g++)
        bad += f->runs[g] != 1;
    return bad;
}

void fake_executor_add_probes(fake_executor *f, gt_executor *exec)
{
    f->probed = true;
    f->probes = (gt_probe_status){.state = GT_PROBES_ON, .reason = "the fake's"};
    exec->probes = &f->probes;
}

void fake_executor_tenant(fake_executor *f, const char *part, unsigned period, uint64_t ns)
{
    f->tenant_part = part;
    f->tenant_period = period ? period : 1;
    f->tenant_ns = ns;
}
