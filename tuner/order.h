/* order.h: orders, the permutations of a grid that schedules are built from.
 *
 * An order visits every cell of a grid of shape[0] x shape[1] x shape[2] cells exactly once.
 * Cells are named by their linear index x + X*(y + Y*z) (x fastest). The same orders serve
 * workgroup grids (group order) and the work-items inside a workgroup (item order).
 *
 * Meaning in 1-D, 2-D and 3-D (a 1-D grid is X x 1 x 1, a 2-D grid X x Y x 1):
 *   linear        row-major: x fastest, then y, then z.
 *   column        column-major: dimensions reversed, z fastest, then y, then x (2-D: y
 *                 fastest); 1-D: linear.
 *   strided:S/G   over the linear index, cut into granules of G consecutive cells: visit
 *                 granules 0, S, 2S, ..., then 1, S+1, ..., then 2, ... A stride at least the
 *                 number of granules gives the linear order.
 *   zigzag        rows (fixed y and z) in linear order, with every odd row (y + Y*z odd)
 *                 reversed; 1-D: linear.
 *   tiled:WxH     2-D tiles of W x H cells, tiles row-major, cells row-major within a tile;
 *                 edge tiles are clipped; each z plane in turn. 1-D: linear (tiles of W).
 *   hilbert       a generalized Hilbert curve over any X x Y, not only powers of two:
 *                 consecutive cells are grid neighbours. 3-D: plane by plane, odd planes
 *                 walked backwards so the path stays connected. 1-D: linear.
 *   morton        Z-order: bits of x, y, z interleaved with x lowest; cells outside the grid
 *                 are skipped. 1-D: linear.
 *   grouped:G     bands of G rows (the last band shorter), bands top to bottom, column-major
 *                 inside a band (y fastest within the band, then x); each z plane in turn.
 *                 G = 1 is linear; G >= Y is column on 2-D. 1-D: linear. (Triton's
 *                 GROUP_SIZE_M, CUTLASS's threadblock swizzle.)
 * Parameterless orders ignore p1 and p2; grouped ignores p2. */
#ifndef GT_ORDER_H
#define GT_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gt_order_kind {
    GT_ORDER_LINEAR,
    GT_ORDER_COLUMN,
    GT_ORDER_STRIDED,
    GT_ORDER_ZIGZAG,
    GT_ORDER_TILED,
    GT_ORDER_HILBERT,
    GT_ORDER_MORTON,
    GT_ORDER_GROUPED,
} gt_order_kind;

/* p1, p2: strided -> stride, granularity; tiled -> width, height; grouped -> G, 0;
 * others -> 0. */
typedef struct gt_order {
    gt_order_kind kind;
    uint32_t p1, p2;
} gt_order;

/* Writes the visiting sequence into out (shape[0]*shape[1]*shape[2] entries): out[k] is the
 * linear index of the k-th cell visited. Returns 0, or -EINVAL for a zero parameter or an
 * empty shape, or -EOVERFLOW when the cell count does not fit in 32 bits. */
int gt_order_fill(const gt_order *o, const uint32_t shape[3], uint32_t *out);

/* Same kind and parameters. */
static inline bool gt_order_equal(const gt_order *a, const gt_order *b)
{
    return a->kind == b->kind && a->p1 == b->p1 && a->p2 == b->p2;
}

/* True when gt_order_at has a closed form for o (every order but hilbert and morton). */
bool gt_order_has_closed_form(const gt_order *o);
/* The linear index of the k-th cell o visits on shape (the same as gt_order_fill's out[k]);
 * closed-form orders only, k < the cell count. O(1). Arguments gt_order_fill would refuse, an
 * order without a closed form or k out of range give GT_ORDER_NO_CELL. */
uint32_t gt_order_at(const gt_order *o, const uint32_t shape[3], uint32_t k);
#define GT_ORDER_NO_CELL UINT32_MAX

/* Text form: "linear", "column", "strided:S/G", "zigzag", "tiled:WxH", "hilbert", "morton",
 * "grouped:G". Tile sides and band heights are 1..65536, strides and granularities
 * 1..2^32-1.
 * gt_order_parse reads exactly len characters of text. On error it returns -EINVAL and writes
 * a sentence quoting the bad part into err. gt_order_format returns the length it would
 * write, as snprintf does. */
int gt_order_parse(const char *text, size_t len, gt_order *out, char *err, size_t errlen);
int gt_order_format(const gt_order *o, char *buf, size_t len);

/* A kind's name without parameters ("tiled"), and back; NULL / -EINVAL when unknown. */
#define GT_ORDER_KINDS 8
const char *gt_order_kind_name(gt_order_kind kind);
int gt_order_kind_parse(const char *name, size_t len, gt_order_kind *out);

#endif
