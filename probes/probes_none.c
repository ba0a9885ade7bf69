/* probes_none.c: the probes of a build without BPF (no clang, bpftool or kernel BTF where it
 * was built). Opening always fails with the build's reason, so the daemon says so and runs on. */
#include "probes.h"

#include <errno.h>
#include <stdio.h>

int gt_probes_open(gt_probes **out, gt_probe_status *st)
{
    *out = NULL;
    *st = (gt_probe_status){.state = GT_PROBES_UNAVAILABLE};
    snprintf(st->reason, sizeof st->reason, "built without BPF: %s", GT_PROBES_NOT_BUILT);
    return -ENOTSUP;
}

void gt_probes_close(gt_probes *p) { (void)p; }

int gt_probes_watch(gt_probes *p, unsigned slot, pid_t tid, char *err, size_t errlen)
{
    (void)p, (void)slot, (void)tid;
    snprintf(err, errlen, "built without BPF");
    return -ENOTSUP;
}

void gt_probes_unwatch(gt_probes *p, pid_t tid) { (void)p, (void)tid; }

void gt_probes_read(const gt_probes *p, unsigned slot, gt_probe_figures *out)
{
    (void)p, (void)slot;
    *out = (gt_probe_figures){0};
}
