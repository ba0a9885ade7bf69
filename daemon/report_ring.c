/* report_ring.c: a fixed ring of launch reports (report_ring.h). */
#include "report_ring.h"

#include <stdlib.h>
#include <unistd.h>

struct gt_report_ring {
    size_t capacity, count, next; /* next: the slot the next report goes to */
    struct {
        uint64_t id;
        unsigned uid;
        gt_launch_report *report;
    } *slots;
};

gt_report_ring *gt_report_ring_new(size_t capacity)
{
    gt_report_ring *r = calloc(1, sizeof *r);
    if (r && !(r->slots = calloc(capacity, sizeof *r->slots))) {
        free(r);
        return NULL;
    }
    if (r)
        r->capacity = capacity;
    return r;
}

void gt_report_ring_free(gt_report_ring *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->capacity; i++)
        gt_launch_report_unref(r->slots[i].report);
    free(r->slots);
    free(r);
}

void gt_report_ring_add(gt_report_ring *r, uint64_t id, unsigned uid, gt_launch_report *report)
{
    gt_launch_report_unref(r->slots[r->next].report);
    r->slots[r->next].id = id;
    r->slots[r->next].uid = uid;
    r->slots[r->next].report = gt_launch_report_ref(report);
    r->next = (r->next + 1) % r->capacity;
    if (r->count < r->capacity)
        r->count++;
}

gt_launch_report *gt_report_ring_get(gt_report_ring *r, size_t index, uint64_t *id, unsigned *uid)
{
    if (index >= r->count)
        return NULL;
    size_t slot = (r->next + r->capacity - 1 - index) % r->capacity;
    if (id)
        *id = r->slots[slot].id;
    if (uid)
        *uid = r->slots[slot].uid;
    return r->slots[slot].report;
}

gt_launch_report *gt_report_ring_find(gt_report_ring *r, uint64_t id, unsigned *uid)
{
    for (size_t i = 0; i < r->count; i++) {
        uint64_t found;
        gt_launch_report *report = gt_report_ring_get(r, i, &found, uid);
        if (found == id)
            return report;
    }
    return NULL;
}

bool gt_report_reader_sees_all(bool system_mode, unsigned uid)
{
    return !system_mode || uid == (unsigned)getuid() || uid == 0;
}
