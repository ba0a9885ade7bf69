/* space.h: the candidate space: which schedules analysis tries.
 * A schedule has four axes (assignment, item order, group order, span). Analysis explores them
 * one after the other, each time varying one axis of the best schedule so far, so the space is
 * the sum of the axes' styles rather than their product, with one pair: the item axis of a
 * row-wise base also offers the column walk (column items under the column group order), which
 * no axis alone reaches when neither half wins by itself. Each style's control parameters
 * (chunk, tile side, stride and granularity, band height) and the span follow a geometric
 * series bounded by the grid (a span by a row and by a worker's share of a sample, a band
 * height by 16).
 * Variations that give the same permutation as an earlier one for this shape are left out. */
#ifndef GT_SPACE_H
#define GT_SPACE_H

#include "schedule.h"

#include <gridtune/range.h>
#include <stddef.h>
#include <stdint.h>

#define GT_STYLE_NAME_MAX 32

typedef enum gt_axis {
    GT_AXIS_ASSIGN,
    GT_AXIS_ITEM,
    GT_AXIS_GROUP,
    GT_AXIS_SPAN, /* no styles: the series of spans */
    GT_AXIS_COUNT,
} gt_axis;
const char *gt_axis_name(gt_axis a);
/* The axis named by the len characters at name ("group"); -1 when none is. */
int gt_axis_parse(const char *name, size_t len);

typedef struct gt_series {
    uint32_t start; /* first value, at least 1 */
    uint32_t ratio; /* at least 2 */
    uint32_t limit; /* largest value; 0 = bounded by the grid only */
} gt_series;

typedef struct gt_space_config {
    gt_series series;
    unsigned axes;        /* bit (1 << gt_axis): axes analysis explores */
    uint32_t group_styles; /* bit (1 << gt_order_kind) */
    uint32_t item_styles;  /* bit (1 << gt_order_kind) */
    uint32_t assign_styles; /* bit (1 << gt_assign_kind) */
} gt_space_config;

/* All axes; group: linear column zigzag tiled hilbert grouped; item: linear column tiled;
 * assign: dynamic stealing (block can be switched on; space.c says why it is not a default);
 * spans; series 2, 2, grid-bounded. */
gt_space_config gt_space_config_default(void);
int gt_space_config_check(const gt_space_config *c, char *err, size_t errlen);
/* "group=linear+tiled+hilbert,item=linear,assign=block+dynamic,span=": replaces the styles of
 * the named axes; an axis not named keeps its styles, and "axis=" with no styles switches it
 * off. The span axis has the one style "series", the geometric series of spans (span=series
 * switches it on). */
int gt_space_styles_parse(const char *text, gt_space_config *c, char *err, size_t errlen);
/* "start:ratio:limit", e.g. "2:2:0". */
int gt_series_parse(const char *text, gt_series *out, char *err, size_t errlen);

typedef struct gt_space_entry {
    gt_schedule schedule;
    char style[GT_STYLE_NAME_MAX]; /* "group=tiled" */
} gt_space_entry;

/* The widest span worth running under group order `group` over grid: a row of the grid under
 * the linear order, SPAN_COLUMNS_MIN (space.c) times less under another, whose walk of the
 * grid of spans would otherwise keep too few columns to matter. At least 1. */
uint32_t gt_space_row_span(const gt_order *group, const uint32_t grid[3]);

/* The variations of one axis of base, in nested order (styles outside, parameters inside),
 * base's own setting of the axis first. item_shape is the workgroup's shape in work-items,
 * grid the launch's shape in workgroups (group orders are applied over its spans of base's
 * width), sample_groups the workgroups of a sample: a sample gives each worker four chunks at
 * least and holds a whole group tile; for the span axis, a sample of base's size: the widest
 * span is a worker's share of it, or the row when that share holds half a row or more. On
 * success *out is an array of *n entries the caller frees. Returns 0, -ENOMEM. */
int gt_space_axis(const gt_space_config *c, gt_axis axis, const gt_schedule *base,
                  const uint32_t item_shape[3], const uint32_t grid[3], uint64_t sample_groups, unsigned workers,
                  gt_space_entry **out, size_t *n);

#endif
