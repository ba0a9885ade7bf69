/* assign.c: the assignment policies of a schedule, as run-time mechanics.
 * block and cyclic are static: each worker walks its own cursor and never talks to the others.
 * dynamic is one shared counter. stealing gives each worker a deque seeded with its block share;
 * since the owner only takes from the front and thieves only from the back, a deque is always
 * one contiguous range, and (head, tail) in a single 64-bit word is the whole deque. */
#include "assign.h"

#include <errno.h>
#include <stdlib.h>

static uint32_t block_begin(const gt_assigner *a, unsigned w)
{
    return (uint32_t)((uint64_t)a->n * w / a->workers);
}

static uint64_t pack(uint32_t head, uint32_t tail)
{
    return (uint64_t)tail << 32 | head;
}

int gt_assigner_init(gt_assigner *a, const gt_assign *policy, uint32_t n, unsigned workers)
{
    a->policy = *policy;
    a->n = n;
    a->workers = workers;
    atomic_init(&a->counter, 0);
    a->slots = aligned_alloc(GT_CACHE_LINE, workers * sizeof *a->slots);
    if (!a->slots)
        return -ENOMEM;
    for (unsigned w = 0; w < workers; w++) {
        gt_assign_slot *s = &a->slots[w];
        s->done = false;
        s->next = policy->kind == GT_ASSIGN_CYCLIC ? w : 0;
        atomic_init(&s->deque, pack(block_begin(a, w), block_begin(a, w + 1)));
    }
    return 0;
}

void gt_assigner_destroy(gt_assigner *a)
{
    free(a->slots);
    a->slots = NULL;
}

static bool clip(const gt_assigner *a, uint64_t begin, uint64_t len, uint32_t *b, uint32_t *e)
{
    if (begin >= a->n)
        return false;
    *b = (uint32_t)begin;
    *e = (uint32_t)(begin + len < a->n ? begin + len : a->n);
    return true;
}

static bool next_block(gt_assigner *a, unsigned w, uint32_t *b, uint32_t *e)
{
    gt_assign_slot *s = &a->slots[w];
    if (s->done)
        return false;
    s->done = true;
    *b = block_begin(a, w);
    *e = block_begin(a, w + 1);
    return *b < *e;
}

static bool next_cyclic(gt_assigner *a, unsigned w, uint32_t *b, uint32_t *e)
{
    gt_assign_slot *s = &a->slots[w];
    uint64_t chunk = s->next;
    s->next += a->workers;
    /* a cursor past n stays past n: chunk indices only grow */
    if (s->next < chunk)
        s->next = UINT32_MAX;
    return clip(a, chunk * a->policy.chunk, a->policy.chunk, b, e);
}

static bool next_dynamic(gt_assigner *a, uint32_t *b, uint32_t *e)
{
    /* relaxed: the counter only partitions positions; the data the workgroups touch was
     * published to the workers by the pool's mutex when the batch was posted. A CAS rather
     * than fetch_add keeps the counter from wrapping once the batch is exhausted. */
    uint32_t pos = atomic_load_explicit(&a->counter, memory_order_relaxed), end;
    do {
        if (pos >= a->n)
            return false;
        end = (uint64_t)pos + a->policy.chunk < a->n ? pos + a->policy.chunk : a->n;
    } while (!atomic_compare_exchange_weak_explicit(&a->counter, &pos, end, memory_order_relaxed,
                                                    memory_order_relaxed));
    *b = pos;
    *e = end;
    return true;
}

/* The owner takes one position from the front. */
static bool take_front(gt_assign_slot *s, uint32_t *b, uint32_t *e)
{
    uint64_t d = atomic_load_explicit(&s->deque, memory_order_relaxed);
    for (;;) {
        uint32_t head = (uint32_t)d, tail = (uint32_t)(d >> 32);
        if (head >= tail)
            return false;
        if (atomic_compare_exchange_weak_explicit(&s->deque, &d, pack(head + 1, tail), memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *b = head;
            *e = head + 1;
            return true;
        }
    }
}

/* A thief takes the back half of a victim's deque into its own (empty) deque. No one else
 * writes an empty deque, so a plain store suffices. */
static bool steal(gt_assigner *a, unsigned w)
{
    for (unsigned k = 1; k < a->workers; k++) {
        gt_assign_slot *victim = &a->slots[(w + k) % a->workers];
        uint64_t d = atomic_load_explicit(&victim->deque, memory_order_relaxed);
        for (;;) {
            uint32_t head = (uint32_t)d, tail = (uint32_t)(d >> 32);
            if (head >= tail)
                break;
            uint32_t take = (tail - head + 1) / 2;
            if (atomic_compare_exchange_weak_explicit(&victim->deque, &d, pack(head, tail - take),
                                                      memory_order_relaxed, memory_order_relaxed)) {
                atomic_store_explicit(&a->slots[w].deque, pack(tail - take, tail), memory_order_relaxed);
                return true;
            }
        }
    }
    return false;
}

static bool next_stealing(gt_assigner *a, unsigned w, uint32_t *b, uint32_t *e)
{
    do {
        if (take_front(&a->slots[w], b, e))
            return true;
    } while (steal(a, w));
    return false;
}

bool gt_assigner_next(gt_assigner *a, unsigned w, uint32_t *b, uint32_t *e)
{
    switch (a->policy.kind) {
    case GT_ASSIGN_BLOCK:
        return next_block(a, w, b, e);
    case GT_ASSIGN_CYCLIC:
        return next_cyclic(a, w, b, e);
    case GT_ASSIGN_DYNAMIC:
        return next_dynamic(a, b, e);
    case GT_ASSIGN_STEALING:
        return next_stealing(a, w, b, e);
    }
    return false;
}
