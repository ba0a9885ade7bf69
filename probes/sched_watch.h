/* sched_watch.h: what sched_watch.bpf.c counts per watched thread, shared by the BPF program
 * and its loader (probes.c). Watched threads are the daemon's workers; each has a slot. */
#ifndef GT_SCHED_WATCH_H
#define GT_SCHED_WATCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Slots in the program's table; at least the pool's most workers. */
#define GT_PROBE_SLOTS 256

/* Cumulative since the thread was watched. The program only adds; readers take differences. */
struct gt_probe_slot {
    __u64 involuntary_switches; /* switched out while still runnable (the kernel's nivcsw) */
    __u64 offcpu_ns;            /* ended waits for another tenant: runnable, not running */
    __u64 off_since;            /* bpf_ktime_get_ns() of the current wait's start, or 0 */
    __u64 woken;                /* 1: the wait began at a wakeup, 0: at a preemption */
    __u64 migrations;           /* moved to another CPU */
    __u64 page_faults;          /* user-mode page faults */
};

#endif
