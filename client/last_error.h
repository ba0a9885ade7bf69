/* last_error.h: the sentence of each thread's last failure on a handle (gt_last_error).
 * A handle keeps one slot per thread that ever failed on it, keyed by a number given to each
 * thread once, so a thread never sees another's sentence, even one that had its pthread_t. */
#ifndef GT_CLIENT_LAST_ERROR_H
#define GT_CLIENT_LAST_ERROR_H

#include <gridtune/gridtune.h>

#include <pthread.h>

typedef struct gt_error_slot gt_error_slot;

typedef struct gt_error_table {
    pthread_mutex_t lock;
    gt_error_slot *slots;
} gt_error_table;

int gt_error_table_init(gt_error_table *t);
void gt_error_table_free(gt_error_table *t);

/* Records the sentence for the calling thread's failure on c (c NULL: the sentence
 * gt_last_error(NULL) gives) and returns rc, so a failing path can end in one statement. c is
 * NULL or a live client (handle_registry.h): a released handle's table is freed with it. */
int gt_fail(gt_client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
