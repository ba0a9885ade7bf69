/* last_error.c: per-thread error sentences of a handle (last_error.h), and gt_last_error.
 * The slots live in the handle, not in thread-local storage, so they are freed with it and
 * a thread that exits leaks nothing; only the thread's number is thread-local. */
#include "last_error.h"

#include "handle.h"
#include "handle_registry.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the sentence of a failure with no live client to keep it: a gt_connect that could
 * not allocate its handle, a call made with a NULL handle, or one given a released or
 * disconnected handle. Short, and never allocated. */
#define NO_HANDLE_SENTENCE 512

struct gt_error_slot {
    uint64_t thread;
    char *text; /* NULL when there was no memory for it */
    gt_error_slot *next;
};

static _Thread_local char no_handle_error[NO_HANDLE_SENTENCE];
static _Thread_local uint64_t thread_number;
static atomic_uint_fast64_t threads_numbered;

/* Numbers start at 1 and are never reused, unlike pthread_t values. */
static uint64_t this_thread(void)
{
    if (!thread_number)
        thread_number = (uint64_t)atomic_fetch_add(&threads_numbered, 1) + 1;
    return thread_number;
}

int gt_error_table_init(gt_error_table *t)
{
    t->slots = NULL;
    return -pthread_mutex_init(&t->lock, NULL);
}

void gt_error_table_free(gt_error_table *t)
{
    for (gt_error_slot *s = t->slots, *next; s; s = next) {
        next = s->next;
        free(s->text);
        free(s);
    }
    t->slots = NULL;
    pthread_mutex_destroy(&t->lock);
}

static gt_error_slot *find_slot(gt_error_table *t, uint64_t thread)
{
    for (gt_error_slot *s = t->slots; s; s = s->next)
        if (s->thread == thread)
            return s;
    return NULL;
}

int gt_fail(gt_client *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!c) {
        vsnprintf(no_handle_error, sizeof no_handle_error, fmt, ap);
        va_end(ap);
        return rc;
    }
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    uint64_t me = this_thread();
    pthread_mutex_lock(&c->errors.lock);
    gt_error_slot *s = find_slot(&c->errors, me);
    if (!s && (s = calloc(1, sizeof *s))) {
        s->thread = me;
        s->next = c->errors.slots;
        c->errors.slots = s;
    }
    if (s) {
        free(s->text);
        s->text = text;
        text = NULL;
    }
    pthread_mutex_unlock(&c->errors.lock);
    free(text);
    return rc;
}

const char *gt_last_error(const gt_client *c)
{
    /* a disconnected client has no table left: the sentence of the call that found it gone
     * was kept for the thread, as a call without a handle's is */
    if (!c || !gt_handle_owner(c, GT_HANDLE_CLIENT))
        return no_handle_error;
    /* the table's lock is the handle's to take even through a const pointer: reading the
     * slots while another thread adds its own must not race */
    gt_error_table *t = (gt_error_table *)&c->errors;
    pthread_mutex_lock(&t->lock);
    const gt_error_slot *s = find_slot(t, this_thread());
    const char *text = !s ? "" : s->text ? s->text : "out of memory while recording the sentence for an error";
    pthread_mutex_unlock(&t->lock);
    return text;
}
