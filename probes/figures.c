/* figures.c: what the probes do the same with or without BPF: turning them off, and arithmetic
 * on their figures. */
#include "probes.h"

void gt_probes_start(bool off, gt_probes **out, gt_probe_status *status)
{
    *out = NULL;
    if (off)
        *status = (gt_probe_status){.state = GT_PROBES_OFF, .reason = "turned off with --no-probes"};
    else
        (void)gt_probes_open(out, status);
}

gt_probe_figures gt_probe_figures_delta(const gt_probe_figures *b, const gt_probe_figures *a)
{
    /* a spell off-CPU read while going on may end a little shorter than read: never negative */
#define DELTA(f) (b->f > a->f ? b->f - a->f : 0)
    return (gt_probe_figures){
        .involuntary_switches = DELTA(involuntary_switches),
        .offcpu_ns = DELTA(offcpu_ns),
        .migrations = DELTA(migrations),
        .page_faults = DELTA(page_faults),
    };
#undef DELTA
}

void gt_probe_figures_add(gt_probe_figures *sum, const gt_probe_figures *d)
{
    sum->involuntary_switches += d->involuntary_switches;
    sum->offcpu_ns += d->offcpu_ns;
    sum->migrations += d->migrations;
    sum->page_faults += d->page_faults;
}
