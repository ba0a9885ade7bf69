/* roundtrip.h: what one launch costs beyond its work. The launch round trip of an empty kernel
 * through gridtuned (gt_launch + gt_wait: two requests and their answers), the sizes of those
 * four frames as a daemon's protocol trace records them, and the floor: a raw ping-pong of
 * frames of the same sizes between two processes on a Unix stream socket, with nothing done
 * in between. */
#ifndef GT_ROUNDTRIP_H
#define GT_ROUNDTRIP_H

#include <gridtune/gridtune.h>

#include <stddef.h>
#include <stdint.h>

/* launch request, its answer, wait request, its answer */
#define GT_RT_FRAMES 4

/* The C source of the empty kernel, named "empty", with no parameters. */
extern const char gt_rt_empty_source[];

/* reps launches of k (no parameters) over one work-item, tuning off, each timed from gt_launch
 * to the end of gt_wait into ns[i]; the event is released after the clock stops. 0, or -1
 * after saying why (kernels/say.h). */
int gt_rt_gridtuned(gt_client *c, gt_kernel *k, unsigned reps, uint64_t *ns);

/* The wire sizes (header included) of the last launch and wait exchange in a daemon's trace.
 * 0, or -1 after printing why. */
int gt_rt_frame_sizes(const char *trace, size_t sizes[GT_RT_FRAMES]);

/* reps rounds of the raw ping-pong: sizes[0] bytes to a child process, sizes[1] back, then
 * sizes[2] and sizes[3]; each round timed into ns[i]. 0, or -1 after printing why. */
int gt_rt_pingpong(const size_t sizes[GT_RT_FRAMES], unsigned reps, uint64_t *ns);

#endif
