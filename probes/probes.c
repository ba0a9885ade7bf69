/* probes.c: loads sched_watch.bpf.c through its generated skeleton and reads its figures.
 * The flow is libbpf-bootstrap's: open, load, attach, read, destroy. */
#include "probes.h"

#include "sched_watch.h"
#include "sched_watch.skel.h"
#include "tuner/clock.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"
#define LOCKDOWN "/sys/kernel/security/lockdown"
#define INITIAL_PID_NAMESPACE 0xEFFFFFFCu /* the kernel's PROC_PID_INIT_INO */

_Static_assert(GT_PROBE_SLOTS >= 256, "a slot for each of the pool's most workers");

struct gt_probes {
    struct sched_watch_bpf *skel;
};

/* libbpf's last warning, kept as the reason when loading fails; libbpf says nothing else. */
static __thread char libbpf_said[160];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_WARN) {
        vsnprintf(libbpf_said, sizeof libbpf_said, fmt, ap);
        libbpf_said[strcspn(libbpf_said, "\n")] = '\0';
    }
    return 0;
}

/* "[none] integrity confidentiality": the bracketed mode is the active one. Only
   confidentiality forbids reading kernel memory, which the programs do. */
static bool locked_down(void)
{
    char text[128] = "";
    FILE *f = fopen(LOCKDOWN, "r");
    if (!f)
        return false;
    bool got = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    return got && strstr(text, "[confidentiality]") != NULL;
}

/* The programs know threads by their ids in the initial PID namespace; in another one (a
   container) the daemon's ids differ, and no worker would ever be recognised. */
static bool in_initial_pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == INITIAL_PID_NAMESPACE;
}

static void say_why(int rc, const char *step, gt_probe_status *st)
{
    if (locked_down())
        snprintf(st->reason, sizeof st->reason, "the kernel is locked down (confidentiality), which forbids BPF tracing");
    else if (rc == -EPERM)
        snprintf(st->reason, sizeof st->reason,
                 "the kernel refused BPF (%s): gridtuned needs root, or CAP_BPF and CAP_PERFMON", strerror(-rc));
    else
        snprintf(st->reason, sizeof st->reason, "%s failed: %s%s%s", step, strerror(-rc), libbpf_said[0] ? "; " : "",
                 libbpf_said);
}

int gt_probes_open(gt_probes **out, gt_probe_status *st)
{
    *out = NULL;
    *st = (gt_probe_status){.state = GT_PROBES_UNAVAILABLE};
    if (access(KERNEL_BTF, R_OK) != 0) {
        snprintf(st->reason, sizeof st->reason, "no kernel BTF at " KERNEL_BTF " (%s)", strerror(errno));
        return -ENOENT;
    }
    if (!in_initial_pid_namespace()) {
        snprintf(st->reason, sizeof st->reason,
                 "gridtuned runs in a PID namespace of its own (a container), where the probes cannot tell its "
                 "threads");
        return -ENOTSUP;
    }
    libbpf_said[0] = '\0';
    libbpf_print_fn_t before = libbpf_set_print(keep_warning);
    gt_probes *p = calloc(1, sizeof *p);
    int rc = p ? 0 : -ENOMEM;
    if (rc == 0 && !(p->skel = sched_watch_bpf__open()))
        rc = -errno;
    if (rc == 0) {
        bpf_program__set_autoattach(p->skel->progs.gt_on_fault, false);
        p->skel->rodata->own_tgid = (__u32)getpid();
        if ((rc = sched_watch_bpf__load(p->skel)) < 0)
            say_why(rc, "loading the BPF programs", st);
        else if ((rc = sched_watch_bpf__attach(p->skel)) < 0)
            say_why(rc, "attaching to sched_switch, sched_wakeup and sched_migrate_task", st);
    } else {
        say_why(rc, "opening the BPF object", st);
    }
    if (rc == 0) {
        /* page_fault_user exists on x86 only; without it the rest still runs */
        p->skel->links.gt_on_fault = bpf_program__attach_raw_tracepoint(p->skel->progs.gt_on_fault, "page_fault_user");
        st->page_faults = p->skel->links.gt_on_fault != NULL;
        st->state = GT_PROBES_ON;
        snprintf(st->reason, sizeof st->reason, "raw tracepoints sched_switch, sched_wakeup, sched_migrate_task%s",
                 st->page_faults ? ", page_fault_user" : "; no page_fault_user, so page faults are not counted");
    }
    libbpf_set_print(before);
    if (rc < 0) {
        gt_probes_close(p);
        return rc;
    }
    *out = p;
    return 0;
}

void gt_probes_close(gt_probes *p)
{
    if (!p)
        return;
    sched_watch_bpf__destroy(p->skel);
    free(p);
}

int gt_probes_watch(gt_probes *p, unsigned slot, pid_t tid, char *err, size_t errlen)
{
    if (slot >= GT_PROBE_SLOTS) {
        snprintf(err, errlen, "probe slot %u: there are %d", slot, GT_PROBE_SLOTS);
        return -EINVAL;
    }
    memset(&p->skel->bss->slots[slot], 0, sizeof p->skel->bss->slots[slot]);
    __u32 key = (__u32)tid, value = slot;
    int rc = bpf_map__update_elem(p->skel->maps.worker_slots, &key, sizeof key, &value, sizeof value, BPF_ANY);
    if (rc < 0)
        snprintf(err, errlen, "watching thread %d: %s", (int)tid, strerror(-rc));
    return rc;
}

void gt_probes_unwatch(gt_probes *p, pid_t tid)
{
    __u32 key = (__u32)tid;
    (void)bpf_map__delete_elem(p->skel->maps.worker_slots, &key, sizeof key, 0);
}

static uint64_t load(const __u64 *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void gt_probes_read(const gt_probes *p, unsigned slot, gt_probe_figures *out)
{
    *out = (gt_probe_figures){0};
    if (!p || slot >= GT_PROBE_SLOTS)
        return;
    const struct gt_probe_slot *s = &p->skel->bss->slots[slot];
    out->involuntary_switches = load(&s->involuntary_switches);
    out->offcpu_ns = load(&s->offcpu_ns);
    out->migrations = load(&s->migrations);
    out->page_faults = load(&s->page_faults);
    /* preempted by another tenant right now: the wait so far counts, as the program will count
       all of it (same clock as bpf_ktime_get_ns); a wait that began at a wakeup may yet turn
       out to be the CPU waking up, so it counts once it ends */
    uint64_t wait = load(&s->wait);
    if (wait && !(wait & GT_WAIT_WOKEN)) {
        uint64_t now = gt_clock_ns();
        out->offcpu_ns += now > wait ? now - wait : 0;
    }
}
