/* stretch.c: stretches of a schedule's walk, and the permutations behind the walks. */
#include "stretch.h"

#include "grid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Permutations kept at once; an analysis tries a handful of group orders and spans, and the
   oldest is filled again if it comes back. */
#define WALKS_KEPT 8

typedef struct walk_perm {
    gt_order order;
    uint32_t shape[3];
    uint32_t *perm; /* NULL: unused slot */
} walk_perm;

struct gt_walks {
    uint32_t grid[3];
    walk_perm kept[WALKS_KEPT];
    unsigned next_evicted;
};

gt_walks *gt_walks_create(const uint32_t grid[3])
{
    gt_walks *w = calloc(1, sizeof *w);
    if (w)
        memcpy(w->grid, grid, sizeof w->grid);
    return w;
}

void gt_walks_destroy(gt_walks *w)
{
    if (!w)
        return;
    for (unsigned i = 0; i < WALKS_KEPT; i++)
        free(w->kept[i].perm);
    free(w);
}

static void span_grid(const uint32_t grid[3], uint32_t span, uint32_t shape[3])
{
    shape[0] = (uint32_t)(((uint64_t)grid[0] + span - 1) / span);
    shape[1] = grid[1];
    shape[2] = grid[2];
}

uint64_t gt_walk_positions(const uint32_t grid[3], uint32_t span)
{
    uint32_t shape[3];
    span_grid(grid, span ? span : 1, shape);
    return (uint64_t)shape[0] * shape[1] * shape[2];
}

static bool same_walk(const walk_perm *p, const gt_order *o, const uint32_t shape[3])
{
    return p->perm && gt_order_equal(&p->order, o) && memcmp(p->shape, shape, sizeof p->shape) == 0;
}

/* The permutation of o over shape, filled on first use. */
static const uint32_t *perm_of(gt_walks *w, const gt_order *o, const uint32_t shape[3], int *rc)
{
    for (unsigned i = 0; i < WALKS_KEPT; i++)
        if (same_walk(&w->kept[i], o, shape))
            return w->kept[i].perm;
    walk_perm *slot = &w->kept[w->next_evicted];
    w->next_evicted = (w->next_evicted + 1) % WALKS_KEPT;
    free(slot->perm);
    slot->perm = malloc((size_t)shape[0] * shape[1] * shape[2] * sizeof *slot->perm);
    if (!slot->perm) {
        *rc = -ENOMEM;
        return NULL;
    }
    *rc = gt_order_fill(o, shape, slot->perm);
    if (*rc < 0) {
        free(slot->perm);
        slot->perm = NULL;
        return NULL;
    }
    slot->order = *o;
    memcpy(slot->shape, shape, sizeof slot->shape);
    return slot->perm;
}

static int add_run(gt_stretch *st, uint32_t *cap, uint32_t first)
{
    if (st->nruns == *cap) {
        uint32_t grown_cap = *cap ? *cap * 2 : 64;
        gt_group_run *grown = realloc(st->runs, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        st->runs = grown;
        *cap = grown_cap;
    }
    st->runs[st->nruns++] = (gt_group_run){first, 1};
    return 0;
}

/* Adds the workgroups [x, x + n) of row (y, z), cut into runs where done ones are, until the
   stretch holds want. */
static int add_span(gt_stretch *st, uint32_t *cap, const uint32_t grid[3], const uint8_t *done, uint32_t x,
                    uint32_t n, uint32_t y, uint32_t z, uint64_t want)
{
    bool open = false;
    for (uint32_t i = 0; i < n && st->groups < want; i++) {
        uint32_t g = gt_grid_linear(grid, x + i, y, z);
        if (gt_bitmap_test(done, g)) {
            open = false;
            continue;
        }
        if (open) {
            st->runs[st->nruns - 1].count++;
        } else {
            int rc = add_run(st, cap, g);
            if (rc < 0)
                return rc;
            open = true;
        }
        st->groups++;
    }
    return 0;
}

int gt_stretch_take(gt_walks *w, const gt_schedule *s, uint64_t start, uint64_t want, const uint8_t *done,
                    gt_stretch *out)
{
    memset(out, 0, sizeof *out);
    uint32_t span = s->span;
    if (span < 1 || span > GT_SPAN_MAX)
        return -EINVAL;
    uint32_t shape[3];
    span_grid(w->grid, span, shape);
    uint64_t n = (uint64_t)shape[0] * shape[1] * shape[2];
    int rc = 0;
    const uint32_t *perm = gt_order_has_closed_form(&s->group) ? NULL : perm_of(w, &s->group, shape, &rc);
    if (rc < 0)
        return rc;
    uint32_t cap = 0;
    out->start = n ? start % n : 0;
    uint64_t i = 0;
    for (; i < n && out->groups < want; i++) {
        uint32_t c[3], pos = (uint32_t)((out->start + i) % n);
        uint32_t cell = perm ? perm[pos] : gt_order_at(&s->group, shape, pos);
        if (cell == GT_ORDER_NO_CELL)
            return -EINVAL;
        gt_grid_coords(shape, cell, c);
        uint32_t x = c[0] * span, len = w->grid[0] - x < span ? w->grid[0] - x : span;
        rc = add_span(out, &cap, w->grid, done, x, len, c[1], c[2], want);
        if (rc < 0)
            return rc;
    }
    out->next = n ? (out->start + i) % n : 0;
    return 0;
}

void gt_stretch_free(gt_stretch *st)
{
    free(st->runs);
    st->runs = NULL;
    st->nruns = 0;
}

void gt_stretch_mark(const gt_stretch *st, uint8_t *done)
{
    for (uint32_t i = 0; i < st->nruns; i++)
        for (uint32_t g = st->runs[i].first; g < st->runs[i].first + st->runs[i].count; g++)
            gt_bitmap_set(done, g);
}

double gt_walk_share(unsigned k)
{
    double share = 0, bit = 0.5;
    for (; k; k >>= 1, bit /= 2)
        share += (k & 1) * bit;
    return share;
}
