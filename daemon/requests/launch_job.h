/* launch_job.h: one launch on its way through gridtuned, shared by the requests (launches.c:
 * parsing, queueing, completion, in-process runs) and the path through a user's executor
 * process (launch_exec.c). Private to daemon/requests. */
#ifndef GT_LAUNCH_JOB_H
#define GT_LAUNCH_JOB_H

#include "launches.h"
#include "launch_parse.h"

#include "daemon/jobq.h"
#include "daemon/loaded_kernel.h"
#include "daemon/shm.h"
#include "daemon/executor/exec_proc.h"
#include "engine/pool_executor.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

#include <stdbool.h>
#include <stdint.h>

/* A launch in its user's executor: its request, and what its outcome is read against. */
typedef struct exec_launch {
    gt_exec_proc *p;
    gt_exec_launch l;
    gt_tune_launch tl;
    gt_wisdom_key key;
    unsigned pauses; /* the executor's, before the launch */
    const gt_exec_outcome *answer; /* the loop's thread took the answer, valid until p's next call */
    const void *result;
} exec_launch;

typedef struct launch_job {
    gt_job job;
    gt_session *s;
    gt_launch_event *ev;
    gt_loaded_kernel *kernel;
    gt_shm *bufs[GT_MAX_ARGS];
    gt_arg_value args[GT_MAX_ARGS];
    void *slots[GT_MAX_ARGS];
    unsigned nargs;
    gt_range range;
    gt_tune_config cfg;
    gt_launch_event *waits[GT_MAX_WAIT];
    unsigned nwaits;
    gt_launch_answer answer;
    uint64_t answer_request; /* the launch request's id, when answered on completion */
    unsigned deadline_ms;    /* the launch's own, or --launch-timeout's; 0: none */
    bool answered_early;     /* answer_early counted it in the session's early_answers */
    uint64_t report_id;
    /* Filled by run(). */
    gt_pool_executor pe;
    exec_launch x;
    bool ran;
    gt_decision_source source;
    uint64_t groups, groups_analysis;
    unsigned disturbed_samples;
} launch_job;

/* The launch failed (its event's error: the protocol's code, errno and a sentence). */
void gt_launch_fail(launch_job *j, const char *code, int errnum, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* One of its kernel's preconditions refused it (why quotes it): answered as bad arguments, as
 * when a launch is refused on arrival, though only where the kernel runs can its module's code
 * evaluate them. */
void gt_launch_refuse(launch_job *j, const char *why);
/* A launch that asked to be answered on completion, and succeeded, is answered now, from the
 * thread that ran it (session.h, early_answers). */
void gt_launch_answer_early(launch_job *j);
/* The job's done(): on the loop's thread, answers its waiters, counts it and frees it. */
void gt_launch_done(gt_job *job);

/* launch_exec.c. On the user's launcher thread: the launch in the user's executor, once that
 * holds the CPUs. */
void gt_launch_run_in_executor(launch_job *j);
/* On the loop's thread: sends a small launch straight to its user's executor when nothing
 * stands in the way, and runs it to completion or hands it to the launcher thread. false when
 * the launch must be queued as usual. */
bool gt_launch_from_loop(launch_job *j, gt_jobq *queue);

#endif
