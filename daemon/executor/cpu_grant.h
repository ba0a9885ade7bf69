/* cpu_grant.h: which executor process may run now. Each user's launches run on a thread of
 * their own (executors.h), but only the holder of the grant runs: at most one pool of workers
 * is busy at a time, so isolation never means oversubscription. A holder that has run a time
 * slice while others wait is paused (its executor stopped, SIGSTOP) and queued behind them;
 * the grant goes round, so a kernel that never returns costs other users a slice per turn,
 * not their launches. A slice of 0 never pauses: holders run to the end, one after another.
 *
 * Members are whatever can be paused and resumed; the grant calls pause and resume with its
 * lock held, from the thread of whichever member takes the grant. */
#ifndef GT_CPU_GRANT_H
#define GT_CPU_GRANT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gt_grant_member gt_grant_member;
struct gt_grant_member {
    void (*pause)(void *ctx);
    void (*resume)(void *ctx);
    void *ctx;
    /* the grant's own */
    bool paused;
    gt_grant_member *next;
};

typedef struct gt_cpu_grant gt_cpu_grant;

/* NULL without memory. */
gt_cpu_grant *gt_cpu_grant_new(unsigned slice_ms);
void gt_cpu_grant_free(gt_cpu_grant *g);
/* Blocks until m holds the grant; meanwhile, once the holder has had its slice, this thread
 * pauses it and passes the grant on. */
void gt_cpu_grant_acquire(gt_cpu_grant *g, gt_grant_member *m);
/* Takes the grant if nobody holds it or waits for it, without waiting. */
bool gt_cpu_grant_try_acquire(gt_cpu_grant *g, gt_grant_member *m);
/* m is done: the grant goes to the next in line (resumed if it was paused). A member paused
 * while holding (its process since ended) leaves the line. */
void gt_cpu_grant_release(gt_cpu_grant *g, gt_grant_member *m);
/* Times a holder was paused so far, for the status and the tests. */
uint64_t gt_cpu_grant_pauses(gt_cpu_grant *g);

#endif
