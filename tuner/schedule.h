/* schedule.h: a schedule is a group order, a span, an item order and an assignment of the
 * ordered spans to workers, with a canonical text form such as
 *     group=tiled:4x4,span=8,item=linear,assign=dynamic:8
 * A span of N runs N consecutive workgroups along dimension 0 as one loop over their items: the
 * group order and the assignment then order and hand out spans, not single workgroups (the
 * grid is cut into spans first, N workgroups wide, the last one of a row narrower). A chunk
 * still counts workgroups: cyclic:C and dynamic:C hand out C / N spans at a time (at least one).
 * Parsing accepts the keys in any order and defaults omitted ones (span=1). Formatting prints
 * group, item and assign always, and span only when it is not 1, so texts written before spans
 * existed are still canonical; format(parse(text)) is canonical and parse(format(schedule))
 * gives the schedule back. */
#ifndef GT_SCHEDULE_H
#define GT_SCHEDULE_H

#include "order.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gt_assign_kind {
    GT_ASSIGN_BLOCK,    /* "block": worker w takes the w-th contiguous share */
    GT_ASSIGN_CYCLIC,   /* "cyclic:C": chunk k of C workgroups goes to worker k mod N */
    GT_ASSIGN_DYNAMIC,  /* "dynamic:C": a shared counter hands out chunks of C in order */
    GT_ASSIGN_STEALING, /* "stealing": per-worker deques seeded with block shares; the owner
                           takes from the front, thieves take half from the back */
} gt_assign_kind;

typedef struct gt_assign {
    gt_assign_kind kind;
    uint32_t chunk; /* cyclic and dynamic; 0 otherwise */
} gt_assign;

typedef struct gt_schedule {
    gt_order group;
    gt_order item;
    gt_assign assign;
    uint32_t span; /* workgroups per call along dimension 0, 1..GT_SPAN_MAX */
} gt_schedule;

#define GT_SPAN_MAX 65536u

/* Room for any formatted schedule, terminator included. */
#define GT_SCHEDULE_TEXT_MAX 128

/* group=linear,item=linear,assign=stealing (span 1): the default; stealing since 2026-11-27. */
extern const gt_schedule gt_schedule_default;

int gt_schedule_parse(const char *text, gt_schedule *out, char *err, size_t errlen);
int gt_schedule_format(const gt_schedule *s, char *buf, size_t len);
bool gt_schedule_equal(const gt_schedule *a, const gt_schedule *b);

/* A kind's name without its chunk ("dynamic"), and back; NULL / -EINVAL when unknown. */
#define GT_ASSIGN_KINDS 4
const char *gt_assign_kind_name(gt_assign_kind kind);
int gt_assign_kind_parse(const char *name, size_t len, gt_assign_kind *out);
bool gt_assign_has_chunk(gt_assign_kind kind);

int gt_assign_parse(const char *text, size_t len, gt_assign *out, char *err, size_t errlen);
int gt_assign_format(const gt_assign *a, char *buf, size_t len);

#endif
