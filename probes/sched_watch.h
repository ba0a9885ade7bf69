/* sched_watch.h: what sched_watch.bpf.c counts per watched thread, shared by the BPF program
 * and its loader (probes.c). Watched threads are the daemon's workers; each has a slot. */
#ifndef GT_SCHED_WATCH_H
#define GT_SCHED_WATCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Slots in the program's table; at least the pool's most workers. */
#define GT_PROBE_SLOTS 256
/* In gt_probe_slot.wait: the wait began at a wakeup, not at a preemption. */
#define GT_WAIT_WOKEN 1ull

/* Cumulative since the thread was watched. The program only adds; readers take differences. */
struct gt_probe_slot {
    __u64 involuntary_switches; /* switched out while still runnable (the kernel's nivcsw) */
    __u64 offcpu_ns;            /* ended waits for another tenant: runnable, not running */
    __u64 wait;                 /* the current wait's start (bpf_ktime_get_ns()) with bit 0
                                   GT_WAIT_WOKEN when it began at a wakeup; 0: not waiting */
    __u64 migrations;           /* moved to another CPU */
    __u64 page_faults;          /* user-mode page faults */
};

#endif
