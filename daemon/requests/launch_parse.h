/* launch_parse.h: the launch request's range, arguments and options, read and checked. Each
 * returns false after answering the request with an error that names the bad value. */
#ifndef GT_LAUNCH_PARSE_H
#define GT_LAUNCH_PARSE_H

#include "reply.h"

#include "daemon/kernel_info.h"
#include "daemon/shm.h"
#include "engine/module.h"
#include "tuner/tune.h"

/* range: {dims, global: [...], local: [...]}, checked with gt_range_check. */
bool gt_parse_range(const gt_request *r, const cJSON *v, gt_range *out);
/* args: one object per argument; buffers are looked up in the session (bufs[i] is the
 * buffer of argument i or NULL; borrowed), then all are checked against the signature. */
bool gt_parse_args(const gt_request *r, const cJSON *v, const gt_kernel_desc *desc, gt_arg_value *args,
                   gt_shm **bufs, unsigned *nargs);
/* Whether the buffer arguments (bufs from gt_parse_args) hold the extents info declares: each
 * its bytes per work-item for every work-item of range. The kernel's preconditions (GT_REQUIRE)
 * are code, so they are evaluated where it runs, before it runs (gt_preconditions_check). */
bool gt_check_extents(const gt_request *r, const gt_kernel_info *info, const gt_range *range, gt_shm *const *bufs,
                      unsigned nargs);
/* When a launch is answered, from the request's "answer" and "keep_event". */
typedef struct gt_launch_answer {
    bool on_completion; /* "answer": "completed": the result (or the launch's error) comes when it has
                           run; else ("queued", the default) as soon as it is queued */
    bool keep_event;    /* "keep_event" (default true): the daemon keeps the event for wait, report and
                           event_release; false (only with "completed") forgets it once answered */
} gt_launch_answer;

/* answer and keep_event of the launch request msg (both optional). */
bool gt_parse_answer(const gt_request *r, const cJSON *msg, gt_launch_answer *out);
/* options: schedule, tuning, budget, metric, applied over cfg (the daemon's defaults). */
bool gt_parse_options(const gt_request *r, const cJSON *v, gt_tune_config *cfg, unsigned *deadline_ms);

#endif
