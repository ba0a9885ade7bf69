/* jobq.c: one thread, a FIFO in, a FIFO out (jobq.h). The finished jobs reach the loop
 * through one libevent event made active from the queue's thread; libevent's pthreads
 * support (evthread_use_pthreads, called once by gridtuned) makes that safe. Waking a thread
 * that sleeps on another CPU costs tens of microseconds on a virtual machine, more than a
 * small launch: so the thread polls a while for the next job before it sleeps, and the loop
 * signals it only when it sleeps. */
#include "jobq.h"

#include "engine/spin.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct job_list {
    gt_job *head, *tail;
} job_list;

struct gt_jobq {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job_list todo, finished;
    bool stop;
    bool sleeping;          /* the thread waits on wake: a push must signal it */
    atomic_uint pushed;     /* jobs pushed in all, polled without the lock */
    uint64_t spin_ns;
    unsigned pending; /* loop's thread only */
    struct event *finished_ev;
};

static void list_push(job_list *l, gt_job *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
}

static gt_job *list_take_all(job_list *l)
{
    gt_job *all = l->head;
    l->head = l->tail = NULL;
    return all;
}

typedef struct push_watch {
    gt_jobq *q;
    unsigned seen;
} push_watch;

static bool pushed_since(void *ctx)
{
    push_watch *w = ctx;
    return atomic_load_explicit(&w->q->pushed, memory_order_relaxed) != w->seen;
}

/* Polls for a push for q->spin_ns; q->lock is held on entry and return, not while polling. */
static void spin(gt_jobq *q)
{
    push_watch w = {q, atomic_load_explicit(&q->pushed, memory_order_relaxed)};
    pthread_mutex_unlock(&q->lock);
    (void)gt_spin_until(q->spin_ns, pushed_since, &w);
    pthread_mutex_lock(&q->lock);
}

static void *jobq_thread(void *arg)
{
    gt_jobq *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (!q->todo.head && !q->stop && q->spin_ns)
            spin(q);
        while (!q->todo.head && !q->stop) {
            q->sleeping = true;
            pthread_cond_wait(&q->wake, &q->lock);
            q->sleeping = false;
        }
        gt_job *job = q->todo.head;
        if (!job)
            break;
        q->todo.head = job->next;
        if (!q->todo.head)
            q->todo.tail = NULL;
        pthread_mutex_unlock(&q->lock);
        job->run(job);
        pthread_mutex_lock(&q->lock);
        list_push(&q->finished, job);
        event_active(q->finished_ev, EV_READ, 0);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static void deliver_finished(gt_jobq *q)
{
    pthread_mutex_lock(&q->lock);
    gt_job *job = list_take_all(&q->finished);
    pthread_mutex_unlock(&q->lock);
    while (job) {
        gt_job *next = job->next;
        q->pending--;
        job->done(job);
        job = next;
    }
}

static void on_finished(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    deliver_finished(arg);
}

void gt_jobq_deliver(gt_jobq *q)
{
    deliver_finished(q);
}

int gt_jobq_create(struct event_base *base, const char *name, unsigned spin_us, gt_jobq **out)
{
    gt_jobq *q = calloc(1, sizeof *q);
    if (!q)
        return -ENOMEM;
    q->spin_ns = (uint64_t)spin_us * 1000;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    q->finished_ev = event_new(base, -1, 0, on_finished, q);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = q->finished_ev ? pthread_create(&q->thread, NULL, jobq_thread, q) : ENOMEM;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        if (q->finished_ev)
            event_free(q->finished_ev);
        pthread_cond_destroy(&q->wake);
        pthread_mutex_destroy(&q->lock);
        free(q);
        return -rc;
    }
    pthread_setname_np(q->thread, name);
    *out = q;
    return 0;
}

void gt_jobq_push(gt_jobq *q, gt_job *job)
{
    q->pending++;
    pthread_mutex_lock(&q->lock);
    list_push(&q->todo, job);
    atomic_fetch_add_explicit(&q->pushed, 1, memory_order_relaxed);
    bool sleeping = q->sleeping;
    pthread_mutex_unlock(&q->lock);
    /* after the unlock, so that the thread does not wake only to wait for the lock */
    if (sleeping)
        pthread_cond_signal(&q->wake);
}

unsigned gt_jobq_pending(const gt_jobq *q)
{
    return q->pending;
}

void gt_jobq_destroy(gt_jobq *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->stop = true;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    deliver_finished(q);
    event_free(q->finished_ev);
    pthread_cond_destroy(&q->wake);
    pthread_mutex_destroy(&q->lock);
    free(q);
}
