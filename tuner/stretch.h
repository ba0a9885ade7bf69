/* stretch.h: analysis samples as stretches of a schedule's own walk over the whole grid.
 *
 * A schedule walks the whole grid the way the remainder will: the grid is cut into spans
 * (span workgroups along x, the last of each row narrower), and the group order visits the
 * grid of spans; each visited span becomes a run of workgroups. A stretch is what that walk
 * runs from a position on, leaving out workgroups already run, until it holds the workgroups
 * asked for: a piece of the whole launch as that schedule would run it, with the same runs,
 * handed to the executor as they are (gt_exec_batch.runs). Positions count spans; a walk that
 * reaches the end goes on from position 0. */
#ifndef GT_STRETCH_H
#define GT_STRETCH_H

#include "executor.h"
#include "schedule.h"

#include <stdint.h>

/* The walks of one launch's grid. Orders with a closed form (gt_order_at) step from position
 * to cell directly; the permutations of the others (Hilbert, Morton) are remembered, so that
 * each is filled once per analysis. */
typedef struct gt_walks gt_walks;

/* NULL when out of memory. */
gt_walks *gt_walks_create(const uint32_t grid[3]);
void gt_walks_destroy(gt_walks *w);

/* The positions (spans) of a walk with this span over the grid. */
uint64_t gt_walk_positions(const uint32_t grid[3], uint32_t span);

typedef struct gt_stretch {
    gt_group_run *runs;
    uint32_t nruns;
    uint64_t groups; /* workgroups in the runs */
    uint64_t start;  /* the position it started at */
    uint64_t next;   /* the position after the last one it took */
} gt_stretch;

/* Takes the stretch of s's walk from position start (taken modulo the positions) that holds
 * want workgroups, or every workgroup not in done when fewer are left; its last span may be
 * cut short. done (a bitmap over the linear workgroup ids, NULL = none) is read, not
 * changed: the caller marks the runs done once they ran. Returns 0 (an empty stretch when every
 * workgroup is done), -ENOMEM or -EINVAL (a bad span or order for the grid). Free with
 * gt_stretch_free in every case. */
int gt_stretch_take(gt_walks *w, const gt_schedule *s, uint64_t start, uint64_t want, const uint8_t *done,
                    gt_stretch *out);
void gt_stretch_free(gt_stretch *st);
/* Marks the stretch's workgroups in done. */
void gt_stretch_mark(const gt_stretch *st, uint8_t *done);

/* The k-th share of a walk to start at: the van der Corput sequence in base 2 (0, 1/2, 1/4,
 * 3/4, 1/8, ...), so that however many stretches are taken, their starts spread over the walk. */
double gt_walk_share(unsigned k);

#endif
