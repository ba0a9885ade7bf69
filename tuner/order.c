/* order.c: the orders a schedule walks a grid in, and their text form.
 * gt_order_fill turns an order and a grid shape into the list of linear cell indices in
 * visiting order; the executor calls it once per batch, so every order is O(cells).
 * gt_order_at gives one entry of that list in O(1), for the orders that have a closed form.
 * gt_order_parse and gt_order_format convert between gt_order and the canonical text that
 * schedules, wisdom files and the command line share. */
#include "order.h"

#include "number.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TILE_MAX 65536u
#define BAND_MAX 65536u /* grouped:G */
#define CELL_BITS 32 /* bits in a coordinate or a cell index */
/* Error messages quote at most this much of a bad text, so a runaway slice stays readable. */
#define QUOTE_MAX 128
/* Room for the list of every order's text form in an error message. */
#define FORMS_MAX 128

/* What a walker gets: the grid, its cell count (checked to fit in 32 bits) and the order's
 * parameters (non-zero for the orders that take them). */
typedef struct grid_args {
    const uint32_t *s; /* shape[3] */
    uint32_t n;
    uint32_t p1, p2;
} grid_args;

/* One row per kind: its text form and its walkers. Parameterised orders take one number after
 * the colon, or two with sep between them. at is NULL for the orders without a closed form for
 * the k-th cell. */
typedef struct order_info {
    const char *name;
    unsigned params; /* 0, 1 or 2 */
    char sep;
    const char *form;
    const char *p1_name, *p2_name;
    uint32_t max;
    void (*fill)(const grid_args *g, uint32_t *out);
    uint32_t (*at)(const grid_args *g, uint32_t k);
} order_info;

/* ---- filling ---------------------------------------------------------------------------- */

/* The fill and at walkers of each order sit side by side; the tests check that at(k) is the
 * fill's out[k] for every k. Intermediate products are 64-bit: a parameter may be up to 2^32-1
 * and a product of one with a cell count passes 2^32. */

static void fill_linear(const grid_args *g, uint32_t *out)
{
    for (uint32_t i = 0; i < g->n; i++)
        out[i] = i;
}

static uint32_t at_linear(const grid_args *g, uint32_t k)
{
    (void)g;
    return k;
}

static void fill_column(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s;
    uint32_t k = 0;
    for (uint32_t x = 0; x < s[0]; x++)
        for (uint32_t y = 0; y < s[1]; y++)
            for (uint32_t z = 0; z < s[2]; z++)
                out[k++] = x + s[0] * (y + s[1] * z);
}

/* k = z + Z*(y + Y*x): the linear index with the dimensions reversed. */
static uint32_t at_column(const grid_args *g, uint32_t k)
{
    const uint32_t *s = g->s;
    uint32_t z = k % s[2], y = k / s[2] % s[1], x = k / s[2] / s[1];
    return (uint32_t)(x + (uint64_t)s[0] * (y + (uint64_t)s[1] * z));
}

/* 64-bit arithmetic because granule * granularity may pass 2^32 for huge granularities. */
static void fill_strided(const grid_args *g, uint32_t *out)
{
    uint64_t n = g->n, stride = g->p1, gran = g->p2;
    uint64_t granules = (n + gran - 1) / gran, k = 0;
    for (uint64_t first = 0; first < stride && first < granules; first++)
        for (uint64_t i = first; i < granules; i += stride) {
            uint64_t end = i * gran + gran < n ? i * gran + gran : n;
            for (uint64_t c = i * gran; c < end; c++)
                out[k++] = (uint32_t)c;
        }
}

/* Granules fall into classes by granule mod stride, visited class after class. With
 * granules = q*stride + r, classes below r hold q+1 granules and the others q. Only the last
 * granule may be short, and it ends its class, so k is first mapped to the sequence in which it
 * is full (adding the missing cells once k is past that class), then split into slot and offset. */
static uint32_t at_strided(const grid_args *g, uint32_t k)
{
    uint64_t n = g->n, stride = g->p1, gran = g->p2;
    uint64_t granules = (n + gran - 1) / gran, q = granules / stride, r = granules % stride;
    uint64_t missing = granules * gran - n;
    /* The short granule's class is r-1, or the last one when r is 0: its end, in full cells. */
    uint64_t through_short = (r ? r * (q + 1) : granules) * gran;
    uint64_t full = k < through_short - missing ? k : k + missing;
    uint64_t slot = full / gran, offset = full % gran, cls, i;
    if (slot < r * (q + 1)) {
        cls = slot / (q + 1);
        i = slot % (q + 1);
    } else {
        cls = r + (slot - r * (q + 1)) / q;
        i = (slot - r * (q + 1)) % q;
    }
    return (uint32_t)((cls + i * stride) * gran + offset);
}

static void fill_zigzag(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s;
    uint32_t rows = s[1] * s[2], k = 0;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t x = 0; x < s[0]; x++)
            out[k++] = r * s[0] + (r & 1 ? s[0] - 1 - x : x);
}

static uint32_t at_zigzag(const grid_args *g, uint32_t k)
{
    uint32_t X = g->s[0], r = k / X, x = k % X;
    return r * X + (r & 1 ? X - 1 - x : x);
}

static uint32_t tile_end(uint32_t start, uint32_t size, uint32_t limit)
{
    return (uint64_t)start + size < limit ? start + size : limit;
}

/* Cells [x0,x1) x [y0,y1) of the plane starting at base, row-major; returns the new count. */
static uint32_t fill_tile(uint32_t *out, uint32_t k, uint32_t X, uint32_t base, const uint32_t x[2],
                          const uint32_t y[2])
{
    for (uint32_t yy = y[0]; yy < y[1]; yy++)
        for (uint32_t xx = x[0]; xx < x[1]; xx++)
            out[k++] = base + xx + X * yy;
    return k;
}

static void fill_tiled(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s, w = g->p1, h = g->p2;
    uint32_t k = 0;
    for (uint32_t z = 0; z < s[2]; z++)
        for (uint32_t ty = 0; ty < s[1]; ty = tile_end(ty, h, s[1]))
            for (uint32_t tx = 0; tx < s[0]; tx = tile_end(tx, w, s[0])) {
                uint32_t xs[2] = {tx, tile_end(tx, w, s[0])}, ys[2] = {ty, tile_end(ty, h, s[1])};
                k = fill_tile(out, k, s[0], s[0] * s[1] * z, xs, ys);
            }
}

/* Within a plane, rows of tiles are bands of h full rows (the last band shorter); within a
 * band, tiles of w columns by the band's height (the last tile narrower). Every band before
 * the last, and every tile before a band's last, is whole, so plain divisions find them. */
static uint32_t at_tiled(const grid_args *g, uint32_t k)
{
    const uint64_t X = g->s[0], Y = g->s[1], plane = X * Y;
    const uint64_t w = g->p1 < X ? g->p1 : X, h = g->p2 < Y ? g->p2 : Y;
    uint64_t z = k / plane, m = k % plane;
    uint64_t band = m / (h * X), band_y = band * h, band_h = Y - band_y < h ? Y - band_y : h;
    m -= band * h * X;
    uint64_t tile_x = m / (band_h * w) * w, tile_w = X - tile_x < w ? X - tile_x : w;
    m -= tile_x * band_h;
    return (uint32_t)(z * plane + (band_y + m / tile_w) * X + tile_x + m % tile_w);
}

static void fill_grouped(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s;
    uint32_t k = 0;
    for (uint32_t z = 0; z < s[2]; z++)
        for (uint32_t y0 = 0; y0 < s[1]; y0 = tile_end(y0, g->p1, s[1]))
            for (uint32_t x = 0, y1 = tile_end(y0, g->p1, s[1]); x < s[0]; x++)
                for (uint32_t y = y0; y < y1; y++)
                    out[k++] = x + s[0] * (y + s[1] * z);
}

/* Every band but the last is G whole rows, so a division finds k's band; column-major inside
 * it, down the band's own height. */
static uint32_t at_grouped(const grid_args *g, uint32_t k)
{
    const uint64_t X = g->s[0], Y = g->s[1], plane = X * Y, G = g->p1 < Y ? g->p1 : Y;
    uint64_t z = k / plane, m = k % plane;
    uint64_t band_y = m / (G * X) * G, band_h = Y - band_y < G ? Y - band_y : G;
    m -= band_y * X;
    return (uint32_t)(z * plane + (band_y + m % band_h) * X + m / band_h);
}

/* Generalized Hilbert curve ("gilbert", Jakub Cervený). generate() fills the rectangle
 * spanned from corner p by the major axis a and the minor axis b, starting at p and, when
 * the side parities allow, ending at the far end of a (p + a - unit(a)). */
typedef struct vec {
    int64_t x, y;
} vec;

typedef struct walk {
    uint32_t *out;
    uint32_t k;
    int64_t width;
} walk;

static int64_t sign(int64_t v)
{
    return (v > 0) - (v < 0);
}

static vec vec_add(vec a, vec b)
{
    return (vec){a.x + b.x, a.y + b.y};
}

static vec vec_sub(vec a, vec b)
{
    return (vec){a.x - b.x, a.y - b.y};
}

static vec vec_scale(vec unit, int64_t n)
{
    return (vec){unit.x * n, unit.y * n};
}

/* Axes are always parallel to x or y, so one component is zero. */
static int64_t vec_len(vec a)
{
    return a.x + a.y < 0 ? -(a.x + a.y) : a.x + a.y;
}

static vec vec_unit(vec a)
{
    return (vec){sign(a.x), sign(a.y)};
}

static void walk_line(walk *w, vec p, vec step, int64_t n)
{
    for (int64_t i = 0; i < n; i++, p = vec_add(p, step))
        w->out[w->k++] = (uint32_t)(p.x + w->width * p.y);
}

static void generate(walk *w, vec p, vec a, vec b)
{
    int64_t alen = vec_len(a), blen = vec_len(b);
    vec da = vec_unit(a), db = vec_unit(b);
    if (blen == 1 || alen == 1) {
        walk_line(w, p, blen == 1 ? da : db, blen == 1 ? alen : blen);
        return;
    }
    int64_t a2len = alen / 2, b2len = blen / 2;
    if (2 * alen > 3 * blen) {
        /* Long rectangle: two halves along a. An odd half would force a diagonal step. */
        if ((a2len & 1) && alen > 2)
            a2len++;
        vec a2 = vec_scale(da, a2len);
        generate(w, p, a2, b);
        generate(w, vec_add(p, a2), vec_sub(a, a2), b);
        return;
    }
    /* Up the first half of b, along a, back down: the classic Hilbert U, on rectangles. */
    if ((b2len & 1) && blen > 2)
        b2len++;
    vec a2 = vec_scale(da, a2len), b2 = vec_scale(db, b2len);
    generate(w, p, b2, a2);
    generate(w, vec_add(p, b2), a, vec_sub(b, b2));
    vec corner = vec_add(p, vec_add(vec_sub(a, da), vec_sub(b2, db)));
    generate(w, corner, vec_scale(b2, -1), vec_scale(vec_sub(a, a2), -1));
}

/* The curve ends on the far side of its major axis. When the cell count is even, an odd
 * major axis would need one diagonal step somewhere, so the even side becomes the major axis
 * even when it is the shorter one. */
static void hilbert_plane(uint32_t *out, uint32_t X, uint32_t Y)
{
    bool along_y = Y > X;
    if ((X & 1) != (Y & 1))
        along_y = (Y & 1) == 0;
    walk w = {out, 0, X};
    vec origin = {0, 0}, ax = {X, 0}, ay = {0, Y};
    if (along_y)
        generate(&w, origin, ay, ax);
    else
        generate(&w, origin, ax, ay);
}

static void fill_hilbert(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s;
    uint32_t plane = s[0] * s[1];
    hilbert_plane(out, s[0], s[1]);
    /* Later planes reuse plane 0's path: odd planes backwards, so each starts above the cell
     * where the previous one ended. */
    for (uint32_t z = 1; z < s[2]; z++) {
        uint32_t *dst = out + (size_t)plane * z, base = plane * z;
        for (uint32_t i = 0; i < plane; i++)
            dst[i] = base + out[z & 1 ? plane - 1 - i : i];
    }
}

static unsigned bits_for(uint32_t size)
{
    unsigned b = 0;
    while (((uint64_t)1 << b) < size)
        b++;
    return b;
}

/* Morton codes are enumerated as a counter whose bits belong to (dimension, bit) pairs.
 * Bits a dimension never needs are left out of the code: they are zero for every cell in the
 * grid, so dropping them keeps the order but shrinks the code space to under 8 x the cell
 * count even for skinny grids such as 65536 x 1. */
static void fill_morton(const grid_args *g, uint32_t *out)
{
    const uint32_t *s = g->s, n = g->n;
    unsigned bits[3] = {bits_for(s[0]), bits_for(s[1]), bits_for(s[2])};
    uint8_t dim[3 * CELL_BITS], bit[3 * CELL_BITS];
    unsigned t = 0;
    for (unsigned level = 0; level < CELL_BITS; level++)
        for (unsigned d = 0; d < 3; d++)
            if (level < bits[d]) {
                dim[t] = (uint8_t)d;
                bit[t++] = (uint8_t)level;
            }
    uint32_t c[3] = {0, 0, 0}, k = 0;
    for (uint64_t code = 0;; code++) {
        if (c[0] < s[0] && c[1] < s[1] && c[2] < s[2]) {
            out[k++] = c[0] + s[0] * (c[1] + s[1] * c[2]);
            if (k == n)
                return;
        }
        /* Incrementing clears the trailing ones and sets the next bit: amortised O(1). */
        unsigned j = 0;
        for (; (code >> j) & 1; j++)
            c[dim[j]] &= ~((uint32_t)1 << bit[j]);
        c[dim[j]] |= (uint32_t)1 << bit[j];
    }
}

static const order_info orders[] = {
    [GT_ORDER_LINEAR] = {"linear", 0, 0, "linear", NULL, NULL, 0, fill_linear, at_linear},
    [GT_ORDER_COLUMN] = {"column", 0, 0, "column", NULL, NULL, 0, fill_column, at_column},
    [GT_ORDER_STRIDED] = {"strided", 2, '/', "strided:S/G", "stride", "granularity", UINT32_MAX, fill_strided,
                          at_strided},
    [GT_ORDER_ZIGZAG] = {"zigzag", 0, 0, "zigzag", NULL, NULL, 0, fill_zigzag, at_zigzag},
    [GT_ORDER_TILED] = {"tiled", 2, 'x', "tiled:WxH", "tile width", "tile height", TILE_MAX, fill_tiled, at_tiled},
    [GT_ORDER_HILBERT] = {"hilbert", 0, 0, "hilbert", NULL, NULL, 0, fill_hilbert, NULL},
    [GT_ORDER_MORTON] = {"morton", 0, 0, "morton", NULL, NULL, 0, fill_morton, NULL},
    [GT_ORDER_GROUPED] = {"grouped", 1, 0, "grouped:G", "band height", NULL, BAND_MAX, fill_grouped,
                          at_grouped},
};
#define ORDER_COUNT (sizeof orders / sizeof orders[0])
_Static_assert(ORDER_COUNT == GT_ORDER_KINDS, "GT_ORDER_KINDS counts the orders");

static const order_info *order_info_of(gt_order_kind kind)
{
    return (unsigned)kind < ORDER_COUNT ? &orders[kind] : NULL;
}

/* Fills g from o and shape, or fails as gt_order_fill documents. */
static int check_fill_args(const gt_order *o, const uint32_t shape[3], grid_args *g)
{
    const order_info *info = order_info_of(o->kind);
    if (!info || (info->params >= 1 && o->p1 == 0) || (info->params == 2 && o->p2 == 0))
        return -EINVAL;
    if (shape[0] == 0 || shape[1] == 0 || shape[2] == 0)
        return -EINVAL;
    uint64_t n = (uint64_t)shape[0] * shape[1];
    if (n > UINT32_MAX || n * shape[2] > UINT32_MAX)
        return -EOVERFLOW;
    *g = (grid_args){shape, (uint32_t)(n * shape[2]), o->p1, o->p2};
    return 0;
}

int gt_order_fill(const gt_order *o, const uint32_t shape[3], uint32_t *out)
{
    grid_args g;
    int rc = check_fill_args(o, shape, &g);
    if (rc == 0)
        order_info_of(o->kind)->fill(&g, out);
    return rc;
}

bool gt_order_has_closed_form(const gt_order *o)
{
    const order_info *info = order_info_of(o->kind);
    return info && info->at;
}

uint32_t gt_order_at(const gt_order *o, const uint32_t shape[3], uint32_t k)
{
    grid_args g;
    if (!gt_order_has_closed_form(o) || check_fill_args(o, shape, &g) < 0 || k >= g.n)
        return GT_ORDER_NO_CELL;
    return order_info_of(o->kind)->at(&g, k);
}

/* ---- text form -------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int parse_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

static int quote_len(size_t len)
{
    return len < QUOTE_MAX ? (int)len : QUOTE_MAX;
}

static int params_syntax_error(const char *text, size_t len, const order_info *info, char *err, size_t errlen)
{
    if (info->params == 1)
        return parse_error(err, errlen,
                           "order \"%.*s\": expected %s with a whole number from 1 to %" PRIu32 ", e.g. %s:8",
                           quote_len(len), text, info->form, info->max, info->name);
    return parse_error(err, errlen,
                       "order \"%.*s\": expected %s with whole numbers from 1 to %" PRIu32 ", e.g. %s:4%c4",
                       quote_len(len), text, info->form, info->max, info->name, info->sep);
}

/* Range errors come after the syntax check so that "tiled:0x" is reported as malformed. */
static int check_params(const char *text, size_t len, const order_info *info, const int rc[2],
                        const uint32_t v[2], char *err, size_t errlen)
{
    const char *names[2] = {info->p1_name, info->p2_name};
    for (unsigned i = 0; i < info->params; i++) {
        if (rc[i] == -ERANGE)
            return parse_error(err, errlen, "order \"%.*s\": %s must be at most %" PRIu32, quote_len(len), text,
                               names[i], info->max);
        if (v[i] == 0)
            return parse_error(err, errlen, "order \"%.*s\": %s must be at least 1", quote_len(len), text,
                               names[i]);
    }
    return 0;
}

/* Parses the "G", "S/G" or "WxH" that starts at text[pos], just after the colon. */
static int parse_params(const char *text, size_t len, size_t pos, const order_info *info, gt_order *o,
                        char *err, size_t errlen)
{
    const char *first = text + pos, *sep = info->params == 2 ? memchr(first, info->sep, len - pos) : NULL;
    uint32_t v[2] = {0, 0};
    int rc[2] = {-EINVAL, -EINVAL};
    if (info->params == 1) {
        rc[0] = gt_parse_u32(first, len - pos, 0, info->max, &v[0]);
        rc[1] = 0;
    } else if (sep) {
        rc[0] = gt_parse_u32(first, (size_t)(sep - first), 0, info->max, &v[0]);
        rc[1] = gt_parse_u32(sep + 1, (size_t)(text + len - sep - 1), 0, info->max, &v[1]);
    }
    if (rc[0] == -EINVAL || rc[1] == -EINVAL)
        return params_syntax_error(text, len, info, err, errlen);
    int bad = check_params(text, len, info, rc, v, err, errlen);
    if (bad == 0) {
        o->p1 = v[0];
        o->p2 = v[1];
    }
    return bad;
}

/* "linear, column, ... or grouped:G": every order's text form, for error messages. */
static void forms_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ORDER_COUNT && used < len; i++) {
        const char *joint = i == 0 ? "" : i + 1 == ORDER_COUNT ? " or " : ", ";
        int n = snprintf(buf + used, len - used, "%s%s", joint, orders[i].form);
        used += n > 0 ? (size_t)n : 0;
    }
}

static const order_info *find_order(const char *name, size_t len)
{
    for (size_t i = 0; i < ORDER_COUNT; i++)
        if (strlen(orders[i].name) == len && memcmp(orders[i].name, name, len) == 0)
            return &orders[i];
    return NULL;
}

const char *gt_order_kind_name(gt_order_kind kind)
{
    const order_info *info = order_info_of(kind);
    return info ? info->name : NULL;
}

int gt_order_kind_parse(const char *name, size_t len, gt_order_kind *out)
{
    const order_info *info = find_order(name, len);
    if (!info)
        return -EINVAL;
    *out = (gt_order_kind)(info - orders);
    return 0;
}

int gt_order_parse(const char *text, size_t len, gt_order *out, char *err, size_t errlen)
{
    const char *colon = len ? memchr(text, ':', len) : NULL;
    size_t name_len = colon ? (size_t)(colon - text) : len;
    const order_info *info = len ? find_order(text, name_len) : NULL;
    if (!info) {
        char forms[FORMS_MAX];
        forms_list(forms, sizeof forms);
        return parse_error(err, errlen, "unknown order \"%.*s\"; expected %s", quote_len(len), len ? text : "",
                           forms);
    }
    gt_order o = {(gt_order_kind)(info - orders), 0, 0};
    if (!info->params && colon)
        return parse_error(err, errlen, "order \"%.*s\": %s takes no parameters", quote_len(len), text, info->name);
    if (info->params && !colon)
        return params_syntax_error(text, len, info, err, errlen);
    if (info->params) {
        int rc = parse_params(text, len, name_len + 1, info, &o, err, errlen);
        if (rc < 0)
            return rc;
    }
    *out = o;
    return 0;
}

int gt_order_format(const gt_order *o, char *buf, size_t len)
{
    const order_info *info = order_info_of(o->kind);
    if (!info)
        return -EINVAL;
    if (info->params == 0)
        return snprintf(buf, len, "%s", info->name);
    if (info->params == 1)
        return snprintf(buf, len, "%s:%" PRIu32, info->name, o->p1);
    return snprintf(buf, len, "%s:%" PRIu32 "%c%" PRIu32, info->name, o->p1, info->sep, o->p2);
}
