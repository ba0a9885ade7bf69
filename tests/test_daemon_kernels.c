/* test_daemon_kernels.c: the kernel module the daemon integration tests load into a real
 * gridtuned. fill writes a result every element of which can be checked; hold keeps a launch
 * running for exactly as long as a process the test controls is alive, so "during a launch"
 * does not depend on how fast the machine is. */
#include <gridtune/kernel.h>

#include <errno.h>
#include <signal.h>
#include <time.h>

/* dst[linear global id] = v + that id, x fastest: any element a launch missed or wrote
 * twice with another v shows. */
GT_KERNEL(fill, int32_t *, dst, int32_t, v)
{
    size_t id = gt_global_id(0) + gt_global_size(0) * (gt_global_id(1) + gt_global_size(1) * gt_global_id(2));
    dst[id] = v + (int32_t)id;
}
GT_BUFFER_EXTENT(fill, dst, sizeof(int32_t));

/* Polls every millisecond until process `pid` is gone (reaped), at most max_polls times, and
 * stores how many polls it took in dst[global id 0], so a test can tell a launch released by
 * the process ending (fewer than max_polls) from one that gave up. Launch it 1-D with a local
 * size of 1: each work-item is a workgroup of its own, and all of them wait. */
GT_KERNEL(hold, int32_t *, dst, int32_t, pid, int32_t, max_polls)
{
    const struct timespec poll_interval = {0, 1000000};
    int32_t polls = 0;
    while (polls < max_polls && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) {
        nanosleep(&poll_interval, NULL);
        polls++;
    }
    dst[gt_global_id(0)] = polls;
}
