/* sched_watch.bpf.c: watches the daemon's worker threads from the scheduler's tracepoints.
 *
 * The loader fills worker_slots (thread id -> slot) and reads slots[], which lives in .bss and
 * is memory-mapped by the skeleton, so reading costs no system call. Only threads in the map
 * are counted. Raw tracepoints, because tp_btf programs do not attach on every kernel we run
 * on; their arguments are read with CO-RE. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sched_watch.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, GT_PROBE_SLOTS);
    __type(key, __u32);   /* thread id */
    __type(value, __u32); /* index into slots */
} worker_slots SEC(".maps");

struct gt_probe_slot slots[GT_PROBE_SLOTS];

/* One aligned 64-bit store, which a reader sees whole (BPF has no atomic store). */
#define WRITE_ONCE(x, v) (*(volatile __u64 *)&(x) = (v))

static __always_inline struct gt_probe_slot *slot_of(__u32 tid)
{
    __u32 *i = bpf_map_lookup_elem(&worker_slots, &tid);
    if (!i || *i >= GT_PROBE_SLOTS)
        return 0;
    return &slots[*i];
}

/* The daemon's own process: its threads taking a worker's CPU (the launcher waking, the event
 * loop) are the daemon's business, not another tenant's. Set by the loader before loading. */
const volatile __u32 own_tgid = 0;

/* Another tenant: neither idle (pid 0) nor one of the daemon's own threads. */
static __always_inline bool foreign(struct task_struct *t)
{
    return BPF_CORE_READ(t, pid) != 0 && BPF_CORE_READ(t, tgid) != own_tgid;
}

/* A watched thread waits from the moment it is runnable but not running until it is switched
 * in. Only waits for another tenant count:
 * - after an involuntary switch-out to another tenant, the whole wait counts;
 * - after a wakeup that finds it off the CPU, the wait counts only when another tenant had the
 *   CPU at its end: one that ends by switching from the idle task was the CPU waking up (tens
 *   of microseconds on a virtual machine), and one for the daemon's own threads is part of
 *   running a batch.
 * The start time and which of the two it was share one word (GT_WAIT_WOKEN in bit 0), so a
 * reader never sees one without the other. */

/* sched_wakeup(struct task_struct *p): a thread still on its CPU (woken while going to sleep)
 * does not wait. */
SEC("raw_tp/sched_wakeup")
int BPF_PROG(gt_on_wakeup, struct task_struct *p)
{
    struct gt_probe_slot *s = slot_of(BPF_CORE_READ(p, pid));
    if (s && !BPF_CORE_READ(p, on_cpu) && !s->wait)
        WRITE_ONCE(s->wait, bpf_ktime_get_ns() | GT_WAIT_WOKEN);
    return 0;
}

/* sched_switch(bool preempt, prev, next, unsigned int prev_state): prev leaves the CPU
 * involuntarily when it was preempted or is still runnable (state 0), as the kernel counts
 * nivcsw, and waits if next is another tenant; leaving to sleep ends any wait. next stops
 * waiting. */
SEC("raw_tp/sched_switch")
int BPF_PROG(gt_on_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
    __u64 now = bpf_ktime_get_ns();
    struct gt_probe_slot *s = slot_of(BPF_CORE_READ(prev, pid));
    if (s && (preempt || prev_state == 0)) {
        __sync_fetch_and_add(&s->involuntary_switches, 1);
        WRITE_ONCE(s->wait, foreign(next) ? (now & ~GT_WAIT_WOKEN) : 0);
    } else if (s) {
        WRITE_ONCE(s->wait, 0);
    }
    s = slot_of(BPF_CORE_READ(next, pid));
    __u64 wait = s ? *(volatile __u64 *)&s->wait : 0;
    if (!s || !wait)
        return 0;
    __u64 since = wait & ~GT_WAIT_WOKEN;
    if (!(wait & GT_WAIT_WOKEN) || foreign(prev))
        __sync_fetch_and_add(&s->offcpu_ns, now > since ? now - since : 0);
    WRITE_ONCE(s->wait, 0);
    return 0;
}

/* sched_migrate_task(struct task_struct *p, int dest_cpu) */
SEC("raw_tp/sched_migrate_task")
int BPF_PROG(gt_on_migrate, struct task_struct *p, int dest_cpu)
{
    struct gt_probe_slot *s = slot_of(BPF_CORE_READ(p, pid));
    if (s)
        __sync_fetch_and_add(&s->migrations, 1);
    return 0;
}

/* page_fault_user(unsigned long address, struct pt_regs *regs, unsigned long error_code), on
 * x86 only; the loader attaches it when it can and says so when it cannot. The faulting
 * thread is the current one. */
SEC("raw_tp/page_fault_user")
int BPF_PROG(gt_on_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
    struct gt_probe_slot *s = slot_of((__u32)bpf_get_current_pid_tgid());
    if (s)
        __sync_fetch_and_add(&s->page_faults, 1);
    return 0;
}
