/* jobq.h: a thread that runs jobs in order, off the event loop, and hands each one back to
 * the loop when it is done. gridtuned has two: the launcher, which runs launches on the
 * worker pool one at a time (so every client's launches keep their order, and the CPUs are
 * never oversubscribed), and the kernel thread, which loads and compiles modules.
 * run() is called on the queue's thread; done() on the event loop's thread, in order. */
#ifndef GT_JOBQ_H
#define GT_JOBQ_H

#include <event2/event.h>
#include <stdbool.h>

typedef struct gt_job gt_job;
struct gt_job {
    void (*run)(gt_job *job);  /* on the queue's thread */
    void (*done)(gt_job *job); /* on the loop's thread; frees the job */
    gt_job *next;
};

typedef struct gt_jobq gt_jobq;

/* Starts the thread (with every signal blocked). After a job the thread polls for the next
 * one for spin_us microseconds before it sleeps (0: it sleeps at once), so that a job pushed
 * meanwhile starts without the cost of waking the thread. Returns 0 or a negative errno. */
int gt_jobq_create(struct event_base *base, const char *name, unsigned spin_us, gt_jobq **out);
/* From the loop's thread. */
void gt_jobq_push(gt_jobq *q, gt_job *job);
/* From the loop's thread: calls done() of the jobs finished so far, now, rather than when
 * the loop next turns. */
void gt_jobq_deliver(gt_jobq *q);
/* Jobs pushed and not yet handed back through done(). 0: nothing is queued, running or waiting
 * for done(); only the loop pushes, so the queue stays so until it pushes again, and meanwhile
 * the loop may do what the queue's thread would. */
unsigned gt_jobq_pending(const gt_jobq *q);
/* Runs every job still queued (their run() sees whatever flag the owner set to cancel
 * them), joins the thread and calls the remaining done()s. */
void gt_jobq_destroy(gt_jobq *q);

#endif
