/* assign.h: handing the positions 0..n-1 of an ordered batch to workers, by policy.
 * Each call gives a worker its next run of consecutive positions; the runs of all workers
 * partition 0..n-1, so every workgroup runs exactly once. */
#ifndef GT_ASSIGN_H
#define GT_ASSIGN_H

#include "tuner/schedule.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define GT_CACHE_LINE 64

/* One per worker, on its own cache line: the worker's cursor, and for stealing its deque,
 * the range [head, tail) packed into one word so that owner and thieves agree with one CAS. */
typedef struct gt_assign_slot {
    alignas(GT_CACHE_LINE) uint32_t next; /* block and cyclic: the worker's private cursor */
    bool done;
    _Atomic uint64_t deque; /* stealing: head in the low half, tail in the high half */
} gt_assign_slot;

typedef struct gt_assigner {
    gt_assign policy;
    uint32_t n;
    unsigned workers;
    alignas(GT_CACHE_LINE) _Atomic uint32_t counter; /* dynamic: the next position to hand out */
    gt_assign_slot *slots;
} gt_assigner;

/* Returns 0 or -ENOMEM. */
int gt_assigner_init(gt_assigner *a, const gt_assign *policy, uint32_t n, unsigned workers);
void gt_assigner_destroy(gt_assigner *a);

/* Worker w's next run [*begin, *end); false when it has nothing left to do. */
bool gt_assigner_next(gt_assigner *a, unsigned w, uint32_t *begin, uint32_t *end);

#endif
