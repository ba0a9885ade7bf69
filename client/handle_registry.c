/* handle_registry.c: the process-wide set of live handles (handle_registry.h). One mutex guards
 * an open-addressing hash table keyed by the handle's address, with linear probing and
 * backward-shift deletion (no tombstones, so lookups stay short however many handles came and
 * went). A lookup is one lock and, at a load of at most one half, a probe or two: cheap
 * enough for the entry of gt_launch and gt_wait. The table is freed whenever it empties, so a
 * program that disconnects everything leaves nothing allocated. */
#include "handle_registry.h"

#include "last_error.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Slots of the first table; it doubles when more than half full. */
#define FIRST_CAPACITY 64

typedef struct entry {
    const void *handle; /* NULL: an empty slot */
    const gt_client *owner;
    gt_handle_kind kind;
} entry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t capacity; /* 0 or a power of two */
static size_t count;

/* The home slot of h. Handles are malloc'd, so their low bits say little: mix all of them
 * (the finaliser of MurmurHash3). */
static size_t home(const void *h)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t)x & (capacity - 1);
}

/* h's slot, or capacity when it has none. */
static size_t find(const void *h)
{
    if (!capacity || !h)
        return capacity;
    for (size_t i = home(h);; i = (i + 1) & (capacity - 1)) {
        if (table[i].handle == h)
            return i;
        if (!table[i].handle)
            return capacity;
    }
}

static void put(entry e)
{
    size_t i = home(e.handle);
    while (table[i].handle)
        i = (i + 1) & (capacity - 1);
    table[i] = e;
}

static int grow(void)
{
    size_t old_capacity = capacity, new_capacity = capacity ? capacity * 2 : FIRST_CAPACITY;
    entry *old = table, *fresh = calloc(new_capacity, sizeof *fresh);
    if (!fresh)
        return -ENOMEM;
    table = fresh;
    capacity = new_capacity;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].handle)
            put(old[i]);
    free(old);
    return 0;
}

/* Empties slot i and moves later entries of its probe run back, so that no run has a gap:
 * an entry moves into the hole when its home is not in the cyclic range (hole, its slot]. */
static void take_out(size_t hole)
{
    size_t mask = capacity - 1;
    for (size_t j = (hole + 1) & mask; table[j].handle; j = (j + 1) & mask) {
        size_t h = home(table[j].handle);
        bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
        if (!stays) {
            table[hole] = table[j];
            hole = j;
        }
    }
    table[hole] = (entry){.handle = NULL};
    if (--count == 0) {
        free(table);
        table = NULL;
        capacity = 0;
    }
}

/* A fork() while another thread holds the lock would leave the child's copy locked for ever:
 * the lock is taken around fork, so the child may gt_connect anew (it must not use its
 * parent's clients, whose socket it would share with the parent). */
static void lock_for_fork(void)
{
    pthread_mutex_lock(&registry_lock);
}

static void unlock_after_fork(void)
{
    pthread_mutex_unlock(&registry_lock);
}

static void watch_forks(void)
{
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}

int gt_handle_add(const void *h, gt_handle_kind kind, const gt_client *owner)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_lock(&registry_lock);
    int rc = (count + 1) * 2 > capacity ? grow() : 0;
    if (!rc) {
        put((entry){.handle = h, .owner = owner, .kind = kind});
        count++;
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

bool gt_handle_remove(const void *h, gt_handle_kind kind)
{
    pthread_mutex_lock(&registry_lock);
    size_t i = find(h);
    bool live = i < capacity && table[i].kind == kind;
    if (live)
        take_out(i);
    pthread_mutex_unlock(&registry_lock);
    return live;
}

void gt_handle_lock(void)
{
    pthread_mutex_lock(&registry_lock);
}

void gt_handle_unlock(void)
{
    pthread_mutex_unlock(&registry_lock);
}

gt_client *gt_handle_owner_locked(const void *h, gt_handle_kind kind)
{
    size_t i = find(h);
    return i < capacity && table[i].kind == kind ? (gt_client *)table[i].owner : NULL;
}

gt_client *gt_handle_owner(const void *h, gt_handle_kind kind)
{
    pthread_mutex_lock(&registry_lock);
    gt_client *owner = gt_handle_owner_locked(h, kind);
    pthread_mutex_unlock(&registry_lock);
    return owner;
}

int gt_fail_dead(gt_client *c, const char *fn, const void *h, gt_handle_kind kind)
{
    if (kind == GT_HANDLE_CLIENT)
        return gt_fail(c, -EBADF, "%s: the client %p was already disconnected", fn, h);
    return gt_fail(c, -EBADF, "%s: the %s %p was already released, or its client disconnected", fn,
                   kind == GT_HANDLE_BUFFER ? "buffer" : "kernel", h);
}

int gt_handle_check_client(const gt_client *c, const char *fn)
{
    if (!c || gt_handle_owner(c, GT_HANDLE_CLIENT))
        return 0;
    return gt_fail_dead(NULL, fn, c, GT_HANDLE_CLIENT);
}
