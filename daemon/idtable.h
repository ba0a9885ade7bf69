/* idtable.h: a session's objects (buffers, kernels, events) by the id the daemon gave them.
 * Ids only grow, so appending keeps the table sorted and lookups are a binary search. */
#ifndef GT_IDTABLE_H
#define GT_IDTABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gt_idtable {
    struct gt_identry {
        uint64_t id;
        void *ptr;
    } *entries;
    size_t count, cap;
} gt_idtable;

/* id must be larger than every id already in the table. 0 or -ENOMEM. */
int gt_idtable_add(gt_idtable *t, uint64_t id, void *ptr);
void *gt_idtable_find(const gt_idtable *t, uint64_t id);
/* Removes id and returns its pointer, or NULL when absent. */
void *gt_idtable_remove(gt_idtable *t, uint64_t id);
void gt_idtable_free(gt_idtable *t);

#endif
