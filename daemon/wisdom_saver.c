/* wisdom_saver.c: the thread that writes the wisdom file (wisdom_saver.h).
 * Writers of the file (the thread, import and clear, the last save at stop) take `file` and
 * copy the wisdom while holding it, so the file is written in the order of the copies and the
 * last write holds the newest one. */
#include "wisdom_saver.h"

#include "log.h"
#include "tuner/clock.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_wisdom_saver {
    gt_wisdom *w;
    pthread_mutex_t *wisdom_lock;
    pthread_mutex_t file; /* one writer at a time */
    pthread_mutex_t m;    /* guards stop and wakes the thread through cv */
    pthread_cond_t cv;
    pthread_t thread;
    bool stop;
    _Atomic uint64_t changes; /* changes marked, and the count the file holds: */
    _Atomic uint64_t saved;
    _Atomic size_t entries;
    _Atomic uint64_t evicted;
    char failure[512]; /* the last failure logged, "" after a save that worked (the thread's) */
};

/* Copies the wisdom and writes the copy. 0 or a negative errno with a sentence; -EBUSY
 * without waiting when wait is false and the wisdom's lock is held. */
static int save_copy(gt_wisdom_saver *s, bool wait, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->file);
    gt_wisdom *copy = NULL;
    if (!wait && pthread_mutex_trylock(s->wisdom_lock) != 0) {
        pthread_mutex_unlock(&s->file);
        return gt_sentence_fail(err, errlen, -EBUSY, "a launch still holds the wisdom");
    }
    if (wait)
        pthread_mutex_lock(s->wisdom_lock);
    uint64_t upto = atomic_load(&s->changes);
    int rc = gt_wisdom_copy(s->w, &copy);
    pthread_mutex_unlock(s->wisdom_lock);
    if (rc)
        gt_sentence_fail(err, errlen, rc, "out of memory copying the wisdom to save it");
    else
        rc = gt_wisdom_save(copy, err, errlen);
    gt_wisdom_close(copy);
    if (rc == 0 && upto > atomic_load(&s->saved))
        atomic_store(&s->saved, upto);
    pthread_mutex_unlock(&s->file);
    return rc;
}

static bool has_unsaved(gt_wisdom_saver *s)
{
    return atomic_load(&s->changes) != atomic_load(&s->saved);
}

/* Logs a failure once until it changes, and the save that ends a run of them. */
static void tell(gt_wisdom_saver *s, int rc, const char *err)
{
    if (rc && strcmp(err, s->failure) != 0) {
        gt_log_warn("the wisdom could not be saved: %s; trying again every %d ms", err, GT_WISDOM_SAVE_RETRY_MS);
        snprintf(s->failure, sizeof s->failure, "%s", err);
    } else if (rc == 0 && s->failure[0]) {
        gt_log_info("the wisdom was saved again");
        s->failure[0] = '\0';
    }
}

static void *saver_thread(void *arg)
{
    gt_wisdom_saver *s = arg;
    int64_t next_ms = 0; /* the earliest start of the next save */
    pthread_mutex_lock(&s->m);
    for (;;) {
        while (!s->stop && !has_unsaved(s))
            pthread_cond_wait(&s->cv, &s->m);
        if (s->stop)
            break;
        int64_t now = gt_clock_ms();
        if (now < next_ms) {
            struct timespec until = {.tv_sec = next_ms / 1000, .tv_nsec = next_ms % 1000 * 1000000L};
            pthread_cond_timedwait(&s->cv, &s->m, &until);
            continue;
        }
        pthread_mutex_unlock(&s->m);
        char err[512];
        int rc = save_copy(s, true, err, sizeof err);
        int64_t end = gt_clock_ms();
        tell(s, rc, err);
        next_ms = end + (rc ? GT_WISDOM_SAVE_RETRY_MS : (end - now) * GT_WISDOM_SAVE_SPACING);
        pthread_mutex_lock(&s->m);
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}

int gt_wisdom_saver_start(gt_wisdom *w, pthread_mutex_t *lock, gt_wisdom_saver **out, char *err, size_t errlen)
{
    gt_wisdom_saver *s = *out = calloc(1, sizeof *s);
    if (!s)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory starting the wisdom's saver");
    s->w = w;
    s->wisdom_lock = lock;
    atomic_store(&s->entries, gt_wisdom_count(w));
    atomic_store(&s->evicted, gt_wisdom_evicted(w));
    pthread_mutex_init(&s->file, NULL);
    pthread_mutex_init(&s->m, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* next_ms is gt_clock_ms */
    pthread_cond_init(&s->cv, &attr);
    pthread_condattr_destroy(&attr);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are the loop's */
    int rc = pthread_create(&s->thread, NULL, saver_thread, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->m);
        pthread_mutex_destroy(&s->file);
        free(s);
        *out = NULL;
        return gt_sentence_fail(err, errlen, -rc, "cannot start the wisdom's saver: %s", strerror(rc));
    }
    pthread_setname_np(s->thread, "gt-wisdom");
    return 0;
}

void gt_wisdom_saver_changed(gt_wisdom_saver *s)
{
    atomic_store(&s->entries, gt_wisdom_count(s->w));
    atomic_store(&s->evicted, gt_wisdom_evicted(s->w));
    atomic_fetch_add(&s->changes, 1);
    pthread_mutex_lock(&s->m);
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->m);
}

int gt_wisdom_saver_save_now(gt_wisdom_saver *s, char *err, size_t errlen)
{
    return save_copy(s, true, err, errlen);
}

void gt_wisdom_saver_save_abandoning(gt_wisdom_saver *s)
{
    char err[512];
    if (s && has_unsaved(s) && save_copy(s, false, err, sizeof err) != 0)
        gt_log_warn("the wisdom's last changes could not be saved: %s", err);
}

gt_wisdom_figures gt_wisdom_saver_figures(gt_wisdom_saver *s)
{
    return (gt_wisdom_figures){
        .entries = atomic_load(&s->entries), .evicted = atomic_load(&s->evicted), .unsaved = has_unsaved(s)};
}

void gt_wisdom_saver_stop(gt_wisdom_saver *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->m);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->m);
    pthread_join(s->thread, NULL);
    char err[512];
    if (has_unsaved(s) && save_copy(s, true, err, sizeof err) != 0)
        gt_log_warn("the wisdom could not be saved: %s", err);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->m);
    pthread_mutex_destroy(&s->file);
    free(s);
}
