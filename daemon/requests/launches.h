/* launches.h: launches as the daemon runs them. A launch request becomes an event (the
 * client's handle on it) and a job on the launcher queue. The job runs on the launcher
 * thread through the tuner and the worker pool (a launch of a few workgroups on the launcher
 * thread itself); when it is done, on the loop's thread, the event records the outcome and
 * the report, and the wait and report requests that were waiting for it are answered, and
 * so is the launch request itself when it asked to be answered on completion. */
#ifndef GT_LAUNCHES_H
#define GT_LAUNCHES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_launch_waiter {
    uint64_t request;
    const char *type; /* "wait", "report", or "launch" for a launch answered on completion */
} gt_launch_waiter;

typedef struct gt_launch_event {
    uint64_t id;
    unsigned refs;  /* the session's table, the launch's job, later launches that wait on it */
    bool done;      /* the outcome below is final (set on the loop's thread) */
    bool kept;      /* the client may name it later; else it is forgotten once done */
    /* The launch request answered on completion has had its answer, from the launcher thread
       (which answers a success at once) or the loop's (everything else); the first to set it
       answers. */
    atomic_bool launch_answered;
    /* Written by the launcher thread when the job ends, read by later jobs on that thread:
       0 while pending, 1 succeeded, -1 failed or cancelled. */
    atomic_int outcome;
    /* Set by the cancel request (the loop's thread): a queued launch does not run, a running
       one in an executor process is stopped by ending the process. */
    atomic_bool cancel;
    atomic_bool started; /* the launcher took it up (and did not cancel it) */
    const char *code; /* failure: a GT_ERR_* code */
    int errnum;
    char message[1024];
    struct gt_launch_report *report; /* when the launch ran (daemon/launch_report.h) */
    gt_launch_waiter *waiters;
    size_t nwaiters, capwaiters;
} gt_launch_event;

void gt_launch_event_unref(gt_launch_event *ev);

typedef struct gt_session gt_session;
/* Answers every wait and report request of s still waiting for a launch with a `cancelled`
 * error carrying message, for a daemon that stops without those launches (the running one
 * outlived --stop-grace). The events stay as they are: their jobs still hold them. */
void gt_launch_abandon_waiters(gt_session *s, const char *message);

#endif
