/* cpu_grant.c: one runner at a time, round-robin by time slice (cpu_grant.h). */
#include "cpu_grant.h"

#include "tuner/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct gt_cpu_grant {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t slice_ns;
    gt_grant_member *holder;
    uint64_t since_ns;              /* when the holder took it */
    gt_grant_member *head, *tail;   /* the line: waiting, or paused */
    uint64_t pauses;
};

gt_cpu_grant *gt_cpu_grant_new(unsigned slice_ms)
{
    gt_cpu_grant *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->slice_ns = (uint64_t)slice_ms * 1000000;
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->changed, &attr);
    pthread_condattr_destroy(&attr);
    return g;
}

void gt_cpu_grant_free(gt_cpu_grant *g)
{
    if (!g)
        return;
    pthread_cond_destroy(&g->changed);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

static void line_append(gt_cpu_grant *g, gt_grant_member *m)
{
    m->next = NULL;
    if (g->tail)
        g->tail->next = m;
    else
        g->head = m;
    g->tail = m;
}

static void line_remove(gt_cpu_grant *g, gt_grant_member *m)
{
    gt_grant_member **at = &g->head, *prev = NULL;
    while (*at && *at != m) {
        prev = *at;
        at = &(*at)->next;
    }
    if (!*at)
        return;
    *at = m->next;
    if (g->tail == m)
        g->tail = prev;
    m->next = NULL;
}

/* The first in line takes the grant, resumed if it was paused. */
static void grant_next(gt_cpu_grant *g)
{
    gt_grant_member *m = g->head;
    if (!m)
        return;
    line_remove(g, m);
    g->holder = m;
    g->since_ns = gt_clock_ns();
    if (m->paused) {
        m->paused = false;
        m->resume(m->ctx);
    }
    pthread_cond_broadcast(&g->changed);
}

void gt_cpu_grant_acquire(gt_cpu_grant *g, gt_grant_member *m)
{
    pthread_mutex_lock(&g->lock);
    m->paused = false;
    line_append(g, m);
    for (;;) {
        if (!g->holder)
            grant_next(g);
        if (g->holder == m)
            break;
        uint64_t now = gt_clock_ns();
        if (g->slice_ns && now - g->since_ns >= g->slice_ns) { /* its slice is over, and m waits */
            gt_grant_member *h = g->holder;
            h->pause(h->ctx);
            h->paused = true;
            g->pauses++;
            g->holder = NULL;
            line_append(g, h);
            continue;
        }
        if (!g->slice_ns) {
            pthread_cond_wait(&g->changed, &g->lock);
            continue;
        }
        uint64_t until = g->since_ns + g->slice_ns;
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000), .tv_nsec = (long)(until % 1000000000)};
        (void)pthread_cond_timedwait(&g->changed, &g->lock, &ts);
    }
    pthread_mutex_unlock(&g->lock);
}

bool gt_cpu_grant_try_acquire(gt_cpu_grant *g, gt_grant_member *m)
{
    pthread_mutex_lock(&g->lock);
    bool free_now = !g->holder && !g->head;
    if (free_now) {
        m->paused = false;
        line_append(g, m);
        grant_next(g);
    }
    pthread_mutex_unlock(&g->lock);
    return free_now;
}

void gt_cpu_grant_release(gt_cpu_grant *g, gt_grant_member *m)
{
    pthread_mutex_lock(&g->lock);
    if (g->holder == m) {
        g->holder = NULL;
        grant_next(g);
    } else {
        line_remove(g, m);
        if (m->paused) { /* it ended while paused (its process killed): never leave one stopped */
            m->paused = false;
            m->resume(m->ctx);
        }
    }
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

uint64_t gt_cpu_grant_pauses(gt_cpu_grant *g)
{
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->pauses;
    pthread_mutex_unlock(&g->lock);
    return n;
}
