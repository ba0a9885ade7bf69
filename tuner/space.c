/* space.c: the candidates of one axis, their parameter series, and the style syntax.
 * A variation is left out when its permutation of the sample's shape equals one already
 * listed: in 1-D, column, zigzag, tiled, Hilbert, Morton and grouped are all the linear order,
 * a tile as large as the grid is no tile at all, and a band as tall as a 2-D grid is the column
 * order. Measuring such twins would only spend budget. */
#include "space.h"

#include "machine.h"
#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const axis_names[GT_AXIS_COUNT] = {
    [GT_AXIS_ASSIGN] = "assign",
    [GT_AXIS_ITEM] = "item",
    [GT_AXIS_GROUP] = "group",
    [GT_AXIS_SPAN] = "span",
};

const char *gt_axis_name(gt_axis a)
{
    return (unsigned)a < GT_AXIS_COUNT ? axis_names[a] : NULL;
}

int gt_axis_parse(const char *name, size_t len)
{
    for (int a = 0; a < GT_AXIS_COUNT; a++)
        if (strlen(axis_names[a]) == len && memcmp(name, axis_names[a], len) == 0)
            return a;
    return -1;
}

#define BIT(k) (1u << (unsigned)(k))

/* The tallest band grouped:G is tried with. Triton's tuned matmuls group 8 rows of tiles (its
 * GROUP_SIZE_M); 16 leaves one step beyond. Taller bands move towards the column order, which
 * the axis has already, and on a tall grid they would add a candidate for
 * every doubling of its height. */
#define SPACE_BAND_MAX 16u
/* Room for the list of order style names in an error message. */
#define STYLE_NAMES_MAX 128

/* block is left out of the default assignments: it is stealing without the stealing, and a
 * whole launch's static split leaves a worker that stalls with its share, which samples, short
 * and ranked by their median, do not show. Forced on whole launches in the tune bench's
 * oracles, block against its stealing twin (the same orders and span) was more than 3% faster
 * in 37 of 479 pairs and more than 3% slower in 161: 1.005x as long (median) on one VM,
 * 1.043x on another, 1.23x at the 90th percentile on both; analyses had picked it in 10 of 50
 * cold launches of one run (bench/results/assign-block-2026-11-28/). */
gt_space_config gt_space_config_default(void)
{
    return (gt_space_config){
        .series = {.start = 2, .ratio = 2, .limit = 0},
        .axes = BIT(GT_AXIS_ASSIGN) | BIT(GT_AXIS_ITEM) | BIT(GT_AXIS_GROUP) | BIT(GT_AXIS_SPAN),
        .group_styles = BIT(GT_ORDER_LINEAR) | BIT(GT_ORDER_COLUMN) | BIT(GT_ORDER_ZIGZAG) | BIT(GT_ORDER_TILED) |
                        BIT(GT_ORDER_HILBERT) | BIT(GT_ORDER_GROUPED),
        .item_styles = BIT(GT_ORDER_LINEAR) | BIT(GT_ORDER_COLUMN) | BIT(GT_ORDER_TILED),
        .assign_styles = BIT(GT_ASSIGN_DYNAMIC) | BIT(GT_ASSIGN_STEALING),
    };
}

int gt_space_config_check(const gt_space_config *c, char *err, size_t errlen)
{
    const gt_series *s = &c->series;
    if (s->start < 1 || s->ratio < 2 || (s->limit != 0 && s->limit < s->start)) {
        snprintf(err, errlen,
                 "parameter series %u:%u:%u: the start must be at least 1, the ratio at least 2, and the limit 0 "
                 "(bounded by the grid) or at least the start",
                 s->start, s->ratio, s->limit);
        return -EINVAL;
    }
    if (c->axes & ~(BIT(GT_AXIS_COUNT) - 1) || c->group_styles & ~(BIT(GT_ORDER_KINDS) - 1) ||
        c->item_styles & ~(BIT(GT_ORDER_KINDS) - 1) || c->assign_styles & ~(BIT(GT_ASSIGN_KINDS) - 1)) {
        snprintf(err, errlen, "the candidate space names an axis or a style that does not exist");
        return -EINVAL;
    }
    return 0;
}

int gt_series_parse(const char *text, gt_series *out, char *err, size_t errlen)
{
    const char *c1 = strchr(text, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    gt_series s;
    if (!c2 || gt_parse_u32(text, (size_t)(c1 - text), 1, UINT32_MAX, &s.start) < 0 ||
        gt_parse_u32(c1 + 1, (size_t)(c2 - c1 - 1), 2, UINT32_MAX, &s.ratio) < 0 ||
        gt_parse_u32(c2 + 1, strlen(c2 + 1), 0, UINT32_MAX, &s.limit) < 0) {
        snprintf(err, errlen,
                 "series \"%.40s\": expected START:RATIO:LIMIT, a start of at least 1, a ratio of at least 2 and a "
                 "limit (0 = bounded by the grid), e.g. 2:2:0",
                 text);
        return -EINVAL;
    }
    gt_space_config probe = gt_space_config_default();
    probe.series = s;
    int rc = gt_space_config_check(&probe, err, errlen);
    if (rc == 0)
        *out = s;
    return rc;
}

/* "linear, column, ... or grouped": the order styles' names, for error messages. */
static void order_style_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < GT_ORDER_KINDS && used < len; k++) {
        const char *joint = k == 0 ? "" : k + 1 == GT_ORDER_KINDS ? " or " : ", ";
        int n = snprintf(buf + used, len - used, "%s%s", joint, gt_order_kind_name((gt_order_kind)k));
        used += n > 0 ? (size_t)n : 0;
    }
}

/* Parses "linear+tiled+hilbert" into a style bitmask of the axis. */
static int parse_style_list(gt_axis axis, const char *text, size_t len, uint32_t *out, char *err, size_t errlen)
{
    uint32_t mask = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *plus = memchr(text + pos, '+', len - pos);
        size_t n = plus ? (size_t)(plus - text - pos) : len - pos;
        int rc;
        if (axis == GT_AXIS_SPAN) {
            rc = n == 6 && memcmp(text + pos, "series", 6) == 0 ? 0 : -EINVAL;
            mask |= 1;
        } else if (axis == GT_AXIS_ASSIGN) {
            gt_assign_kind k;
            rc = gt_assign_kind_parse(text + pos, n, &k);
            mask |= rc == 0 ? BIT(k) : 0;
        } else {
            gt_order_kind k;
            rc = gt_order_kind_parse(text + pos, n, &k);
            mask |= rc == 0 ? BIT(k) : 0;
        }
        if (rc < 0 || n == 0) {
            char orders[STYLE_NAMES_MAX];
            order_style_names(orders, sizeof orders);
            snprintf(err, errlen, "styles \"%.*s\": unknown %s style \"%.*s\"; expected %s", (int)len, text,
                     axis_names[axis], (int)n, text + pos,
                     axis == GT_AXIS_ASSIGN ? "block, cyclic, dynamic or stealing"
                     : axis == GT_AXIS_SPAN ? "series, or nothing to switch spans off"
                                            : orders);
            return -EINVAL;
        }
        pos += n + (plus ? 1 : 0);
    }
    *out = mask;
    return 0;
}

int gt_space_styles_parse(const char *text, gt_space_config *c, char *err, size_t errlen)
{
    gt_space_config next = *c;
    const char *field = text;
    while (*field) {
        const char *comma = strchr(field, ',');
        size_t len = comma ? (size_t)(comma - field) : strlen(field);
        const char *eq = memchr(field, '=', len);
        int axis = eq ? gt_axis_parse(field, (size_t)(eq - field)) : -1;
        if (axis < 0) {
            snprintf(err, errlen,
                     "styles \"%.*s\": expected AXIS=STYLE+STYLE..., with AXIS group, item, assign or span", (int)len,
                     field);
            return -EINVAL;
        }
        uint32_t mask;
        int rc = parse_style_list((gt_axis)axis, eq + 1, len - (size_t)(eq + 1 - field), &mask, err, errlen);
        if (rc < 0)
            return rc;
        uint32_t span_styles;
        uint32_t *styles[GT_AXIS_COUNT] = {&next.assign_styles, &next.item_styles, &next.group_styles, &span_styles};
        *styles[axis] = mask;
        next.axes = mask ? next.axes | BIT(axis) : next.axes & ~BIT(axis);
        field += len + (comma ? 1 : 0);
    }
    *c = next;
    return 0;
}

/* ---- generating one axis ----------------------------------------------------------------- */

typedef struct entry_list {
    gt_space_entry *v;
    size_t n, cap;
    uint64_t *perm_hash; /* the order axes: hash of each entry's permutation, to drop twins */
    bool failed;
} entry_list;

static bool list_push(entry_list *l, const gt_schedule *s, const char *axis, const char *style, uint64_t hash)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        gt_space_entry *v = realloc(l->v, cap * sizeof *v);
        uint64_t *h = realloc(l->perm_hash, cap * sizeof *h);
        if (v)
            l->v = v;
        if (h)
            l->perm_hash = h;
        if (!v || !h) {
            l->failed = true;
            return false;
        }
        l->cap = cap;
    }
    gt_space_entry *e = &l->v[l->n];
    e->schedule = *s;
    snprintf(e->style, sizeof e->style, "%s=%s", axis, style);
    l->perm_hash[l->n++] = hash;
    return true;
}

/* A sample gives each worker at least this many chunks: a chunk beyond that cannot be told
   apart by a sample from one that shares out worse. Spans are not shared out by chunks: a
   sample holds whole spans for every worker (sampler.c), one each at the widest. */
#define SHARES_PER_WORKER 4

static uint64_t cells_of(const uint32_t shape[3])
{
    return (uint64_t)shape[0] * shape[1] * shape[2];
}

/* A hash of a permutation, four words at a time in independent lanes: a launch's grid of
   workgroups may have millions of cells, and a byte-wise hash of them would cost more than the
   analysis's samples. */
static uint64_t perm_hash(const uint32_t *v, uint64_t n)
{
    uint64_t lane[4] = {GT_HASH_SEED, GT_HASH_SEED + 1, GT_HASH_SEED + 2, GT_HASH_SEED + 3};
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int j = 0; j < 4; j++)
            lane[j] = (lane[j] ^ v[i + j]) * 0x100000001b3ull;
    for (; i < n; i++)
        lane[0] = (lane[0] ^ v[i]) * 0x100000001b3ull;
    return gt_hash_bytes(n, lane, sizeof lane);
}

/* Up to this many cells, twins are found by filling and hashing the whole permutation. Filling
   costs: the group axis of a 256x256 grid took 1.4 ms with whole fills up to 65536 cells, and
   the tuner lists that axis twice per analysis (its size, then its candidates), which was a
   tenth of stencil5's cold launch (bench/results/twin-probes-2026-11-28/). */
#define TWIN_FILL_MAX 4096u
/* Beyond it, by hashing the cells at the first this many positions of the order, and at as
   many positions scattered over it (a 64-bit mix of the probe's index, modulo the cells): two
   different orders of a large grid that agree at all of them would have to differ only
   between the scattered positions, which no order here does. Scattered, not evenly spaced:
   positions a power of two apart fall on the first cell of even rows of a power-of-two grid,
   where zigzag and linear agree (the group axis of a 2048x4096 grid had no zigzag). */
#define TWIN_PROBES 256u
/* An order without a closed form (Hilbert, Morton) cannot be probed, so on a thin grid (at most
   TWIN_THIN workgroups across in x or y), where it may be a twin of another order, it is filled
   up to this many cells and its probes read from the fill; elsewhere it is its own
   permutation. Filling Hilbert on a grid of 65536 cells takes about a millisecond. */
#define TWIN_FILL_MAX_NO_CLOSED_FORM 65536u
#define TWIN_THIN 4u

/* splitmix64's finaliser: consecutive indices to unrelated positions, whatever the cells. */
static uint64_t scatter(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The hash of the cells at the probe positions (TWIN_PROBES first, as many scattered), read
   from the filled permutation when there is one, else from the order's closed form; false when
   a position has no cell. */
static bool probe_signature(const gt_order *o, const uint32_t shape[3], const uint32_t *filled, uint64_t *h)
{
    uint64_t cells = cells_of(shape);
    uint32_t at[2 * TWIN_PROBES];
    for (uint32_t i = 0; i < TWIN_PROBES; i++) {
        uint32_t scattered = (uint32_t)(scatter(i) % cells);
        at[i] = filled ? filled[i] : gt_order_at(o, shape, i);
        at[TWIN_PROBES + i] = filled ? filled[scattered] : gt_order_at(o, shape, scattered);
        if (at[i] == GT_ORDER_NO_CELL || at[TWIN_PROBES + i] == GT_ORDER_NO_CELL)
            return false;
    }
    *h = perm_hash(at, 2 * TWIN_PROBES);
    return true;
}

/* The permutation's hash, or false when o cannot be applied to the shape: beyond TWIN_FILL_MAX
   cells, the probes' hash, the same for every order with the same permutation whether filled or
   not. An order without a closed form that is not filled (a shape beyond TWIN_FILL_MAX that is
   not thin, or any beyond TWIN_FILL_MAX_NO_CLOSED_FORM) is its own permutation, except in 1-D,
   where it is probed as the linear one. scratch holds the shape's cells up to
   TWIN_FILL_MAX_NO_CLOSED_FORM. */
static bool order_signature(const gt_order *o, const uint32_t shape[3], uint32_t *scratch, uint64_t *h)
{
    uint64_t cells = cells_of(shape);
    bool closed = gt_order_has_closed_form(o);
    bool thin = shape[0] <= TWIN_THIN || shape[1] <= TWIN_THIN;
    if (cells <= TWIN_FILL_MAX || (!closed && thin && cells <= TWIN_FILL_MAX_NO_CLOSED_FORM)) {
        if (gt_order_fill(o, shape, scratch) < 0)
            return false;
        if (cells > TWIN_FILL_MAX)
            return probe_signature(o, shape, scratch, h);
        *h = perm_hash(scratch, cells);
        return true;
    }
    if (!closed) {
        if (shape[1] != 1 || shape[2] != 1) {
            *h = gt_hash_bytes(GT_HASH_SEED, o, sizeof *o);
            return true;
        }
        return probe_signature(&(gt_order){GT_ORDER_LINEAR, 0, 0}, shape, NULL, h);
    }
    return probe_signature(o, shape, NULL, h);
}

/* Adds base with its order on this axis replaced by o, unless the permutation is a twin. */
static void add_order(entry_list *l, gt_axis axis, const gt_schedule *base, gt_order o, const uint32_t shape[3],
                      uint32_t *scratch)
{
    uint64_t h;
    if (l->failed || !order_signature(&o, shape, scratch, &h))
        return;
    for (size_t i = 0; i < l->n; i++)
        if (l->perm_hash[i] == h)
            return;
    gt_schedule s = *base;
    *(axis == GT_AXIS_ITEM ? &s.item : &s.group) = o;
    list_push(l, &s, axis_names[axis], gt_order_kind_name(o.kind), h);
}

static uint32_t series_bound(const gt_series *s, uint64_t bound)
{
    uint64_t b = s->limit && s->limit < bound ? s->limit : bound;
    return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

/* Calls add for each value of the series up to bound: start, start*ratio, ... */
#define FOR_SERIES(v, s, bound) \
    for (uint64_t v = (s)->start; v <= series_bound((s), (bound)); v *= (s)->ratio)

static void add_order_styles(entry_list *l, gt_axis axis, const gt_space_config *c, const gt_schedule *base,
                             const uint32_t shape[3], uint64_t tile_cells, uint32_t *scratch)
{
    uint32_t styles = axis == GT_AXIS_ITEM ? c->item_styles : c->group_styles;
    uint64_t cells = cells_of(shape);
    uint64_t widest_tile = shape[0] > shape[1] ? shape[0] : shape[1];
    uint64_t root = (uint64_t)sqrt((double)tile_cells); /* the largest side whose square fits, exactly */
    while (root > 0 && root * root > tile_cells)
        root--;
    while ((root + 1) * (root + 1) <= tile_cells)
        root++;
    if (widest_tile > root)
        widest_tile = root > 1 ? root : 1;
    for (unsigned k = 0; k < GT_ORDER_KINDS; k++) {
        if (!(styles & BIT(k)))
            continue;
        gt_order o = {(gt_order_kind)k, 0, 0};
        if (k == GT_ORDER_TILED) {
            /* Square tiles of at most tile_cells, clipped to the shape; the clipped twins are
               dropped. */
            FOR_SERIES(side, &c->series, widest_tile) {
                o.p1 = (uint32_t)(side < shape[0] ? side : shape[0]);
                o.p2 = (uint32_t)(side < shape[1] ? side : shape[1]);
                add_order(l, axis, base, o, shape, scratch);
            }
        } else if (k == GT_ORDER_STRIDED) {
            /* The seed's two-dimensional parameter: stride outside, granularity inside. */
            FOR_SERIES(stride, &c->series, cells / 2) {
                FOR_SERIES(gran, &c->series, cells / stride) {
                    o.p1 = (uint32_t)stride;
                    o.p2 = (uint32_t)gran;
                    add_order(l, axis, base, o, shape, scratch);
                }
            }
        } else if (k == GT_ORDER_GROUPED) {
            /* Bands of G rows; a band as tall as the shape is the column order on 2-D, dropped as
             * its twin. */
            FOR_SERIES(rows, &c->series, shape[1] < SPACE_BAND_MAX ? shape[1] : SPACE_BAND_MAX) {
                o.p1 = (uint32_t)rows;
                add_order(l, axis, base, o, shape, scratch);
            }
        } else {
            add_order(l, axis, base, o, shape, scratch);
        }
    }
}

/* The column walk: the column item order under the column group order, one more variation on
   the item axis when the base walks the grid by rows (the linear group order). One axis at a
   time cannot reach it when neither half wins alone: copy_cols' column item order costs 1.6x
   its tiled one under the linear group order, and under tiled items the column group order
   only ties with the others, while the two together cost 2.5-5x less in samples
   (bench/results/column-walk-2026-11-27/). Only where both styles are on, the group axis is
   explored, and both orders differ from the linear one (items, and groups, in two rows or more).
   It is listed right after the column item order, so the first round's looks reach it before
   the tiled ones: copy_cols' item axis often has room for two looks only, and when the walk
   had none, a span as wide as a row then left the group axis no order to try (every order of a
   one-span-wide grid is the linear one), and 2 of 40 cold launches kept the linear group order
   at 2.4-3.4x the best (bench/results/walk-second-2026-11-28/). */
static void add_column_walk(entry_list *l, const gt_space_config *c, const gt_schedule *base, const uint32_t grid[3])
{
    const uint32_t column = BIT(GT_ORDER_COLUMN);
    if (!(c->axes & BIT(GT_AXIS_GROUP)) || !(c->item_styles & column) || !(c->group_styles & column) ||
        base->group.kind != GT_ORDER_LINEAR || grid[1] < 2)
        return;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].schedule.item.kind == GT_ORDER_COLUMN) { /* listed, so not the linear order's twin */
            gt_schedule s = l->v[i].schedule;
            s.group = (gt_order){GT_ORDER_COLUMN, 0, 0};
            if (!list_push(l, &s, "walk", "column", ~l->perm_hash[i]))
                return;
            gt_space_entry walk = l->v[l->n - 1];
            uint64_t hash = l->perm_hash[l->n - 1];
            memmove(&l->v[i + 2], &l->v[i + 1], (l->n - 2 - i) * sizeof *l->v);
            memmove(&l->perm_hash[i + 2], &l->perm_hash[i + 1], (l->n - 2 - i) * sizeof *l->perm_hash);
            l->v[i + 1] = walk;
            l->perm_hash[i + 1] = hash;
            return;
        }
    }
}

static void add_assign(entry_list *l, const gt_schedule *base, gt_assign a)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].schedule.assign.kind == a.kind && l->v[i].schedule.assign.chunk == a.chunk)
            return;
    gt_schedule s = *base;
    s.assign = a;
    list_push(l, &s, axis_names[GT_AXIS_ASSIGN], gt_assign_kind_name(a.kind), 0);
}

static void add_assign_styles(entry_list *l, const gt_space_config *c, const gt_schedule *base, uint64_t chunk_bound)
{
    for (unsigned k = 0; k < GT_ASSIGN_KINDS; k++) {
        if (!(c->assign_styles & BIT(k)))
            continue;
        if (!gt_assign_has_chunk((gt_assign_kind)k)) {
            add_assign(l, base, (gt_assign){(gt_assign_kind)k, 0});
            continue;
        }
        FOR_SERIES(chunk, &c->series, chunk_bound ? chunk_bound : 1)
            add_assign(l, base, (gt_assign){(gt_assign_kind)k, (uint32_t)chunk});
    }
}

static void add_span(entry_list *l, const gt_schedule *base, uint32_t span)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].schedule.span == span)
            return;
    gt_schedule s = *base;
    s.span = span;
    list_push(l, &s, axis_names[GT_AXIS_SPAN], "series", 0);
}

/* Under a group order other than the linear one, spans leave the grid at least this many
   spans wide. The order walks the grid of spans, and as a span nears a row that grid keeps too
   few columns for the order to matter: at a row it is the linear order. Over transpose, the
   column walk cost 4.0-5.2 ns per work-item in its looks at a span of 512 (a row) and 5.9 at
   256, against 1.0-1.6 at a span of 1 and 0.8-0.9 at 16, the oracle's best span, with 32; a
   span axis that looked at the row first ran out of time there in 6 of 6 cold launches
   (bench/results/walk-span-2026-11-29/, bench/results/span-columns-2026-11-29/). */
#define SPAN_COLUMNS_MIN 16

uint32_t gt_space_row_span(const gt_order *group, const uint32_t grid[3])
{
    uint32_t row = group->kind == GT_ORDER_LINEAR ? grid[0] : grid[0] / SPAN_COLUMNS_MIN;
    return row < 1 ? 1 : row < GT_SPAN_MAX ? row : GT_SPAN_MAX;
}

/* base's span, 1, the widest (a row of the grid, SPAN_COLUMNS_MIN times less under another
   group order than the linear one, or a worker's share of a sample, gt_space_axis), then the series
   from the top down. The widest spans are the ones that pay most where spans
   pay at all, so an analysis whose time runs out within the span axis has looked at them first:
   copy_rows' whole launches here cost 1.33-1.55x the best at a span of 1, 1.2x at 8 and
   1.00-1.08x at 64-1024, and with the series climbing from 2 the span axis of every cold
   analysis looked at the widest, 2, 4 and 8 only, and picked 1-16 in 13 of 30 cold launches,
   against 2 of 30 from the top down (bench/results/span-order-2026-11-27/). */
static void add_spans(entry_list *l, const gt_space_config *c, const gt_schedule *base, uint32_t widest)
{
    add_span(l, base, base->span);
    add_span(l, base, 1);
    if (c->series.limit == 0 || c->series.limit >= widest)
        add_span(l, base, widest);
    uint64_t top = 0;
    FOR_SERIES(span, &c->series, widest)
        top = span;
    for (uint64_t span = top; span >= c->series.start; span /= c->series.ratio)
        add_span(l, base, (uint32_t)span);
}

int gt_space_axis(const gt_space_config *c, gt_axis axis, const gt_schedule *base, const uint32_t item_shape[3],
                  const uint32_t grid[3], uint64_t sample_groups, unsigned workers, gt_space_entry **out, size_t *n)
{
    entry_list l = {0};
    uint64_t share = sample_groups / (SHARES_PER_WORKER * (workers ? workers : 1));
    uint32_t spans[3] = {(uint32_t)(((uint64_t)grid[0] + base->span - 1) / (base->span ? base->span : 1)), grid[1],
                         grid[2]};
    const uint32_t *shape = axis == GT_AXIS_ITEM ? item_shape : spans;
    uint32_t *scratch = NULL;
    if (axis == GT_AXIS_SPAN) {
        /* A span's samples hold a whole span for every worker, so the widest is a worker's share
           of a sample, unless that share holds half a row or more: then the row, whose samples
           grow by less than twice, rather than a span that divides no row (copy_rows' share of
           945 workgroups in rows of 1024 cost it 1.16-1.20x the row's span). */
        uint64_t per_worker = sample_groups / (workers ? workers : 1);
        uint32_t row = gt_space_row_span(&base->group, grid);
        uint32_t widest = per_worker >= (row + 1u) / 2 ? row : per_worker < 1 ? 1 : (uint32_t)per_worker;
        add_spans(&l, c, base, widest);
    } else if (axis == GT_AXIS_ASSIGN) {
        add_assign(&l, base, base->assign);
        add_assign_styles(&l, c, base, share);
    } else {
        uint64_t cells = cells_of(shape);
        scratch = malloc((cells <= TWIN_FILL_MAX_NO_CLOSED_FORM ? cells : 1) * sizeof *scratch);
        if (!scratch)
            return -ENOMEM;
        add_order(&l, axis, base, axis == GT_AXIS_ITEM ? base->item : base->group, shape, scratch);
        add_order_styles(&l, axis, c, base, shape, axis == GT_AXIS_ITEM ? cells_of(shape) : sample_groups, scratch);
        if (axis == GT_AXIS_ITEM)
            add_column_walk(&l, c, base, grid);
    }
    free(scratch);
    free(l.perm_hash);
    if (l.failed) {
        free(l.v);
        return -ENOMEM;
    }
    *out = l.v;
    *n = l.n;
    return 0;
}
