/* kernels.h: kernel loads and builds as the daemon runs them (kernels.c). They run one at a time
 * on the kernel thread, and users take turns there: its queue holds at most one job of each
 * uid, and the user's other jobs wait behind it, the user's connections taking turns in their
 * order. So one client's slow modules (a load may take its whole deadline, a build its
 * compiler's) delay another client's next load by at most one job of each user with jobs, and
 * of each connection of its own user with jobs. */
#ifndef GT_KERNELS_H
#define GT_KERNELS_H

#include "daemon/daemon.h"

/* At shutdown, once every session is closed and before the kernel thread's queue is destroyed:
 * the jobs waiting for their user's turn go to the queue, which runs (as cancelled) and hands
 * back every job it holds. After a stop whose drain finished none wait (the drain waits for
 * them too); this keeps every job handed back however the loop ended. From the loop's thread. */
void gt_kernel_jobs_release_turns(gt_daemon *d);

#endif
