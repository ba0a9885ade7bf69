/* executors.h: gridtuned's executor processes, one per user (uid): no process maps two users'
 * buffers or loads two users' kernels, so a kernel that reads out of bounds reads its own
 * user's data at worst, and one that crashes fails its own user's launch. Launches still run
 * one at a time, all users together (the launcher thread), so the executors' workers never
 * compete for the CPUs: an idle executor's workers sleep. Launcher thread only. */
#ifndef GT_EXECUTORS_H
#define GT_EXECUTORS_H

#include "exec_proc.h"

typedef struct gt_executors gt_executors;

/* cfg is copied; its strings are borrowed. NULL without memory. */
gt_executors *gt_executors_new(const gt_exec_proc_config *cfg);
/* Ends every process. */
void gt_executors_free(gt_executors *e);
/* The user's executor, made (not started) on first use; NULL without memory. */
gt_exec_proc *gt_executors_for(gt_executors *e, uid_t uid);
/* The buffer is gone: every executor that maps it unmaps it. */
void gt_executors_unmap(gt_executors *e, uint64_t buffer);
/* The kernel is gone: no executor loads it again. */
void gt_executors_forget(gt_executors *e, uint64_t kernel);

#endif
