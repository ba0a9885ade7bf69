/* probes.h: the eBPF probes that watch the worker pool's threads (sched_watch.bpf.c).
 *
 * gt_probes_open loads and attaches the programs; each worker then registers its thread id in
 * a slot, and anyone may read a slot's cumulative figures at any time (they are in memory the
 * kernel maps into this process, so a read is a few loads, no system call). Without BPF (not
 * root, no kernel BTF, a locked-down kernel, a build without clang or bpftool) opening fails
 * with the reason, and the daemon runs without probes. */
#ifndef GT_PROBES_H
#define GT_PROBES_H

#include "tuner/instruments.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct gt_probes gt_probes;

/* Loads and attaches. Fills status in every case: GT_PROBES_ON with the attached tracepoints
 * in status->reason, or GT_PROBES_UNAVAILABLE with why. Returns 0, or a negative errno (then
 * *out is NULL). */
int gt_probes_open(gt_probes **out, gt_probe_status *status);
void gt_probes_close(gt_probes *p);
/* gt_probes_open, unless off: then no probes (*out NULL), and status says they were turned off
 * with --no-probes, the flag of every program that has them. */
void gt_probes_start(bool off, gt_probes **out, gt_probe_status *status);

/* Counts thread tid in slot (below GT_PROBE_SLOTS) from now on, its figures starting at zero. */
int gt_probes_watch(gt_probes *p, unsigned slot, pid_t tid, char *err, size_t errlen);
/* Stops counting tid; its slot keeps its figures. */
void gt_probes_unwatch(gt_probes *p, pid_t tid);

/* Slot's figures since it was watched, a spell off-CPU still going on counted up to now. */
void gt_probes_read(const gt_probes *p, unsigned slot, gt_probe_figures *out);

/* b - a, figure by figure. */
gt_probe_figures gt_probe_figures_delta(const gt_probe_figures *b, const gt_probe_figures *a);
/* Adds d into sum. */
void gt_probe_figures_add(gt_probe_figures *sum, const gt_probe_figures *d);

#endif
