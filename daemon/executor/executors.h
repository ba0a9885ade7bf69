/* executors.h: gridtuned's executor processes, one per user (uid): no process maps two users'
 * buffers or loads two users' kernels, so a kernel that reads out of bounds reads its own
 * user's data at worst, and one that crashes fails its own user's launch.
 *
 * Each user also has a launcher thread of its own (a job queue, jobq.h), which runs that
 * user's launches and requests to its executor in order. The threads share the CPUs through
 * one CPU grant (cpu_grant.h): only the holder's executor runs, so the executors' workers never
 * compete for the CPUs, and a holder that has had its time slice while another user waits is
 * paused until its turn comes again. So one user's kernel that never returns delays the other
 * users' launches by a slice per turn instead of holding them. */
#ifndef GT_EXECUTORS_H
#define GT_EXECUTORS_H

#include "exec_proc.h"

#include "daemon/jobq.h"

#include <event2/event.h>

typedef struct gt_executors gt_executors;

typedef struct gt_executors_config {
    gt_exec_proc_config proc; /* copied; its strings are borrowed */
    struct event_base *base;  /* the loop the users' queues hand finished jobs back to */
    unsigned launcher_spin_us;
    unsigned slice_ms; /* the CPU grant's time slice; 0: none */
} gt_executors_config;

/* NULL without memory. */
gt_executors *gt_executors_new(const gt_executors_config *cfg);
/* Runs what is still queued and joins every user's thread (jobq.h's gt_jobq_destroy); the
 * processes stay until gt_executors_free. Loop thread. */
void gt_executors_stop(gt_executors *e);
/* Ends every process. */
void gt_executors_free(gt_executors *e);
/* The user's executor, made (not started) on first use; NULL without memory. Any thread. */
gt_exec_proc *gt_executors_for(gt_executors *e, uid_t uid);
/* The user's launcher queue, made on first use; NULL when it cannot be (no memory or no
 * thread). Loop thread. */
gt_jobq *gt_executors_queue(gt_executors *e, uid_t uid);
/* Jobs pushed to any user's queue and not yet handed back (loop thread). */
unsigned gt_executors_pending(gt_executors *e);
/* Around anything that makes the user's executor work: waits for the CPU grant, and gives it
 * back. On the user's own launcher thread, or on the loop's when that thread is idle and the
 * grant is free now (try: takes it only then, without waiting). */
void gt_executors_take_cpus(gt_executors *e, uid_t uid);
bool gt_executors_try_take_cpus(gt_executors *e, uid_t uid);
void gt_executors_give_cpus(gt_executors *e, uid_t uid);
/* Times a holder of the CPUs was paused for another user, since the start. */
uint64_t gt_executors_pauses(gt_executors *e);

#endif
