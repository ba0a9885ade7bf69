/* exec_proc.h: gridtuned's handle on one executor process (gridtune-exec, main.c): it starts
 * the process, sends it buffers and kernels when a launch first needs them, runs launches in
 * it, and notices its death. A process that died (a kernel faulted, or ran past its deadline
 * and was killed) is started again by the next request; what it had mapped and loaded is sent
 * again as launches need it. Used from one thread at a time (its user's launcher thread, or
 * the loop's while that is idle: gt_exec_proc_launch_send), but for gt_exec_proc_workers and
 * the pauses. */
#ifndef GT_EXEC_PROC_H
#define GT_EXEC_PROC_H

#include "exec_msg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gt_exec_proc gt_exec_proc;

typedef struct gt_exec_proc_config {
    const char *path; /* the gridtune-exec program */
    unsigned workers; /* resolved: at least 1 */
    bool no_pin, no_probes;
    bool no_populate; /* leave a buffer's pages to be faulted in by its first launch */
    char *const *events;
    unsigned nevents;
    unsigned spin_us; /* how long either side polls for the other's next message */
} gt_exec_proc_config;

/* cfg's strings are borrowed and must outlive the handle. Nothing starts yet. NULL without
 * memory. */
gt_exec_proc *gt_exec_proc_new(const gt_exec_proc_config *cfg, uid_t uid);
/* Closes the channel, which ends the process, and reaps it (killing it if it does not go). */
void gt_exec_proc_free(gt_exec_proc *p);
uid_t gt_exec_proc_uid(const gt_exec_proc *p);
/* Starts the process if it is not running, and waits for its hello. 0 or a negative errno
 * with a sentence. */
int gt_exec_proc_start(gt_exec_proc *p, char *err, size_t errlen);
/* Stops (SIGSTOP) and continues the running process, from any thread: the CPU grant's way of
 * giving the CPUs to another user's executor (cpu_grant.h). A request's deadline counts only
 * the time it ran. */
void gt_exec_proc_pause(gt_exec_proc *p);
void gt_exec_proc_resume(gt_exec_proc *p);
/* Times it was paused so far. */
unsigned gt_exec_proc_pauses(gt_exec_proc *p);
/* What the running process said at start (valid after gt_exec_proc_start succeeded). */
const gt_exec_hello *gt_exec_proc_hello(const gt_exec_proc *p);

/* Any thread: the workers as the process's latest reply saw them, at most max; 0 without
 * probes or before the process started. */
unsigned gt_exec_proc_workers(gt_exec_proc *p, gt_exec_worker *out, unsigned max);

/* Maps the buffer id (its memfd fd, size bytes) in the process, unless it is mapped already,
 * and in every process started after this one. fd is borrowed: it must stay open until
 * gt_exec_proc_unmap. */
int gt_exec_proc_map(gt_exec_proc *p, uint64_t id, int fd, uint64_t size, char *err, size_t errlen);
/* The buffer is gone for gridtuned: it is unmapped there, and fd is no longer used. */
void gt_exec_proc_unmap(gt_exec_proc *p, uint64_t id);
/* Loads kernel id (name in the module at path) in the process, unless loaded already. A
 * process seals itself into its sandbox at its first launch and cannot load after that: a new
 * one is started, which loads every kernel loaded so far (and not forgotten). */
int gt_exec_proc_load(gt_exec_proc *p, uint64_t id, const char *path, const char *name, char *err, size_t errlen);
/* The kernel is gone for gridtuned: a new process does not load it. */
void gt_exec_proc_forget(gt_exec_proc *p, uint64_t id);

/* Runs the launch, whose buffers and kernel must have been mapped and loaded, and waits at most
 * deadline_ms (0: no deadline) or until cancelled(ctx) says so (may be NULL; asked every few
 * milliseconds). On success (0) *out is the launch's outcome and *result its tuner result
 * (out->result_len bytes, unchecked: exec_result.h reads it), both valid until the next call.
 * Otherwise a negative errno with a sentence: a kernel that killed the process (-ECHILD,
 * naming the signal and the address), a launch past its deadline or cancelled (-ETIMEDOUT,
 * -ECANCELED: the process is killed), or the launch's own failure. */
typedef struct gt_exec_cancel {
    bool (*cancelled)(void *ctx);
    void *ctx;
} gt_exec_cancel;
int gt_exec_proc_launch(gt_exec_proc *p, const gt_exec_launch *launch, unsigned deadline_ms, const gt_exec_cancel *cancel,
                        const gt_exec_outcome **out, const void **result, char *err, size_t errlen);

/* A launch in two steps, for a caller that must not block long (the loop's thread, with a
 * small launch). Ready: the process runs, is sealed, and has the kernel and every buffer, so
 * that a launch needs nothing but its request. Send: sends the launch (0, or a negative errno
 * with a sentence). Poll: the reply, if it comes while the channel's spin lasts: 0 or the
 * launch's failure as gt_exec_proc_launch says; -EINPROGRESS when it has not come or the
 * process is gone. Wait: after a poll's -EINPROGRESS, waits for the reply as
 * gt_exec_proc_launch does, on whichever thread uses the handle from then on. */
bool gt_exec_proc_ready(gt_exec_proc *p, uint64_t kernel, const uint64_t *buffers, unsigned nbuffers);
int gt_exec_proc_launch_send(gt_exec_proc *p, const gt_exec_launch *launch, char *err, size_t errlen);
int gt_exec_proc_launch_poll(gt_exec_proc *p, const gt_exec_outcome **out, const void **result, char *err,
                             size_t errlen);
int gt_exec_proc_launch_wait(gt_exec_proc *p, unsigned deadline_ms, const gt_exec_cancel *cancel,
                             const gt_exec_outcome **out, const void **result, char *err, size_t errlen);

#endif
