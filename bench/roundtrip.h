/* roundtrip.h: what one launch costs beyond its work. The launch round trip of an empty kernel
 * through gridtuned, two ways: in one trip (gt_run: a launch request answered on completion)
 * and in two requests (gt_launch + gt_wait); the sizes of their frames as a daemon's protocol
 * trace records them; and the floor: a raw ping-pong of frames of the same sizes between two
 * processes on a Unix stream socket, with nothing done in between. */
#ifndef GT_ROUNDTRIP_H
#define GT_ROUNDTRIP_H

#include <gridtune/gridtune.h>

#include <stddef.h>
#include <stdint.h>

/* The two ways a launch makes its round trip. */
typedef enum gt_rt_path {
    GT_RT_ONE_TRIP,     /* gt_run: the launch request and its answer on completion */
    GT_RT_TWO_REQUESTS, /* gt_launch + gt_wait: launch request, its answer, wait request, its answer */
    GT_RT_PATHS
} gt_rt_path;

#define GT_RT_MAX_FRAMES 4

/* A path's frames in the order they cross: request, answer, request, answer. */
typedef struct gt_rt_frames {
    unsigned n; /* 2 or 4 */
    size_t size[GT_RT_MAX_FRAMES];
} gt_rt_frames;

/* The C source of the empty kernel, named "empty", with no parameters. */
extern const char gt_rt_empty_source[];

/* reps launches of k (no parameters) over one work-item, tuning off, the way path says, each
 * timed from the first request to the last answer into ns[i]; a kept event is released after
 * the clock stops. 0, or -1 after saying why (kernels/say.h). */
int gt_rt_gridtuned(gt_client *c, gt_kernel *k, gt_rt_path path, unsigned reps, uint64_t *ns);

/* The wire sizes (header included) of each path's last exchange in a daemon's trace. 0, or -1
 * after printing why. */
int gt_rt_frame_sizes(const char *trace, gt_rt_frames frames[GT_RT_PATHS]);

/* reps rounds of the raw ping-pong of f's frames: f->size[0] bytes to a child process,
 * f->size[1] back, then (with 4 frames) f->size[2] and f->size[3]; each round timed into ns[i].
 * 0, or -1 after printing why. */
int gt_rt_pingpong(const gt_rt_frames *f, unsigned reps, uint64_t *ns);

#endif
