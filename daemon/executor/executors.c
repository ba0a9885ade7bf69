/* executors.c: the executor processes by user, their queues and the CPU grant (executors.h). */
#include "executors.h"

#include "cpu_grant.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* One user's: allocated once and never moved, so that threads may hold on to it. */
typedef struct user {
    uid_t uid;
    gt_exec_proc *proc;
    gt_jobq *queue; /* made on first use */
    gt_grant_member member;
} user;

struct gt_executors {
    gt_executors_config cfg;
    gt_cpu_grant *grant;
    pthread_mutex_t lock; /* the table */
    user **v;
    size_t n, cap;
};

gt_executors *gt_executors_new(const gt_executors_config *cfg)
{
    gt_executors *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cfg = *cfg;
    if (!(e->grant = gt_cpu_grant_new(cfg->slice_ms))) {
        free(e);
        return NULL;
    }
    pthread_mutex_init(&e->lock, NULL);
    return e;
}

void gt_executors_stop(gt_executors *e)
{
    if (!e)
        return;
    for (size_t i = 0;; i++) { /* not under the lock: a thread being joined may take it */
        pthread_mutex_lock(&e->lock);
        user *u = i < e->n ? e->v[i] : NULL;
        pthread_mutex_unlock(&e->lock);
        if (!u)
            break;
        gt_jobq_destroy(u->queue);
        u->queue = NULL;
    }
}

void gt_executors_free(gt_executors *e)
{
    if (!e)
        return;
    gt_executors_stop(e);
    for (size_t i = 0; i < e->n; i++) {
        gt_exec_proc_free(e->v[i]->proc);
        free(e->v[i]);
    }
    free(e->v);
    gt_cpu_grant_free(e->grant);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static void pause_proc(void *ctx)
{
    gt_exec_proc_pause(ctx);
}

static void resume_proc(void *ctx)
{
    gt_exec_proc_resume(ctx);
}

static user *find_user(gt_executors *e, uid_t uid)
{
    pthread_mutex_lock(&e->lock);
    user *u = NULL;
    for (size_t i = 0; i < e->n && !u; i++)
        if (e->v[i]->uid == uid)
            u = e->v[i];
    if (!u && e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 8;
        user **v = realloc(e->v, cap * sizeof *v);
        if (v) {
            e->v = v;
            e->cap = cap;
        }
    }
    if (!u && e->n < e->cap && (u = calloc(1, sizeof *u))) {
        u->uid = uid;
        if (!(u->proc = gt_exec_proc_new(&e->cfg.proc, uid))) {
            free(u);
            u = NULL;
        } else {
            u->member = (gt_grant_member){.pause = pause_proc, .resume = resume_proc, .ctx = u->proc};
            e->v[e->n++] = u;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return u;
}

gt_exec_proc *gt_executors_for(gt_executors *e, uid_t uid)
{
    user *u = find_user(e, uid);
    return u ? u->proc : NULL;
}

gt_jobq *gt_executors_queue(gt_executors *e, uid_t uid)
{
    user *u = find_user(e, uid);
    if (u && !u->queue) {
        char name[16];
        snprintf(name, sizeof name, "gt-run-%u", (unsigned)uid);
        (void)gt_jobq_create(e->cfg.base, name, e->cfg.launcher_spin_us, &u->queue);
    }
    return u ? u->queue : NULL;
}

unsigned gt_executors_pending(gt_executors *e)
{
    unsigned n = 0;
    pthread_mutex_lock(&e->lock);
    for (size_t i = 0; i < e->n; i++)
        n += e->v[i]->queue ? gt_jobq_pending(e->v[i]->queue) : 0;
    pthread_mutex_unlock(&e->lock);
    return n;
}

void gt_executors_take_cpus(gt_executors *e, uid_t uid)
{
    user *u = find_user(e, uid);
    if (u)
        gt_cpu_grant_acquire(e->grant, &u->member);
}

bool gt_executors_try_take_cpus(gt_executors *e, uid_t uid)
{
    user *u = find_user(e, uid);
    return u && gt_cpu_grant_try_acquire(e->grant, &u->member);
}

void gt_executors_give_cpus(gt_executors *e, uid_t uid)
{
    user *u = find_user(e, uid);
    if (u)
        gt_cpu_grant_release(e->grant, &u->member);
}

uint64_t gt_executors_pauses(gt_executors *e)
{
    return gt_cpu_grant_pauses(e->grant);
}
