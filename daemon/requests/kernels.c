/* kernels.c: kernel_load, kernel_build and kernel_release. Loading and compiling
 * touch the disk and may take seconds, so they run as jobs on the kernel thread, never on the
 * event loop; the answer goes out when the job is done. */
#include "dispatch.h"

#include "daemon/build/build.h"
#include "daemon/loaded_kernel.h"
#include "daemon/executor/exec_jobs.h"
#include "daemon/log.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct kernel_job {
    gt_job job;
    gt_session *s;
    uint64_t request;
    const char *type;
    char *path, *name, *source, *options;
    /* Filled by run(). */
    gt_loaded_kernel *kernel;
    bool cached;
    int rc;
    const char *code;
    char err[1024];
    char *diagnostics;
    struct kernel_job *next_waiting; /* the next of its connection's jobs waiting for their turn */
} kernel_job;

/* One connection's jobs waiting for their turn, in order. */
typedef struct session_jobs {
    gt_session *s;
    kernel_job *first, *last;
    struct session_jobs *next;
} session_jobs;

/* A user with a job on the kernel thread's queue, and the user's connections with jobs waiting
 * behind it, in the order they take turns. Loads and builds run one at a time, and the queue
 * holds at most one job of each user, so one client's slow modules (a load may take its whole
 * deadline, a build its compiler's) delay another client's next load by at most one job of each
 * user with jobs, and of each connection of its own user with jobs. (No job waits at shutdown:
 * the stop's drain waits for the kernel queue, and each job done sends the next.) */
typedef struct gt_kernel_turn {
    uid_t uid;
    session_jobs *first, *last;
    struct gt_kernel_turn *next;
} gt_kernel_turn;

static gt_kernel_turn *find_turn(gt_daemon *d, uid_t uid, gt_kernel_turn ***at)
{
    for (*at = &d->kernel_turns; **at; *at = &(**at)->next)
        if ((**at)->uid == uid)
            return **at;
    return NULL;
}

/* q to the back of t's line. */
static void line_up(gt_kernel_turn *t, session_jobs *q)
{
    q->next = NULL;
    if (t->last)
        t->last->next = q;
    else
        t->first = q;
    t->last = q;
}

/* Queues j on the kernel thread, or to wait for its user's turn and then its connection's.
 * 0, or -ENOMEM. */
static int push_in_turn(gt_daemon *d, kernel_job *j)
{
    gt_kernel_turn **at, *t = find_turn(d, j->s->uid, &at);
    if (!t) {
        if (!(t = calloc(1, sizeof *t)))
            return -ENOMEM;
        t->uid = j->s->uid;
        *at = t;
        gt_jobq_push(d->kernels, &j->job);
        return 0;
    }
    session_jobs *q = t->first;
    while (q && q->s != j->s)
        q = q->next;
    if (!q) {
        if (!(q = calloc(1, sizeof *q)))
            return -ENOMEM;
        q->s = j->s;
        line_up(t, q);
    }
    if (q->last)
        q->last->next_waiting = j;
    else
        q->first = j;
    q->last = j;
    return 0;
}

/* A job of s's user is done: the first waiting connection of the user's other than s, else s,
 * sends its next job to the queue and goes to the back of the line (or leaves it, with no more
 * jobs); with none, the user's turn ends. */
static void next_in_turn(gt_daemon *d, const gt_session *s)
{
    gt_kernel_turn **at, *t = find_turn(d, s->uid, &at);
    if (!t)
        return;
    session_jobs *q = t->first;
    if (!q) {
        *at = t->next;
        free(t);
        return;
    }
    if (q->s == s && q->next) { /* s just had its turn */
        t->first = q->next;
        line_up(t, q);
        q = t->first;
    }
    t->first = q->next;
    if (!t->first)
        t->last = NULL;
    kernel_job *j = q->first;
    q->first = j->next_waiting;
    j->next_waiting = NULL;
    if (q->first)
        line_up(t, q);
    else
        free(q);
    gt_jobq_push(d->kernels, &j->job);
}

/* System mode: only modules inside a --module-dir. realpath resolves links and "..", so a
 * path cannot escape the directory by naming; the resolved path replaces *path, so what is
 * opened is what was checked, not a link changed in between. */
static int check_module_dir(const gt_daemon_config *cfg, char **path, char *err, size_t errlen)
{
    if (!cfg->system)
        return 0;
    char *real = realpath(*path, NULL);
    if (!real) {
        snprintf(err, errlen, "cannot open the module %s: %s", *path, strerror(errno));
        return -ENOENT;
    }
    for (unsigned i = 0; i < cfg->nmodule_dirs; i++) {
        size_t n = strlen(cfg->module_dirs[i]);
        while (n > 1 && cfg->module_dirs[i][n - 1] == '/')
            n--;
        if (strncmp(real, cfg->module_dirs[i], n) == 0 && real[n] == '/') {
            free(*path);
            *path = real;
            return 0;
        }
    }
    snprintf(err, errlen, "the module %s is outside the directories this system gridtuned loads modules from (%s%s)",
             *path, cfg->nmodule_dirs ? cfg->module_dirs[0] : "none configured",
             cfg->nmodule_dirs > 1 ? ", ..." : "; see --module-dir");
    free(real);
    return -EACCES;
}

static void kernel_run(gt_job *job)
{
    kernel_job *j = (kernel_job *)job;
    gt_daemon *d = j->s->d;
    if (atomic_load(&j->s->closed))
        return;
    char *built = NULL;
    j->code = GT_ERR_LOAD;
    if (j->source) {
        j->code = GT_ERR_BUILD;
        j->rc = gt_builder_build(d->builder, j->source, j->options, &built, &j->cached, &j->diagnostics, j->err,
                                 sizeof j->err);
        if (j->rc == -ENOMEM)
            j->code = GT_ERR_INTERNAL;
        if (j->rc)
            return;
        j->code = GT_ERR_LOAD;
    } else {
        j->rc = check_module_dir(d->cfg, &j->path, j->err, sizeof j->err);
        if (j->rc)
            return;
    }
    /* with executor processes, a loader process opens the module: no code of it runs here */
    j->rc = gt_loaded_kernel_open(built ? built : j->path, j->name, d->executors ? d->executor_path : NULL, &j->kernel,
                                  j->err, sizeof j->err);
    free(built);
}

static void on_kernel_released(void *ctx, const gt_loaded_kernel *k)
{
    gt_exec_jobs_forget_kernel(ctx, k->uid, k->serial);
}

static void kernel_job_free(kernel_job *j)
{
    gt_loaded_kernel_unref(j->kernel);
    free(j->path);
    free(j->name);
    free(j->source);
    free(j->options);
    free(j->diagnostics);
    j->s->kernels_loading--;
    gt_session_unref(j->s);
    free(j);
}

static void reply_failure(kernel_job *j)
{
    if (!j->diagnostics) {
        gt_reply_error(j->s, j->request, j->type, j->code, -j->rc, j->err);
        return;
    }
    size_t len = strlen(j->err) + strlen(j->diagnostics) + 2;
    char *message = malloc(len);
    if (message)
        snprintf(message, len, "%s\n%s", j->err, j->diagnostics);
    gt_reply_error(j->s, j->request, j->type, j->code, -j->rc, message ? message : j->err);
    free(message);
}

static void kernel_done(gt_job *job)
{
    kernel_job *j = (kernel_job *)job;
    gt_session *s = j->s;
    next_in_turn(s->d, s);
    if (atomic_load(&s->closed)) {
        kernel_job_free(j);
        return;
    }
    if (j->rc) {
        reply_failure(j);
        kernel_job_free(j);
        return;
    }
    uint64_t id = gt_session_new_id(s);
    cJSON *res = cJSON_CreateObject(), *params = gt_kernel_info_params(&j->kernel->info);
    if (!res || !params || !cJSON_AddNumberToObject(res, "kernel", (double)id) ||
        !cJSON_AddStringToObject(res, "name", j->kernel->desc->name) || !cJSON_AddItemToObject(res, "params", params) ||
        !cJSON_AddStringToObject(res, "form", j->kernel->desc->flags & GT_KERNEL_WORKGROUP ? "workgroup" : "item") ||
        !cJSON_AddNumberToObject(res, "local_bytes", j->kernel->desc->local_bytes) ||
        (j->source && !cJSON_AddBoolToObject(res, "cached", j->cached)) || gt_idtable_add(&s->kernels, id, j->kernel)) {
        if (!cJSON_GetObjectItemCaseSensitive(res, "params"))
            cJSON_Delete(params);
        cJSON_Delete(res);
        gt_reply_error(s, j->request, j->type, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory recording the kernel");
        kernel_job_free(j);
        return;
    }
    if (s->d->executors) { /* loaded by its user's executor now, ahead of the launches */
        j->kernel->uid = s->uid;
        j->kernel->released = on_kernel_released;
        j->kernel->released_ctx = s->d;
        gt_exec_jobs_load(s->d, s->uid, j->kernel);
    }
    j->kernel = NULL; /* the session's table holds it now */
    gt_reply_result(s, j->request, j->type, res);
    kernel_job_free(j);
}

static char *copy_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void queue_kernel_job(const gt_request *r, const char *path, const char *name, const char *source,
                             const char *options)
{
    gt_session *s = r->s;
    const gt_limits *lim = &s->d->cfg->limits;
    if (s->kernels.count + s->kernels_loading >= lim->max_kernels) {
        gt_request_fail(r, GT_ERR_LIMIT, ENOSPC, "this client holds %zu kernels, the most gridtuned allows "
                        "(--max-kernels %u); release some first", s->kernels.count + s->kernels_loading,
                        lim->max_kernels);
        return;
    }
    kernel_job *j = calloc(1, sizeof *j);
    if (j) {
        *j = (kernel_job){.job = {.run = kernel_run, .done = kernel_done}, .s = gt_session_ref(s),
                          .request = r->id, .type = r->type, .path = copy_or_null(path), .name = strdup(name),
                          .source = copy_or_null(source), .options = copy_or_null(options)};
        s->kernels_loading++;
    }
    if (!j || !j->name || (path && !j->path) || (source && !j->source) || (options && !j->options) ||
        push_in_turn(s->d, j) != 0) {
        if (j)
            kernel_job_free(j);
        gt_request_fail(r, GT_ERR_INTERNAL, ENOMEM, "gridtuned ran out of memory");
        return;
    }
}

void gt_handle_kernel_load(const gt_request *r)
{
    const char *path, *name;
    if (!gt_field_string(r, r->msg, "path", false, false, &path) || !gt_field_string(r, r->msg, "name", false, false, &name))
        return;
    if (path[0] != '/') {
        gt_request_fail(r, GT_ERR_REQUEST, EINVAL, "kernel_load: the module path \"%s\" must be absolute", path);
        return;
    }
    queue_kernel_job(r, path, name, NULL, NULL);
}

void gt_handle_kernel_build(const gt_request *r)
{
    const gt_daemon *d = r->s->d;
    const char *source, *name, *options;
    if (!gt_field_string(r, r->msg, "source", false, false, &source) ||
        !gt_field_string(r, r->msg, "name", false, false, &name) ||
        !gt_field_string(r, r->msg, "options", true, true, &options))
        return;
    if (d->cfg->system && !d->cfg->allow_build) {
        gt_request_fail(r, GT_ERR_BUILD, EPERM, "this system gridtuned does not build kernels from source "
                        "(it was started without --allow-build); load a module from a --module-dir instead");
        return;
    }
    if (!d->builder) {
        gt_request_fail(r, GT_ERR_BUILD, ENOSYS, "kernel builds are unavailable: %s", d->build_note);
        return;
    }
    queue_kernel_job(r, NULL, name, source, options);
}

void gt_handle_kernel_release(const gt_request *r)
{
    uint64_t id;
    if (!gt_field_id(r, r->msg, "kernel", &id))
        return;
    gt_loaded_kernel *k = gt_idtable_remove(&r->s->kernels, id);
    if (!k) {
        gt_request_fail(r, GT_ERR_NOT_FOUND, ENOENT, "kernel_release: this connection has no kernel %" PRIu64, id);
        return;
    }
    gt_loaded_kernel_unref(k);
    gt_request_reply(r, NULL);
}
