/* wisdom_saver.h: writes gridtuned's wisdom file off the launch path.
 * Printing the file costs about 20 us per entry (80 ms at 4096 entries), and a launch that
 * decided or refined used to pay it, holding the CPUs and the wisdom's lock. Now it only says
 * so (gt_wisdom_saver_changed); the saver's thread copies the wisdom under the lock (a memory
 * copy) and writes the copy without it. Changes that come faster than saves coalesce: a save
 * starts no sooner than GT_WISDOM_SAVE_SPACING times the last one's length after it, so that
 * saving takes at most about a tenth of a CPU, and a failed save is tried again a second
 * later. The saver also keeps the wisdom's figures for the status, so that the loop never
 * waits for the lock. */
#ifndef GT_WISDOM_SAVER_H
#define GT_WISDOM_SAVER_H

#include "tuner/wisdom.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_WISDOM_SAVE_SPACING 10
#define GT_WISDOM_SAVE_RETRY_MS 1000

typedef struct gt_wisdom_saver gt_wisdom_saver;

typedef struct gt_wisdom_figures {
    size_t entries;   /* after the latest change */
    uint64_t evicted; /* entries evicted to keep within the limit, since gridtuned started */
    bool unsaved;     /* changes the file does not hold yet */
} gt_wisdom_figures;

/* Starts the thread for w, which lock guards. 0 or a negative errno with a sentence. */
int gt_wisdom_saver_start(gt_wisdom *w, pthread_mutex_t *lock, gt_wisdom_saver **out, char *err, size_t errlen);
/* The wisdom changed: it will be saved soon. Called with the wisdom's lock held, so that a
 * copy taken after it holds the change. */
void gt_wisdom_saver_changed(gt_wisdom_saver *s);
/* Saves every change so far now, on the caller's thread, which must not hold the wisdom's
 * lock: for import and clear, whose answers say whether the file took them. 0 or a negative
 * errno with a sentence. */
int gt_wisdom_saver_save_now(gt_wisdom_saver *s, char *err, size_t errlen);
gt_wisdom_figures gt_wisdom_saver_figures(gt_wisdom_saver *s);
/* At an exit that leaves threads behind: saves what changed, unless a launch holds the
 * wisdom's lock (said in the log). NULL is allowed. */
void gt_wisdom_saver_save_abandoning(gt_wisdom_saver *s);
/* Stops the thread and saves what changed since the last save. NULL is allowed. */
void gt_wisdom_saver_stop(gt_wisdom_saver *s);

#endif
