/* launch_exec.c: a launch in its user's executor process (launch_job.h): the request, its
 * answer taken in as untrusted data (the decision, the report, the outcome), on the user's
 * launcher thread or, for a small launch, from the loop's thread. */
#include "launch_job.h"

#include "daemon/log.h"
#include "daemon/launch_report.h"
#include "daemon/executor/exec_result.h"
#include "daemon/executor/executors.h"
#include "tuner/clock.h"
#include "tuner/grid.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* The wisdom takes the executor's entry only for the launch's own key, and only as it would
 * take one from a file: every field checked. */
static void take_entry(launch_job *j, const gt_wisdom_key *key, const gt_exec_outcome *o)
{
    gt_daemon *d = j->s->d;
    char err[256];
    if (!gt_wisdom_key_equal(&o->key, key))
        gt_log_warn("launch %" PRIu64 ": the executor returned a decision for another key; it is ignored", j->ev->id);
    else {
        pthread_mutex_lock(&d->wisdom_lock); /* other users' launcher threads take entries too */
        if (gt_wisdom_store(d->wisdom, key, &o->entry, err, sizeof err) != 0)
            gt_log_warn("launch %" PRIu64 ": the executor's decision was refused: %s", j->ev->id, err);
        else {
            gt_wisdom_claim(d->wisdom, key, (uint32_t)j->s->uid);
            gt_wisdom_saver_changed(d->wisdom_saver);
        }
        pthread_mutex_unlock(&d->wisdom_lock);
    }
}

/* The report of a launch an executor ran, from its tuner result, written when first read as
 * for an in-process launch. The executor's counters and probes stand for what ran it, unless
 * it ran on the executor's own thread (one worker, none of either). */
static void keep_executor_report(launch_job *j, gt_exec_proc *p, const gt_exec_launch *l, const gt_tune_launch *tl,
                                 const gt_exec_outcome *o, const void *result)
{
    gt_tune_result res;
    char why[256];
    if (o->result_len == 0 || gt_exec_result_read(result, o->result_len, &res, why, sizeof why) != 0) {
        gt_log_warn("launch %" PRIu64 ": no report: %s", j->report_id,
                    o->result_len ? why : "the executor's result did not fit its reply");
        return;
    }
    const gt_exec_hello *h = gt_exec_proc_hello(p);
    gt_executor ran = {.workers = l->run_here ? 1 : h->workers,
                       .no_spans = j->kernel->desc->flags & GT_KERNEL_NO_SPANS,
                       .counters = l->run_here ? NULL : &h->counters,
                       .probes = l->run_here ? NULL : &h->probes};
    gt_tune_config used = gt_tune_config_for(&j->cfg, &ran);
    j->ev->report = gt_launch_report_new(&used, tl, &res, ran.counters, ran.probes, ran.workers, j->report_id,
                                         l->started_ms);
    if (!j->ev->report)
        gt_log_warn("launch %" PRIu64 ": out of memory keeping its report", j->report_id);
}

/* Sends the launch's kernel and buffers to its user's executor process, unless it has them. */
static int prepare_executor(launch_job *j, gt_exec_proc **out, char *err, size_t errlen)
{
    gt_exec_proc *p = *out = gt_executors_for(j->s->d->executors, (uid_t)j->s->uid);
    if (!p)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
    int rc = gt_exec_proc_load(p, j->kernel->serial, j->kernel->path, j->kernel->desc->name, err, errlen);
    for (unsigned i = 0; rc == 0 && i < j->nargs; i++)
        if (j->bufs[i])
            rc = gt_exec_proc_map(p, j->bufs[i]->serial, j->bufs[i]->fd, j->bufs[i]->size, err, errlen);
    return rc;
}

/* A running launch stops when its client cancels it or goes. */
static bool running_cancelled(void *ctx)
{
    launch_job *j = ctx;
    return atomic_load(&j->ev->cancel) || atomic_load(&j->s->closed);
}

/* The launch's request to its user's executor p, and its key in the wisdom here. */
static void exec_launch_fill(launch_job *j, gt_exec_proc *p)
{
    gt_daemon *d = j->s->d;
    exec_launch *x = &j->x;
    x->p = p;
    x->l = (gt_exec_launch){.kernel = j->kernel->serial, .nargs = j->nargs, .range = j->range, .cfg = j->cfg,
                            .run_here = gt_range_group_count(&j->range) <= d->cfg->inline_groups,
                            .report_id = j->report_id, .started_ms = gt_clock_unix_ms()};
    for (unsigned i = 0; i < j->nargs; i++) {
        x->l.args[i] = (gt_exec_arg){.is_buffer = j->args[i].is_buffer, .size = j->args[i].size,
                                     .buffer = j->bufs[i] ? j->bufs[i]->serial : 0};
        memcpy(x->l.args[i].bytes, j->args[i].v.bytes, sizeof x->l.args[i].bytes);
    }
    snprintf(x->l.kernel_hash, sizeof x->l.kernel_hash, "%s", j->kernel->hash);
    snprintf(x->l.machine, sizeof x->l.machine, "%s", d->machine);
    x->tl = gt_loaded_kernel_launch(j->kernel, d->machine, &j->range);
    gt_tune_wisdom_key(&x->tl, x->l.run_here ? 1 : gt_exec_proc_hello(p)->workers, &x->key);
    pthread_mutex_lock(&d->wisdom_lock);
    x->l.has_entry = gt_wisdom_lookup(d->wisdom, &x->key, &x->l.entry);
    pthread_mutex_unlock(&d->wisdom_lock);
    x->pauses = gt_exec_proc_pauses(p);
}

/* Takes in what the executor answered (rc: the launch's outcome): the counts, the answer on
 * completion (answer_now: from this thread, which is not the loop's), the decision and the
 * report. Returns rc. */
static int exec_launch_end(launch_job *j, int rc, const gt_exec_outcome *o, const void *result, bool answer_now)
{
    exec_launch *x = &j->x;
    bool paused = gt_exec_proc_pauses(x->p) != x->pauses;
    j->ran = true;
    if (rc)
        return rc;
    uint64_t total = gt_range_group_count(&j->range);
    j->groups = o->groups <= total ? o->groups : total;
    j->groups_analysis = o->groups_analysis <= j->groups ? o->groups_analysis : j->groups;
    j->disturbed_samples = o->disturbed_samples;
    j->source = o->source;
    if (answer_now)
        gt_launch_answer_early(j);
    /* paused for another user's launch, its analysis may have timed the pause */
    if (o->wisdom_changed && paused)
        gt_log_info("launch %" PRIu64 " of %s was paused for another user's launch: its decision is not kept",
                    j->report_id, j->kernel->desc->name);
    else if (o->wisdom_changed)
        take_entry(j, &x->key, o);
    keep_executor_report(j, x->p, &x->l, &x->tl, o, result);
    return 0;
}

/* The launch's outcome, from the executor's rc and err. */
static void exec_launch_outcome(launch_job *j, int rc, const char *err)
{
    if (rc == -EDOM)
        gt_launch_refuse(j, err);
    else if (rc)
        gt_launch_fail(j, rc == -ECANCELED ? GT_ERR_CANCELLED : GT_ERR_LAUNCH, -rc, "launch %" PRIu64 " of %s failed: %s",
             j->ev->id, j->kernel->desc->name, err);
    atomic_store(&j->ev->outcome, rc == 0 ? 1 : -1);
}

/* The launch, in its user's executor while that holds the CPUs (executors.h): the tuner and
 * the workers are there, the wisdom here. */
void gt_launch_run_in_executor(launch_job *j)
{
    gt_daemon *d = j->s->d;
    char err[512];
    gt_executors_take_cpus(d->executors, j->s->uid);
    gt_exec_proc *p = NULL;
    int rc = prepare_executor(j, &p, err, sizeof err);
    if (rc == 0) {
        exec_launch_fill(j, p);
        const gt_exec_outcome *o = NULL;
        const void *result = NULL;
        gt_exec_cancel cancel = {.cancelled = running_cancelled, .ctx = j};
        rc = gt_exec_proc_launch(p, &j->x.l, j->deadline_ms, &cancel, &o, &result, err, sizeof err);
        rc = exec_launch_end(j, rc, o, result, true);
    }
    gt_executors_give_cpus(d->executors, j->s->uid);
    exec_launch_outcome(j, rc, err);
}

/* The end of a launch the loop's thread sent (gt_launch_from_loop), on whichever thread has its
 * answer: taken in, the CPUs given back, the outcome set, and no longer counted as running. */
static void direct_launch_end(launch_job *j, int rc, const gt_exec_outcome *o, const void *result, const char *err,
                              bool answer_now)
{
    gt_daemon *d = j->s->d;
    rc = exec_launch_end(j, rc, o, result, answer_now);
    gt_executors_give_cpus(d->executors, j->s->uid);
    exec_launch_outcome(j, rc, err);
    atomic_fetch_sub(&d->launches_running, 1);
}

/* The rest of a launch the loop's thread sent to its executor: waits for its answer as any
 * launch does, unless the loop took it already. */
static void launch_continue(gt_job *job)
{
    launch_job *j = (launch_job *)job;
    char err[512] = "";
    const gt_exec_outcome *o = j->x.answer;
    const void *result = j->x.result;
    gt_exec_cancel cancel = {.cancelled = running_cancelled, .ctx = j};
    int rc = o ? 0 : gt_exec_proc_launch_wait(j->x.p, j->deadline_ms, &cancel, &o, &result, err, sizeof err);
    direct_launch_end(j, rc, o, result, err, true);
}

/* A small launch (one the executor runs on its own thread) whose user's launcher thread is idle
 * goes from the loop's thread straight to the user's executor, when that has its kernel and
 * buffers and the CPUs are free: waking the launcher thread would cost more than the launch.
 * The loop waits for the answer only as long as the channel polls (--executor-spin), and then
 * leaves the rest to the launcher thread (launch_continue), so a kernel that never returns
 * never holds the loop; so does an answer that changes the wisdom, which takes the wisdom's lock
 * there.
 * Returns false when the launch must go through the launcher thread. */
bool gt_launch_from_loop(launch_job *j, gt_jobq *queue)
{
    gt_daemon *d = j->s->d;
    uid_t uid = (uid_t)j->s->uid;
    if (!d->executors || j->nwaits || gt_range_group_count(&j->range) > d->cfg->inline_groups ||
        gt_jobq_pending(queue) != 0)
        return false;
    uint64_t bufs[GT_MAX_ARGS];
    unsigned nbufs = 0;
    for (unsigned i = 0; i < j->nargs; i++)
        if (j->bufs[i])
            bufs[nbufs++] = j->bufs[i]->serial;
    gt_exec_proc *p = gt_executors_for(d->executors, uid);
    if (!p || !gt_exec_proc_ready(p, j->kernel->serial, bufs, nbufs) || !gt_executors_try_take_cpus(d->executors, uid))
        return false;
    exec_launch_fill(j, p);
    char err[512];
    if (gt_exec_proc_launch_send(p, &j->x.l, err, sizeof err) != 0) {
        gt_executors_give_cpus(d->executors, uid); /* the launcher thread starts it again */
        return false;
    }
    atomic_store(&j->ev->started, true);
    atomic_fetch_add(&d->launches_running, 1);
    d->stats.direct++;
    const gt_exec_outcome *o = NULL;
    const void *result = NULL;
    int rc = gt_exec_proc_launch_poll(p, &o, &result, err, sizeof err);
    /* a new decision is stored in the wisdom under its lock, which the loop leaves to the thread too */
    if (rc == -EINPROGRESS || (rc == 0 && o->wisdom_changed)) {
        j->x.answer = rc == 0 ? o : NULL;
        j->x.result = result;
        j->job.run = launch_continue;
        gt_jobq_push(queue, &j->job);
        return true;
    }
    direct_launch_end(j, rc, o, result, err, false);
    gt_launch_done(&j->job);
    return true;
}
