/* exec_jobs.c: requests to the executors, as jobs on their users' launcher threads (exec_jobs.h). */
#include "exec_jobs.h"

#include "executors.h"

#include "daemon/jobq.h"
#include "daemon/log.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

typedef enum exec_job_kind { JOB_LOAD, JOB_FORGET_KERNEL, JOB_UNMAP } exec_job_kind;

typedef struct exec_job {
    gt_job job;
    gt_daemon *d;
    exec_job_kind kind;
    uid_t uid;
    gt_loaded_kernel *kernel; /* JOB_LOAD: a reference of the job's own */
    uint64_t serial;
    int fd; /* JOB_UNMAP: the buffer's memfd, closed when every executor has unmapped it */
} exec_job;

static void exec_job_run(gt_job *job)
{
    exec_job *j = (exec_job *)job;
    gt_executors *e = j->d->executors;
    gt_exec_proc *p = gt_executors_for(e, j->uid);
    if (!p)
        return;
    if (j->kind == JOB_UNMAP) {
        gt_exec_proc_unmap(p, j->serial);
        return;
    }
    if (j->kind == JOB_FORGET_KERNEL) {
        gt_exec_proc_forget(p, j->serial);
        return;
    }
    if (atomic_load(&j->d->stopping))
        return;
    char err[512];
    gt_executors_take_cpus(e, j->uid); /* it may start the executor, which loads every kernel */
    int rc = gt_exec_proc_load(p, j->kernel->serial, j->kernel->path, j->kernel->desc->name, err, sizeof err);
    gt_executors_give_cpus(e, j->uid);
    if (rc)
        gt_log_warn("kernel %s could not be loaded ahead of its launches: %s", j->kernel->desc->name, err);
}

static void exec_job_done(gt_job *job)
{
    exec_job *j = (exec_job *)job;
    if (j->kind == JOB_UNMAP) {
        j->d->stats.unmapping--;
        close(j->fd);
    }
    gt_loaded_kernel_unref(j->kernel);
    free(j);
}

gt_jobq *gt_exec_jobs_queue(gt_daemon *d, uid_t uid)
{
    return d->executors ? gt_executors_queue(d->executors, uid) : d->launcher;
}

static bool push(gt_daemon *d, exec_job *proto)
{
    if (atomic_load(&d->stopping)) /* the executors end with gridtuned */
        return false;
    gt_jobq *queue = gt_exec_jobs_queue(d, proto->uid);
    exec_job *j = queue ? malloc(sizeof *j) : NULL;
    if (!j) {
        gt_log_warn("out of memory asking the executors about %s %" PRIu64 "; a restarted one makes up for it",
                    proto->kind == JOB_UNMAP ? "buffer" : "kernel", proto->serial);
        return false;
    }
    *j = *proto;
    j->job = (gt_job){.run = exec_job_run, .done = exec_job_done};
    j->d = d;
    if (j->kernel)
        gt_loaded_kernel_ref(j->kernel);
    if (j->kind == JOB_UNMAP)
        d->stats.unmapping++;
    gt_jobq_push(queue, &j->job);
    return true;
}

void gt_exec_jobs_load(gt_daemon *d, uid_t uid, gt_loaded_kernel *k)
{
    push(d, &(exec_job){.kind = JOB_LOAD, .uid = uid, .kernel = k, .fd = -1});
}

void gt_exec_jobs_forget_kernel(gt_daemon *d, uid_t uid, uint64_t serial)
{
    push(d, &(exec_job){.kind = JOB_FORGET_KERNEL, .uid = uid, .serial = serial, .fd = -1});
}

bool gt_exec_jobs_unmap(gt_daemon *d, uid_t uid, uint64_t serial, int fd)
{
    return push(d, &(exec_job){.kind = JOB_UNMAP, .uid = uid, .serial = serial, .fd = fd});
}
