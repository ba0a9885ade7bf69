/* exec_jobs.h: what the event loop's thread asks of the executor processes. Only a user's own
 * launcher thread talks to that user's executor, so each request is a job on its queue, in
 * order with the user's launches: a kernel a client loaded is loaded by its user's executor
 * before its launches come, and a buffer or kernel gone for gridtuned is forgotten there. Loop
 * thread only. */
#ifndef GT_EXEC_JOBS_H
#define GT_EXEC_JOBS_H

#include "daemon/daemon.h"
#include "daemon/loaded_kernel.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The queue uid's launches and executor requests run on: the user's own launcher thread with
 * executor processes, else gridtuned's one launcher. NULL when the user's thread cannot be
 * started. */
gt_jobq *gt_exec_jobs_queue(gt_daemon *d, uid_t uid);
/* Loads k (a reference is held until done) in uid's executor. A failure is only logged: the
 * launch that needs the kernel loads it again and says why. */
void gt_exec_jobs_load(gt_daemon *d, uid_t uid, gt_loaded_kernel *k);
/* uid's executor does not load kernel `serial` again. */
void gt_exec_jobs_forget_kernel(gt_daemon *d, uid_t uid, uint64_t serial);
/* uid's executor unmaps buffer `serial`; then fd, the buffer's memfd, is closed. False when no
 * job could be queued (gridtuned stopping, or no memory): fd is then the caller's. */
bool gt_exec_jobs_unmap(gt_daemon *d, uid_t uid, uint64_t serial, int fd);

#endif
