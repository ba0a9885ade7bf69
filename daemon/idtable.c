/* idtable.c: sorted id -> pointer tables (idtable.h). */
#include "idtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int gt_idtable_add(gt_idtable *t, uint64_t id, void *ptr)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct gt_identry *e = realloc(t->entries, cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        t->entries = e;
        t->cap = cap;
    }
    t->entries[t->count++] = (struct gt_identry){id, ptr};
    return 0;
}

static size_t lower_bound(const gt_idtable *t, uint64_t id)
{
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->entries[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void *gt_idtable_find(const gt_idtable *t, uint64_t id)
{
    size_t i = lower_bound(t, id);
    return i < t->count && t->entries[i].id == id ? t->entries[i].ptr : NULL;
}

void *gt_idtable_remove(gt_idtable *t, uint64_t id)
{
    size_t i = lower_bound(t, id);
    if (i == t->count || t->entries[i].id != id)
        return NULL;
    void *ptr = t->entries[i].ptr;
    memmove(t->entries + i, t->entries + i + 1, (t->count - i - 1) * sizeof *t->entries);
    t->count--;
    return ptr;
}

void gt_idtable_free(gt_idtable *t)
{
    free(t->entries);
    *t = (gt_idtable){0};
}
