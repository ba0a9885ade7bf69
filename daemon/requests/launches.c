/* launches.c: the launch, wait, report and event_release requests, and the launch job that
 * runs a launch on the launcher thread (launches.h); in gridtuned itself with --isolation none,
 * else through the user's executor process (launch_exec.c). */
#include "launches.h"
#include "launch_job.h"

#include "dispatch.h"
#include "launch_parse.h"

#include "daemon/launch_report.h"
#include "daemon/loaded_kernel.h"
#include "daemon/log.h"
#include "daemon/executor/exec_jobs.h"
#include "engine/pool_executor.h"
#include "tuner/clock.h"
#include "tuner/grid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void gt_launch_event_unref(gt_launch_event *ev)
{
    if (!ev || --ev->refs > 0)
        return;
    gt_launch_report_unref(ev->report);
    free(ev->waiters);
    free(ev);
}

/* ---- the job, on the launcher thread --------------------------------------------------- */

void gt_launch_fail(launch_job *j, const char *code, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->ev->message, sizeof j->ev->message, fmt, ap);
    va_end(ap);
    j->ev->code = code;
    j->ev->errnum = errnum;
}

void gt_launch_refuse(launch_job *j, const char *why)
{
    gt_launch_fail(j, GT_ERR_ARGS, EINVAL, "launch: %s", why);
}

/* Whether a queued launch must not run: its client left, gridtuned is stopping, or a launch it
 * waits for did not succeed. If so, the event's error says which. */
static bool cancelled(launch_job *j)
{
    if (atomic_load(&j->ev->cancel)) {
        gt_launch_fail(j, GT_ERR_CANCELLED, ECANCELED, "launch %" PRIu64 " was cancelled by its client", j->ev->id);
        return true;
    }
    if (atomic_load(&j->s->closed)) {
        gt_launch_fail(j, GT_ERR_CANCELLED, ECANCELED, "launch %" PRIu64 " was cancelled: its client disconnected", j->ev->id);
        return true;
    }
    if (atomic_load(&j->s->d->stopping)) {
        gt_launch_fail(j, GT_ERR_CANCELLED, ECANCELED, "launch %" PRIu64 " was cancelled: gridtuned is shutting down",
             j->ev->id);
        return true;
    }
    for (unsigned i = 0; i < j->nwaits; i++)
        if (atomic_load(&j->waits[i]->outcome) < 0) {
            gt_launch_fail(j, GT_ERR_CANCELLED, ECANCELED, "launch %" PRIu64 " was cancelled: launch %" PRIu64
                 ", which it waits for, did not succeed", j->ev->id, j->waits[i]->id);
            return true;
        }
    return false;
}

/* Takes res. The report names the workers, counters and probes of the executor that ran it. */
static gt_launch_report *keep_report(launch_job *j, const gt_executor *exec, const gt_tune_launch *tl,
                                     gt_tune_result *res, int64_t started)
{
    gt_tune_config used = gt_tune_config_for(&j->cfg, exec);
    return gt_launch_report_new(&used, tl, res, exec->counters, exec->probes, exec->workers, j->report_id, started);
}

/* The result of a successful wait, or of a launch answered on completion, which names its event
 * only when the daemon keeps it. NULL when out of memory. */
static cJSON *completion_result(const gt_launch_event *ev, bool is_wait)
{
    cJSON *res = cJSON_CreateObject();
    if (res && (is_wait || ev->kept) && !cJSON_AddNumberToObject(res, "event", (double)ev->id)) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}

/* A launch that asked to be answered on completion, and succeeded, is answered now, from the
 * launcher thread, without waiting for the loop's thread to wake up. Until gt_launch_done has
 * taken the job back, the session's later requests wait (session.h, early_answers). A failure
 * is answered by gt_launch_done. */
void gt_launch_answer_early(launch_job *j)
{
    gt_launch_event *ev = j->ev;
    if (!j->answer.on_completion || atomic_exchange(&ev->launch_answered, true))
        return;
    cJSON *res = completion_result(ev, false);
    cJSON *msg = res ? gt_result_message(j->answer_request, res) : NULL;
    j->answered_early = true;
    atomic_fetch_add(&j->s->early_answers, 1); /* before the client can have the answer */
    if (!msg || !gt_session_send_now(j->s, msg, "launch"))
        atomic_store(&ev->launch_answered, false); /* gt_launch_done answers, or says why not */
}

static void run_launch(launch_job *j)
{
    gt_daemon *d = j->s->d;
    if (d->executors) {
        gt_launch_run_in_executor(j);
        return;
    }
    size_t bytes[GT_MAX_ARGS] = {0};
    for (unsigned i = 0; i < j->nargs; i++)
        bytes[i] = j->bufs[i] ? j->bufs[i]->size : 0;
    char why[1024];
    if (gt_preconditions_check(j->kernel->module, j->kernel->desc, &j->range, j->args, bytes, why, sizeof why) != 0) {
        gt_launch_refuse(j, why);
        atomic_store(&j->ev->outcome, -1);
        return;
    }
    gt_executor exec;
    gt_pool_executor_init(&j->pe, d->pool, d->counters, &d->probe_status, j->kernel->desc, j->slots, &j->range, &exec);
    /* A launch this small costs less than waking the workers would: it runs here, on the
       launcher thread, never on the loop's. A kernel that does not return stalls the launcher
       as it would stall it waiting for the workers, while the loop goes on serving. It is
       tuned, keyed in the wisdom and reported as what runs it: one worker, no counters. */
    if (gt_range_group_count(&j->range) <= d->cfg->inline_groups)
        gt_pool_executor_run_here(&j->pe, &exec);
    gt_tune_launch tl = gt_loaded_kernel_launch(j->kernel, d->machine, &j->range);
    gt_tune_result res;
    char err[512];
    int64_t started = gt_clock_unix_ms();
    pthread_mutex_lock(&d->wisdom_lock); /* the saver copies it */
    int rc = gt_tune_run(&j->cfg, &tl, &exec, d->wisdom, &res, err, sizeof err);
    if (rc == 0 && res.wisdom_changed) { /* analysis decided (also to keep the default), or a refinement moved */
        gt_wisdom_key key;
        gt_tune_wisdom_key(&tl, exec.workers, &key);
        gt_wisdom_claim(d->wisdom, &key, (uint32_t)j->s->uid);
        gt_wisdom_saver_changed(d->wisdom_saver);
    }
    pthread_mutex_unlock(&d->wisdom_lock);
    j->ran = true;
    j->groups = res.groups_analysis + res.groups_remainder;
    j->groups_analysis = res.groups_analysis;
    j->disturbed_samples = res.disturbed_samples;
    j->source = res.source;
    if (rc == 0) {
        gt_launch_answer_early(j);
        j->ev->report = keep_report(j, &exec, &tl, &res, started);
        if (!j->ev->report)
            gt_log_warn("launch %" PRIu64 ": out of memory keeping its report", j->report_id);
    } else {
        gt_launch_fail(j, GT_ERR_LAUNCH, -rc, "launch %" PRIu64 " of %s failed: %s", j->ev->id, j->kernel->desc->name, err);
    }
    gt_tune_result_free(&res);
    atomic_store(&j->ev->outcome, rc == 0 ? 1 : -1);
}

static void launch_run(gt_job *job)
{
    launch_job *j = (launch_job *)job;
    gt_daemon *d = j->s->d;
    if (cancelled(j)) {
        atomic_store(&j->ev->outcome, -1);
        return;
    }
    atomic_store(&j->ev->started, true);
    atomic_fetch_add(&d->launches_running, 1);
    run_launch(j);
    atomic_fetch_sub(&d->launches_running, 1);
}

/* ---- completion, on the loop's thread -------------------------------------------------- */

static void answer(gt_session *s, gt_launch_event *ev, const gt_launch_waiter *w)
{
    bool is_launch = strcmp(w->type, "launch") == 0, is_wait = strcmp(w->type, "wait") == 0;
    if (is_launch && atomic_exchange(&ev->launch_answered, true))
        return;
    if (atomic_load(&ev->outcome) < 0) {
        gt_reply_error(s, w->request, w->type, ev->code, ev->errnum, ev->message);
        return;
    }
    cJSON *res;
    bool ok;
    if (is_wait || is_launch) {
        res = completion_result(ev, is_wait);
        ok = res != NULL;
    } else {
        res = cJSON_CreateObject();
        ok = res != NULL;
        const char *text = ev->report ? gt_launch_report_text(ev->report) : NULL;
        cJSON *report = text ? cJSON_Parse(text) : NULL;
        ok = ok && report && cJSON_AddItemToObject(res, "report", report);
        if (!ok)
            cJSON_Delete(report);
    }
    if (!ok) {
        cJSON_Delete(res);
        gt_reply_error(s, w->request, w->type, GT_ERR_INTERNAL, ENOMEM,
                       ev->report || strcmp(w->type, "report") != 0 ? "gridtuned ran out of memory answering"
                                                                   : "the launch ran, but its report could not be built");
        return;
    }
    gt_reply_result(s, w->request, w->type, res);
}

static void count(gt_daemon *d, const launch_job *j)
{
    int outcome = atomic_load(&j->ev->outcome);
    d->stats.succeeded += outcome > 0;
    d->stats.failed += outcome < 0 && j->ran;
    d->stats.cancelled += outcome < 0 && !j->ran;
    if (!j->ran)
        return;
    d->stats.workgroups += j->groups;
    d->stats.workgroups_analysis += j->groups_analysis;
    d->stats.disturbed_samples += j->disturbed_samples;
    d->stats.wisdom_hits += outcome > 0 && j->source == GT_SOURCE_WISDOM;
}

static void launch_free(launch_job *j)
{
    for (unsigned i = 0; i < j->nargs; i++)
        if (j->bufs[i])
            gt_shm_unref(j->bufs[i]);
    for (unsigned i = 0; i < j->nwaits; i++)
        gt_launch_event_unref(j->waits[i]);
    gt_loaded_kernel_unref(j->kernel);
    gt_launch_event_unref(j->ev);
    gt_session_unref(j->s);
    free(j);
}

/* ev's waiters were answered: they no longer count against s's --max-waiting. */
static void forget_waiters(gt_session *s, gt_launch_event *ev)
{
    s->waiting -= (unsigned)ev->nwaiters;
    ev->nwaiters = 0;
}

void gt_launch_done(gt_job *job)
{
    launch_job *j = (launch_job *)job;
    gt_session *s = j->s;
    gt_launch_event *ev = j->ev;
    ev->done = true;
    count(s->d, j);
    if (ev->report)
        gt_report_ring_add(s->d->reports, j->report_id, (unsigned)s->uid, ev->report);
    if (atomic_load(&ev->outcome) < 0) {
        gt_log_info("client %d: %s", (int)s->pid, ev->message);
        if (j->answer.on_completion)
            ev->kept = false;
    }
    for (size_t i = 0; i < ev->nwaiters; i++)
        answer(s, ev, &ev->waiters[i]);
    forget_waiters(s, ev);
    /* A launch answered on completion whose event is not kept, or whose answer was its error
       (which cannot name the event), leaves nothing for the client to release. */
    if (!ev->kept && gt_idtable_remove(&s->events, ev->id))
        gt_launch_event_unref(ev);
    s->inflight--;
    bool resume = j->answered_early && atomic_fetch_sub(&s->early_answers, 1) == 1;
    gt_session_ref(s);
    launch_free(j);
    if (resume)
        gt_session_resume(s);
    gt_session_unref(s);
}

void gt_launch_abandon_waiters(gt_session *s, const char *message)
{
    gt_session_ref(s); /* a failed write closes the session */
    for (size_t i = 0; i < s->events.count && !atomic_load(&s->closed); i++) {
        gt_launch_event *ev = s->events.entries[i].ptr;
        for (size_t k = 0; !ev->done && k < ev->nwaiters; k++)
            if (strcmp(ev->waiters[k].type, "launch") != 0 || !atomic_exchange(&ev->launch_answered, true))
                gt_reply_error(s, ev->waiters[k].request, ev->waiters[k].type, GT_ERR_CANCELLED, ECANCELED, message);
        forget_waiters(s, ev);
    }
    gt_session_unref(s);
}

/* ---- the requests ----------------------------------------------------------------------- */

/* Request r is answered when ev, an event of r's session, completes. 0, or -ENOMEM. */
static int add_waiter(gt_launch_event *ev, const gt_request *r)
{
    if (ev->nwaiters == ev->capwaiters) {
        size_t cap = ev->capwaiters ? ev->capwaiters * 2 : 4;
        gt_launch_waiter *more = realloc(ev->waiters, cap * sizeof *more);
        if (!more)
            return -ENOMEM;
        ev->waiters = more;
        ev->capwaiters = cap;
    }
    ev->waiters[ev->nwaiters++] = (gt_launch_waiter){.request = r->id, .type = r->type};
    r->s->waiting++;
    return 0;
}

/* Forgets the oldest completed events beyond the limit, so a client that never releases its
 * events does not grow without bound. */
static void trim_events(gt_session *s)
{
    unsigned max = s->d->cfg->limits.max_events;
    for (size_t i = 0; s->events.count >= max && i < s->events.count;) {
        gt_launch_event *ev = s->events.entries[i].ptr;
        if (ev->done && gt_idtable_remove(&s->events, ev->id))
            gt_launch_event_unref(ev);
        else
            i++;
    }
}

static bool parse_waits(const gt_request *r, launch_job *j)
{
    const cJSON *wait;
    if (!gt_field_typed(r, r->msg, "wait", cJSON_Array, "an array of event ids", &wait))
        return false;
    int n = wait ? cJSON_GetArraySize(wait) : 0;
    if (n > GT_MAX_WAIT) {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "launch: the wait list has %d events; at most %d", n, GT_MAX_WAIT);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(wait, i);
        uint64_t id = cJSON_IsNumber(e) && e->valuedouble >= 1 && e->valuedouble <= (double)GT_ID_MAX
                          ? (uint64_t)e->valuedouble
                          : 0;
        gt_launch_event *ev = id ? gt_idtable_find(&r->s->events, id) : NULL;
        if (!ev) {
            gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "launch: wait[%d] is not an event of this connection", i);
            return false;
        }
        ev->refs++;
        j->waits[j->nwaits++] = ev;
    }
    return true;
}

static bool parse_launch(const gt_request *r, launch_job *j)
{
    gt_session *s = r->s;
    uint64_t kid;
    const cJSON *args;
    if (!gt_field_id(r, r->msg, "kernel", &kid))
        return false;
    gt_loaded_kernel *k = gt_idtable_find(&s->kernels, kid);
    if (!k) {
        gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "launch: this connection has no kernel %" PRIu64, kid);
        return false;
    }
    j->kernel = gt_loaded_kernel_ref(k);
    j->cfg = s->d->cfg->tune;
    j->deadline_ms = s->d->cfg->launch_timeout_s * 1000u;
    if (!gt_parse_range(r, cJSON_GetObjectItemCaseSensitive(r->msg, "range"), &j->range) ||
        !gt_field_typed(r, r->msg, "args", cJSON_Array, "an array of arguments", &args) ||
        !gt_parse_args(r, args, k->desc, j->args, j->bufs, &j->nargs) ||
        !gt_check_extents(r, &k->info, &j->range, j->bufs, j->nargs) ||
        !gt_parse_options(r, cJSON_GetObjectItemCaseSensitive(r->msg, "options"), &j->cfg, &j->deadline_ms) ||
        !gt_parse_answer(r, r->msg, &j->answer) || !parse_waits(r, j))
        return false;
    for (unsigned i = 0; i < j->nargs; i++)
        if (j->bufs[i])
            gt_shm_ref(j->bufs[i]);
    gt_args_bind(j->args, j->nargs, j->slots);
    return true;
}

void gt_handle_launch(const gt_request *r)
{
    gt_session *s = r->s;
    gt_daemon *d = s->d;
    if (s->inflight >= d->cfg->limits.max_inflight) {
        gt_request_fail(r, GT_ERR_LIMIT, ENOSPC, "this client has %u launches queued or running, the most gridtuned "
                        "allows (--max-inflight); wait for some first", s->inflight);
        return;
    }
    /* with executor processes each user's launches run on that user's own thread */
    gt_jobq *queue = gt_exec_jobs_queue(d, s->uid);
    if (!queue) {
        gt_request_fail(r, GT_ERR_INTERNAL, EAGAIN, "gridtuned cannot start a launcher thread for uid %u",
                        (unsigned)s->uid);
        return;
    }
    launch_job *j = calloc(1, sizeof *j);
    gt_launch_event *ev = calloc(1, sizeof *ev);
    if (!j || !ev) {
        free(j);
        free(ev);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory queueing the launch");
        return;
    }
    if (!parse_launch(r, j)) {
        memset(j->bufs, 0, sizeof j->bufs); /* no references were taken on them */
        for (unsigned i = 0; i < j->nwaits; i++)
            gt_launch_event_unref(j->waits[i]);
        gt_loaded_kernel_unref(j->kernel);
        free(j);
        free(ev);
        return;
    }
    trim_events(s);
    ev->id = gt_session_new_id(s);
    ev->refs = 2; /* the session's table's and the job's */
    /* Until it is done the event stays in the table even when it will not be kept, so that
       shutdown answers its waiter like any other (gt_launch_abandon_waiters). */
    ev->kept = j->answer.keep_event;
    cJSON *res = j->answer.on_completion ? NULL : cJSON_CreateObject();
    bool ready = j->answer.on_completion ? add_waiter(ev, r) == 0
                                         : res && cJSON_AddNumberToObject(res, "event", (double)ev->id);
    if (!ready || gt_idtable_add(&s->events, ev->id, ev) != 0) {
        cJSON_Delete(res);
        ev->refs = 1;
        j->ev = ev;
        j->s = gt_session_ref(s);
        launch_free(j);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory queueing the launch");
        return;
    }
    j->job = (gt_job){.run = launch_run, .done = gt_launch_done};
    j->answer_request = r->id;
    j->s = gt_session_ref(s);
    j->ev = ev;
    j->report_id = ++d->next_launch;
    s->inflight++;
    d->stats.launches++;
    if (res)
        gt_request_reply(r, res);
    if (!gt_launch_from_loop(j, queue))
        gt_jobq_push(queue, &j->job);
}

static gt_launch_event *find_event(const gt_request *r)
{
    uint64_t id;
    if (!gt_field_id(r, r->msg, "event", &id))
        return NULL;
    gt_launch_event *ev = gt_idtable_find(&r->s->events, id);
    if (!ev)
        gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "%s: this connection has no event %" PRIu64
                        " (never launched, released, or forgotten past --max-events)", r->type, id);
    return ev;
}

/* wait and report: answered now when the launch is done, else when it completes. */
static void handle_waiter(const gt_request *r)
{
    gt_launch_event *ev = find_event(r);
    if (!ev)
        return;
    if (ev->done) {
        answer(r->s, ev, &(gt_launch_waiter){.request = r->id, .type = r->type});
        return;
    }
    unsigned max = r->s->d->cfg->limits.max_waiting;
    if (r->s->waiting >= max) {
        gt_request_fail(r, GT_ERR_LIMIT, ENOSPC, "%s: this client has %u requests awaiting their launches, the most "
                        "gridtuned allows (--max-waiting %u)", r->type, r->s->waiting, max);
        return;
    }
    if (add_waiter(ev, r) != 0)
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory");
}

void gt_handle_wait(const gt_request *r)
{
    handle_waiter(r);
}

void gt_handle_report(const gt_request *r)
{
    handle_waiter(r);
}

void gt_handle_event_release(const gt_request *r)
{
    gt_launch_event *ev = find_event(r);
    if (!ev)
        return;
    gt_idtable_remove(&r->s->events, ev->id);
    gt_launch_event_unref(ev);
    gt_request_reply(r, NULL);
}

/* A queued launch will not run; a running one in an executor process is stopped. Either way
 * its waiters get a `cancelled` error. A launch already done, or running inside gridtuned
 * (--isolation none), is not affected: the answer says whether the cancel takes effect. */
void gt_handle_cancel(const gt_request *r)
{
    gt_launch_event *ev = find_event(r);
    if (!ev)
        return;
    bool effective = !ev->done && (r->s->d->executors || !atomic_load(&ev->started));
    if (!ev->done)
        atomic_store(&ev->cancel, true);
    cJSON *res = cJSON_CreateObject();
    if (!res || !cJSON_AddBoolToObject(res, "cancelled", effective)) {
        cJSON_Delete(res);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory");
        return;
    }
    gt_request_reply(r, res);
}
