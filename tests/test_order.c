/* test_order.c: behaviour of the grid orders (tuner/order.c).
 * Every order must be a permutation of the grid on 1-, 2- and 3-D and skinny shapes; each
 * order's documented meaning is pinned by exact sequences on small grids; hilbert must only
 * step between neighbours; gt_order_at must agree with gt_order_fill cell by cell; and the
 * text form must round-trip and reject malformed input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/grid.h"
#include "tuner/order.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The shapes every order must permute: single cells, 1-D, 2-D, skinny and 3-D grids. */
static const uint32_t permutation_shapes[][3] = {
    {1, 1, 1},  {7, 3, 1},  {33, 17, 1}, {64, 64, 1}, {1000, 1, 1}, {1, 50, 1},
    {5, 4, 3},  {8, 8, 8},  {3, 1, 5},   {1, 1, 7},   {65536, 1, 1}, {1, 65536, 1},
};

static uint32_t cell_count(const uint32_t shape[3])
{
    return shape[0] * shape[1] * shape[2];
}

/* Fills with o, failing the test unless gt_order_fill succeeds. The caller frees. */
static uint32_t *fill(gt_order o, const uint32_t shape[3])
{
    uint32_t *out = malloc(sizeof(uint32_t) * cell_count(shape));
    assert_non_null(out);
    assert_int_equal(gt_order_fill(&o, shape, out), 0);
    return out;
}

static void assert_permutation(const uint32_t *seq, uint32_t n)
{
    bool *seen = calloc(n, sizeof(bool));
    assert_non_null(seen);
    for (uint32_t i = 0; i < n; i++) {
        assert_in_range(seq[i], 0, n - 1);
        assert_false(seen[seq[i]]);
        seen[seq[i]] = true;
    }
    free(seen);
}

static void assert_permutes_all_shapes(gt_order o)
{
    for (size_t s = 0; s < ARRAY_LEN(permutation_shapes); s++) {
        uint32_t *seq = fill(o, permutation_shapes[s]);
        assert_permutation(seq, cell_count(permutation_shapes[s]));
        free(seq);
    }
}

static void assert_sequence(gt_order o, uint32_t x, uint32_t y, uint32_t z, const uint32_t *expected, size_t n)
{
    uint32_t shape[3] = {x, y, z};
    assert_int_equal(cell_count(shape), n);
    uint32_t *seq = fill(o, shape);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(seq[i], expected[i]);
    free(seq);
}

static void assert_linear(gt_order o, uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t shape[3] = {x, y, z};
    uint32_t *seq = fill(o, shape);
    for (uint32_t i = 0; i < cell_count(shape); i++)
        assert_int_equal(seq[i], i);
    free(seq);
}

static uint32_t distance(const uint32_t shape[3], uint32_t a, uint32_t b)
{
    uint32_t ca[3], cb[3], d = 0;
    gt_grid_coords(shape, a, ca);
    gt_grid_coords(shape, b, cb);
    for (int k = 0; k < 3; k++)
        d += ca[k] > cb[k] ? ca[k] - cb[k] : cb[k] - ca[k];
    return d;
}

static void assert_hilbert_steps_to_neighbours(uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t shape[3] = {x, y, z};
    uint32_t *seq = fill((gt_order){GT_ORDER_HILBERT, 0, 0}, shape);
    for (uint32_t i = 1; i < cell_count(shape); i++)
        if (distance(shape, seq[i - 1], seq[i]) != 1)
            fail_msg("hilbert on %ux%ux%u: step %u goes from cell %u to cell %u", x, y, z, i, seq[i - 1], seq[i]);
    free(seq);
}

static void assert_same_as(gt_order o, gt_order like, const uint32_t shape[3])
{
    uint32_t *seq = fill(o, shape), *want = fill(like, shape);
    for (uint32_t i = 0; i < cell_count(shape); i++)
        if (seq[i] != want[i])
            fail_msg("on %ux%ux%u, step %u goes to cell %u instead of %u", shape[0], shape[1], shape[2], i, seq[i],
                     want[i]);
    free(want);
    free(seq);
}

/* gt_order_at(o, shape, k) is gt_order_fill's out[k] for every k of every permutation shape. */
static void assert_at_matches_fill(gt_order o)
{
    assert_true(gt_order_has_closed_form(&o));
    for (size_t s = 0; s < ARRAY_LEN(permutation_shapes); s++) {
        const uint32_t *shape = permutation_shapes[s];
        uint32_t *seq = fill(o, shape);
        for (uint32_t k = 0; k < cell_count(shape); k++) {
            uint32_t at = gt_order_at(&o, shape, k);
            if (at != seq[k])
                fail_msg("order %d (%u, %u) on %ux%ux%u: at(%u) = %u, fill has %u", (int)o.kind, o.p1, o.p2, shape[0],
                         shape[1], shape[2], k, at, seq[k]);
        }
        free(seq);
    }
}

/* ---- every order is a permutation ------------------------------------------------------ */

static void test_linear_permutes(void **state)
{
    (void)state;
    assert_permutes_all_shapes((gt_order){GT_ORDER_LINEAR, 0, 0});
}

static void test_column_permutes(void **state)
{
    (void)state;
    assert_permutes_all_shapes((gt_order){GT_ORDER_COLUMN, 0, 0});
}

static void test_strided_permutes(void **state)
{
    (void)state;
    static const uint32_t params[][2] = {{1, 1}, {3, 2}, {1000, 1}, {2, 1000}, {7, 5}, {UINT32_MAX, UINT32_MAX}};
    for (size_t i = 0; i < ARRAY_LEN(params); i++)
        assert_permutes_all_shapes((gt_order){GT_ORDER_STRIDED, params[i][0], params[i][1]});
}

static void test_zigzag_permutes(void **state)
{
    (void)state;
    assert_permutes_all_shapes((gt_order){GT_ORDER_ZIGZAG, 0, 0});
}

static void test_tiled_permutes(void **state)
{
    (void)state;
    static const uint32_t params[][2] = {{1, 1}, {4, 4}, {5, 3}, {100, 100}, {1, 7}, {UINT32_MAX, UINT32_MAX}};
    for (size_t i = 0; i < ARRAY_LEN(params); i++)
        assert_permutes_all_shapes((gt_order){GT_ORDER_TILED, params[i][0], params[i][1]});
}

static void test_hilbert_permutes(void **state)
{
    (void)state;
    assert_permutes_all_shapes((gt_order){GT_ORDER_HILBERT, 0, 0});
}

static void test_morton_permutes(void **state)
{
    (void)state;
    assert_permutes_all_shapes((gt_order){GT_ORDER_MORTON, 0, 0});
}

static void test_grouped_permutes(void **state)
{
    (void)state;
    static const uint32_t bands[] = {1, 2, 3, 7, 8, 100, 65536, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_LEN(bands); i++)
        assert_permutes_all_shapes((gt_order){GT_ORDER_GROUPED, bands[i], 0});
}

/* ---- hilbert adjacency ------------------------------------------------------------------ */

static void test_hilbert_steps_to_neighbours_in_2d(void **state)
{
    (void)state;
    for (uint32_t x = 1; x <= 40; x++)
        for (uint32_t y = 1; y <= 40; y++)
            assert_hilbert_steps_to_neighbours(x, y, 1);
}

static void test_hilbert_steps_to_neighbours_on_larger_2d(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{64, 64}, {100, 37}, {37, 100}, {129, 64}, {2, 301}, {255, 256}, {1000, 3}};
    for (size_t i = 0; i < ARRAY_LEN(shapes); i++)
        assert_hilbert_steps_to_neighbours(shapes[i][0], shapes[i][1], 1);
}

static void test_hilbert_steps_to_neighbours_in_3d(void **state)
{
    (void)state;
    static const uint32_t shapes[][3] = {{5, 4, 3}, {8, 8, 8}, {3, 1, 5}, {1, 1, 7}, {7, 3, 4}, {6, 5, 2}, {9, 9, 3}};
    for (size_t i = 0; i < ARRAY_LEN(shapes); i++)
        assert_hilbert_steps_to_neighbours(shapes[i][0], shapes[i][1], shapes[i][2]);
}

static void test_hilbert_walks_odd_planes_backwards(void **state)
{
    (void)state;
    uint32_t shape[3] = {3, 3, 2};
    uint32_t *seq = fill((gt_order){GT_ORDER_HILBERT, 0, 0}, shape);
    for (uint32_t i = 0; i < 9; i++)
        assert_int_equal(seq[9 + i], 9 + seq[8 - i]);
    free(seq);
}

static void test_hilbert_on_1d_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_HILBERT, 0, 0}, 1000, 1, 1);
    assert_linear((gt_order){GT_ORDER_HILBERT, 0, 0}, 1, 1, 1);
}

/* ---- documented meanings ---------------------------------------------------------------- */

static void test_linear_on_3x2(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 2, 3, 4, 5};
    assert_sequence((gt_order){GT_ORDER_LINEAR, 0, 0}, 3, 2, 1, expected, ARRAY_LEN(expected));
}

static void test_column_on_3x2(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 3, 1, 4, 2, 5};
    assert_sequence((gt_order){GT_ORDER_COLUMN, 0, 0}, 3, 2, 1, expected, ARRAY_LEN(expected));
}

static void test_column_in_3d_runs_z_fastest(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 4, 2, 6, 1, 5, 3, 7};
    assert_sequence((gt_order){GT_ORDER_COLUMN, 0, 0}, 2, 2, 2, expected, ARRAY_LEN(expected));
}

static void test_column_on_1d_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_COLUMN, 0, 0}, 1000, 1, 1);
}

static void test_zigzag_on_3x3(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 2, 5, 4, 3, 6, 7, 8};
    assert_sequence((gt_order){GT_ORDER_ZIGZAG, 0, 0}, 3, 3, 1, expected, ARRAY_LEN(expected));
}

static void test_zigzag_counts_rows_across_planes(void **state)
{
    (void)state;
    /* Rows are numbered y + Y*z, so with Y == 1 every odd plane's row is reversed. */
    static const uint32_t expected[] = {0, 1, 3, 2, 4, 5};
    assert_sequence((gt_order){GT_ORDER_ZIGZAG, 0, 0}, 2, 1, 3, expected, ARRAY_LEN(expected));
}

static void test_zigzag_on_1d_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_ZIGZAG, 0, 0}, 1000, 1, 1);
}

static void test_tiled_clips_edge_tiles(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 3, 4, 2, 5, 6, 7, 8};
    assert_sequence((gt_order){GT_ORDER_TILED, 2, 2}, 3, 3, 1, expected, ARRAY_LEN(expected));
}

static void test_tiled_walks_planes_in_turn(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 3, 4, 2, 5, 6, 7, 9, 10, 8, 11};
    assert_sequence((gt_order){GT_ORDER_TILED, 2, 2}, 3, 2, 2, expected, ARRAY_LEN(expected));
}

static void test_tiled_with_tile_over_grid_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_TILED, 100, 100}, 7, 3, 1);
    assert_linear((gt_order){GT_ORDER_TILED, UINT32_MAX, UINT32_MAX}, 33, 17, 2);
}

static void test_tiled_on_1d_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_TILED, 4, 4}, 1000, 1, 1);
}

static void test_strided_visits_every_stride_th_cell(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 2, 4, 1, 3};
    assert_sequence((gt_order){GT_ORDER_STRIDED, 2, 1}, 5, 1, 1, expected, ARRAY_LEN(expected));
}

static void test_strided_keeps_granules_together(void **state)
{
    (void)state;
    /* Granules [0,1] [2,3] [4,5] [6]: 0 and 2 first, then 1 and 3. */
    static const uint32_t expected[] = {0, 1, 4, 5, 2, 3, 6};
    assert_sequence((gt_order){GT_ORDER_STRIDED, 2, 2}, 7, 1, 1, expected, ARRAY_LEN(expected));
}

static void test_strided_runs_over_the_linear_index(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 3, 1, 4, 2, 5};
    assert_sequence((gt_order){GT_ORDER_STRIDED, 3, 1}, 3, 2, 1, expected, ARRAY_LEN(expected));
}

static void test_strided_with_stride_over_granules_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_STRIDED, 1000, 1}, 7, 3, 1);
    assert_linear((gt_order){GT_ORDER_STRIDED, 4, 2}, 7, 1, 1);
    assert_linear((gt_order){GT_ORDER_STRIDED, 2, 1000}, 33, 17, 1);
    assert_linear((gt_order){GT_ORDER_STRIDED, UINT32_MAX, UINT32_MAX}, 5, 4, 3);
}

static void test_morton_on_4x4(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
    assert_sequence((gt_order){GT_ORDER_MORTON, 0, 0}, 4, 4, 1, expected, ARRAY_LEN(expected));
}

static void test_morton_skips_cells_outside_the_grid(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 1, 3, 4, 2, 5, 6, 7, 8};
    assert_sequence((gt_order){GT_ORDER_MORTON, 0, 0}, 3, 3, 1, expected, ARRAY_LEN(expected));
}

static void test_morton_interleaves_x_y_z(void **state)
{
    (void)state;
    /* On 2x2x2 the Morton code (x in bit 0, y in bit 1, z in bit 2) is the linear index. */
    assert_linear((gt_order){GT_ORDER_MORTON, 0, 0}, 2, 2, 2);
}

static void test_morton_on_skinny_grids_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_MORTON, 0, 0}, 65536, 1, 1);
    assert_linear((gt_order){GT_ORDER_MORTON, 0, 0}, 1, 50, 1);
    assert_linear((gt_order){GT_ORDER_MORTON, 0, 0}, 1, 1, 9);
}

static void test_grouped_on_4x5_ends_with_a_short_band(void **state)
{
    (void)state;
    /* Rows 0-1, rows 2-3, then row 4 alone; column-major inside each band. */
    static const uint32_t expected[] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 16, 17, 18, 19};
    assert_sequence((gt_order){GT_ORDER_GROUPED, 2, 0}, 4, 5, 1, expected, ARRAY_LEN(expected));
}

static void test_grouped_on_3x7_with_bands_of_3(void **state)
{
    (void)state;
    /* Rows 0-2, rows 3-5, then row 6 alone. */
    static const uint32_t expected[] = {0, 3, 6, 1, 4, 7, 2, 5, 8, 9, 12, 15, 10, 13, 16, 11, 14, 17, 18, 19, 20};
    assert_sequence((gt_order){GT_ORDER_GROUPED, 3, 0}, 3, 7, 1, expected, ARRAY_LEN(expected));
}

static void test_grouped_walks_planes_in_turn(void **state)
{
    (void)state;
    static const uint32_t expected[] = {0, 2, 1, 3, 4, 5, 6, 8, 7, 9, 10, 11};
    assert_sequence((gt_order){GT_ORDER_GROUPED, 2, 0}, 2, 3, 2, expected, ARRAY_LEN(expected));
}

static void test_grouped_with_one_row_bands_is_linear(void **state)
{
    (void)state;
    for (size_t s = 0; s < ARRAY_LEN(permutation_shapes); s++)
        assert_same_as((gt_order){GT_ORDER_GROUPED, 1, 0}, (gt_order){GT_ORDER_LINEAR, 0, 0}, permutation_shapes[s]);
}

static void test_grouped_with_bands_over_the_grid_is_column_in_2d(void **state)
{
    (void)state;
    for (size_t s = 0; s < ARRAY_LEN(permutation_shapes); s++) {
        const uint32_t *shape = permutation_shapes[s];
        if (shape[2] != 1)
            continue;
        uint32_t bands[] = {shape[1], shape[1] + 5, UINT32_MAX};
        for (size_t i = 0; i < ARRAY_LEN(bands); i++)
            assert_same_as((gt_order){GT_ORDER_GROUPED, bands[i], 0}, (gt_order){GT_ORDER_COLUMN, 0, 0}, shape);
    }
}

static void test_grouped_on_1d_is_linear(void **state)
{
    (void)state;
    assert_linear((gt_order){GT_ORDER_GROUPED, 4, 0}, 1000, 1, 1);
    assert_linear((gt_order){GT_ORDER_GROUPED, 1, 0}, 1000, 1, 1);
}

/* ---- the k-th cell without filling -------------------------------------------------------- */

static void test_closed_forms(void **state)
{
    (void)state;
    for (int kind = 0; kind < GT_ORDER_KINDS; kind++) {
        gt_order o = {(gt_order_kind)kind, 2, 2};
        assert_int_equal(gt_order_has_closed_form(&o), kind != GT_ORDER_HILBERT && kind != GT_ORDER_MORTON);
    }
    gt_order unknown = {(gt_order_kind)99, 2, 2};
    assert_false(gt_order_has_closed_form(&unknown));
}

static void test_linear_at_matches_fill(void **state)
{
    (void)state;
    assert_at_matches_fill((gt_order){GT_ORDER_LINEAR, 0, 0});
}

static void test_column_at_matches_fill(void **state)
{
    (void)state;
    assert_at_matches_fill((gt_order){GT_ORDER_COLUMN, 0, 0});
}

static void test_zigzag_at_matches_fill(void **state)
{
    (void)state;
    assert_at_matches_fill((gt_order){GT_ORDER_ZIGZAG, 0, 0});
}

/* Strides and granularities above the grid and ones that leave a short last granule. */
static void test_strided_at_matches_fill(void **state)
{
    (void)state;
    static const uint32_t params[][2] = {{1, 1},     {2, 1},          {3, 2},        {7, 5},
                                         {4, 3},     {1000, 1},       {2, 1000},     {65537, 3},
                                         {5, 65536}, {2, UINT32_MAX}, {UINT32_MAX, 1}, {UINT32_MAX, UINT32_MAX}};
    for (size_t i = 0; i < ARRAY_LEN(params); i++)
        assert_at_matches_fill((gt_order){GT_ORDER_STRIDED, params[i][0], params[i][1]});
}

/* Tiles that divide the grid, clipped edge tiles, and tiles larger than the grid. */
static void test_tiled_at_matches_fill(void **state)
{
    (void)state;
    static const uint32_t params[][2] = {{1, 1}, {2, 2},    {4, 4},      {5, 3},      {3, 5},          {1, 7},
                                         {7, 1}, {2, 100},  {100, 100},  {65536, 3},  {3, UINT32_MAX},
                                         {UINT32_MAX, UINT32_MAX}};
    for (size_t i = 0; i < ARRAY_LEN(params); i++)
        assert_at_matches_fill((gt_order){GT_ORDER_TILED, params[i][0], params[i][1]});
}

/* Bands that divide the rows, short last bands, and bands taller than the grid. */
static void test_grouped_at_matches_fill(void **state)
{
    (void)state;
    static const uint32_t bands[] = {1, 2, 3, 4, 5, 7, 8, 16, 100, 65535, 65536, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_LEN(bands); i++)
        assert_at_matches_fill((gt_order){GT_ORDER_GROUPED, bands[i], 0});
}

/* A grid of 2^32 - 2^16 cells, too large to fill here: the k-th cells follow from each order's
 * meaning, and the intermediate products (granules x granularity, tiles x rows) pass 2^32. */
static void test_at_on_a_grid_near_the_cell_limit(void **state)
{
    (void)state;
    const uint32_t shape[3] = {65536, 65535, 1}, X = 65536, last = 65536u * 65535u - 1;
    const gt_order column = {GT_ORDER_COLUMN, 0, 0}, zigzag = {GT_ORDER_ZIGZAG, 0, 0};
    assert_int_equal(gt_order_at(&column, shape, 1), X);
    assert_int_equal(gt_order_at(&column, shape, 65535), 1);
    assert_int_equal(gt_order_at(&column, shape, last), last);
    assert_int_equal(gt_order_at(&zigzag, shape, X), 2 * X - 1);
    assert_int_equal(gt_order_at(&zigzag, shape, 65534u * X - 1), 65533u * X);
    assert_int_equal(gt_order_at(&zigzag, shape, last), last);

    /* Four granules of 2^30 cells, the last one 2^16 short: visited 0, 2, 1, 3. */
    const gt_order strided = {GT_ORDER_STRIDED, 2, 1u << 30};
    assert_int_equal(gt_order_at(&strided, shape, 0), 0);
    assert_int_equal(gt_order_at(&strided, shape, 1u << 30), 1u << 31);
    assert_int_equal(gt_order_at(&strided, shape, 1u << 31), 1u << 30);
    assert_int_equal(gt_order_at(&strided, shape, (1u << 31) + (1u << 30)), (1u << 31) + (1u << 30));
    assert_int_equal(gt_order_at(&strided, shape, last), last);

    /* Tiles two columns wide and the grid's height: down the first two columns first. */
    const gt_order tiled = {GT_ORDER_TILED, 2, 65535};
    assert_int_equal(gt_order_at(&tiled, shape, 3), X + 1);
    assert_int_equal(gt_order_at(&tiled, shape, 2 * 65535), 2);
    assert_int_equal(gt_order_at(&tiled, shape, last), last);
    const gt_order whole = {GT_ORDER_TILED, UINT32_MAX, UINT32_MAX};
    assert_int_equal(gt_order_at(&whole, shape, last - 7), last - 7);

    /* 65535 rows in bands of 2: the last band is row 65534 alone, walked left to right. */
    const gt_order grouped = {GT_ORDER_GROUPED, 2, 0};
    assert_int_equal(gt_order_at(&grouped, shape, 3), X + 1);
    assert_int_equal(gt_order_at(&grouped, shape, last - 1), last - 1);
    assert_int_equal(gt_order_at(&grouped, shape, last - (X - 1)), 65534u * X);
    assert_int_equal(gt_order_at(&grouped, shape, last - X), 65534u * X - 1);
    const gt_order tall = {GT_ORDER_GROUPED, 65535, 0};
    assert_int_equal(gt_order_at(&tall, shape, 65535), 1);
    assert_int_equal(gt_order_at(&tall, shape, last), last);
}

static void test_at_refuses_what_fill_refuses(void **state)
{
    (void)state;
    const uint32_t shape[3] = {4, 4, 1}, empty[3] = {4, 0, 1}, huge[3] = {65536, 65536, 1};
    const gt_order linear = {GT_ORDER_LINEAR, 0, 0}, hilbert = {GT_ORDER_HILBERT, 0, 0},
                   morton = {GT_ORDER_MORTON, 0, 0}, no_band = {GT_ORDER_GROUPED, 0, 0},
                   no_granule = {GT_ORDER_STRIDED, 2, 0}, unknown = {(gt_order_kind)99, 0, 0};
    assert_int_equal(gt_order_at(&linear, shape, 15), 15);
    assert_int_equal(gt_order_at(&linear, shape, 16), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&linear, empty, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&linear, huge, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&hilbert, shape, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&morton, shape, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&no_band, shape, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&no_granule, shape, 0), GT_ORDER_NO_CELL);
    assert_int_equal(gt_order_at(&unknown, shape, 0), GT_ORDER_NO_CELL);
}

/* ---- fill argument checks --------------------------------------------------------------- */

static void test_zero_parameters_are_rejected(void **state)
{
    (void)state;
    static const gt_order bad[] = {
        {GT_ORDER_STRIDED, 0, 1}, {GT_ORDER_STRIDED, 1, 0}, {GT_ORDER_TILED, 0, 1}, {GT_ORDER_TILED, 1, 0},
        {GT_ORDER_GROUPED, 0, 0}, {GT_ORDER_GROUPED, 0, 1}};
    uint32_t shape[3] = {4, 4, 1}, out[16];
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_int_equal(gt_order_fill(&bad[i], shape, out), -EINVAL);
}

static void test_empty_shape_is_rejected(void **state)
{
    (void)state;
    static const uint32_t shapes[][3] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
    uint32_t out[1];
    for (int kind = 0; kind < GT_ORDER_KINDS; kind++)
        for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
            gt_order o = {(gt_order_kind)kind, 2, 2};
            assert_int_equal(gt_order_fill(&o, shapes[s], out), -EINVAL);
        }
}

static void test_too_many_cells_overflow(void **state)
{
    (void)state;
    static const uint32_t shapes[][3] = {{65536, 65536, 1}, {1, 65536, 65536}, {65536, 256, 256},
                                         {UINT32_MAX, UINT32_MAX, UINT32_MAX}};
    uint32_t out[1] = {42};
    gt_order o = {GT_ORDER_LINEAR, 0, 0};
    for (size_t s = 0; s < ARRAY_LEN(shapes); s++)
        assert_int_equal(gt_order_fill(&o, shapes[s], out), -EOVERFLOW);
    assert_int_equal(out[0], 42);
}

static void test_unknown_kind_is_rejected(void **state)
{
    (void)state;
    gt_order o = {(gt_order_kind)99, 0, 0};
    uint32_t shape[3] = {1, 1, 1}, out[1];
    assert_int_equal(gt_order_fill(&o, shape, out), -EINVAL);
}

/* ---- text form ------------------------------------------------------------------------- */

static int parse(const char *text, gt_order *o, char *err, size_t errlen)
{
    return gt_order_parse(text, strlen(text), o, err, errlen);
}

static void test_format_writes_canonical_text(void **state)
{
    (void)state;
    static const struct {
        gt_order o;
        const char *text;
    } cases[] = {
        {{GT_ORDER_LINEAR, 0, 0}, "linear"},       {{GT_ORDER_COLUMN, 0, 0}, "column"},
        {{GT_ORDER_STRIDED, 8, 4}, "strided:8/4"}, {{GT_ORDER_ZIGZAG, 0, 0}, "zigzag"},
        {{GT_ORDER_TILED, 4, 4}, "tiled:4x4"},     {{GT_ORDER_TILED, 5, 3}, "tiled:5x3"},
        {{GT_ORDER_HILBERT, 0, 0}, "hilbert"},     {{GT_ORDER_MORTON, 0, 0}, "morton"},
        {{GT_ORDER_GROUPED, 8, 0}, "grouped:8"},   {{GT_ORDER_GROUPED, 65536, 0}, "grouped:65536"},
    };
    char buf[64];
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        assert_int_equal(gt_order_format(&cases[i].o, buf, sizeof buf), strlen(cases[i].text));
        assert_string_equal(buf, cases[i].text);
    }
}

static void test_format_truncates_like_snprintf(void **state)
{
    (void)state;
    gt_order o = {GT_ORDER_STRIDED, 1000, 20};
    char buf[8];
    assert_int_equal(gt_order_format(&o, NULL, 0), strlen("strided:1000/20"));
    assert_int_equal(gt_order_format(&o, buf, sizeof buf), strlen("strided:1000/20"));
    assert_string_equal(buf, "strided");
}

static void test_parse_format_round_trips(void **state)
{
    (void)state;
    static const gt_order orders[] = {
        {GT_ORDER_LINEAR, 0, 0},  {GT_ORDER_COLUMN, 0, 0},           {GT_ORDER_STRIDED, 8, 4},
        {GT_ORDER_STRIDED, 1, 1}, {GT_ORDER_STRIDED, UINT32_MAX, UINT32_MAX}, {GT_ORDER_ZIGZAG, 0, 0},
        {GT_ORDER_TILED, 1, 1},   {GT_ORDER_TILED, 65536, 65536},    {GT_ORDER_TILED, 5, 3},
        {GT_ORDER_HILBERT, 0, 0}, {GT_ORDER_MORTON, 0, 0},            {GT_ORDER_GROUPED, 1, 0},
        {GT_ORDER_GROUPED, 8, 0}, {GT_ORDER_GROUPED, 65536, 0},
    };
    char buf[64], err[256];
    for (size_t i = 0; i < ARRAY_LEN(orders); i++) {
        gt_order back = {GT_ORDER_LINEAR, 7, 7};
        int n = gt_order_format(&orders[i], buf, sizeof buf);
        assert_in_range(n, 1, sizeof buf - 1);
        assert_int_equal(gt_order_parse(buf, (size_t)n, &back, err, sizeof err), 0);
        assert_int_equal(back.kind, orders[i].kind);
        assert_int_equal(back.p1, orders[i].p1);
        assert_int_equal(back.p2, orders[i].p2);
    }
}

static void test_parse_rejects_malformed_text_quoting_it(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",          "tiled",         "tiled:",      "tiled:4",        "tiled:4x",    "tiled:0x4",
        "tiled:4x0", "tiled:4x4x",    "tiled:4x-4",  "tiled:4 x4",     "tiled:65537x1", "tiledd:4x4",
        "strided:8", "strided:-1/2",  "strided:+1/2", "strided:1/0",   "strided:99999999999/1",
        "strided:8/4/", "hilbert:2",  "morton:",     "LINEAR",         " linear",     "linear ",
        "linear,",   "zig zag",       "grouped",     "grouped:",       "grouped:0",   "grouped:x",
        "grouped:70000", "grouped:4x4", "grouped:-1", "grouped:+8",    "grouped:8/2", "grouped: 8",
        "grouped:8:", "groupd:8",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        gt_order o;
        char err[256] = "";
        assert_int_equal(parse(bad[i], &o, err, sizeof err), -EINVAL);
        if (!strstr(err, bad[i]) || err[0] == '\0')
            fail_msg("error for \"%s\" does not quote it: %s", bad[i], err);
    }
}

static void test_parse_error_says_what_was_expected(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"tiledd:4x4", "expected linear, column, strided:S/G, zigzag, tiled:WxH, hilbert, morton or grouped:G"},
        {"tiled:4x0", "tile height must be at least 1"},
        {"tiled:0x4", "tile width must be at least 1"},
        {"tiled:65537x4", "tile width must be at most 65536"},
        {"strided:0/4", "stride must be at least 1"},
        {"strided:4/0", "granularity must be at least 1"},
        {"strided:99999999999/1", "stride must be at most 4294967295"},
        {"strided:8", "strided:S/G"},
        {"tiled:4x", "tiled:WxH"},
        {"hilbert:2", "takes no parameters"},
        {"grouped:0", "band height must be at least 1"},
        {"grouped:70000", "band height must be at most 65536"},
        {"grouped:", "expected grouped:G with a whole number from 1 to 65536"},
        {"grouped", "expected grouped:G"},
        {"grouped:x", "expected grouped:G"},
        {"grouped:4x4", "expected grouped:G"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        gt_order o;
        char err[256] = "";
        assert_int_equal(parse(cases[i].text, &o, err, sizeof err), -EINVAL);
        if (!strstr(err, cases[i].says))
            fail_msg("error for \"%s\" lacks \"%s\": %s", cases[i].text, cases[i].says, err);
    }
}

static void test_parse_reads_only_len_chars(void **state)
{
    (void)state;
    gt_order o;
    char err[256];
    assert_int_equal(gt_order_parse("linear,item=x", 6, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, GT_ORDER_LINEAR);
    assert_int_equal(gt_order_parse("tiled:4x8,item=linear", 9, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, GT_ORDER_TILED);
    assert_int_equal(o.p1, 4);
    assert_int_equal(o.p2, 8);
    assert_int_equal(gt_order_parse("grouped:8,item=linear", 9, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, GT_ORDER_GROUPED);
    assert_int_equal(o.p1, 8);
    assert_int_equal(o.p2, 0);
}

static void test_parse_never_reads_past_len(void **state)
{
    (void)state;
    /* Heap copies without a terminator, so ASan and valgrind flag any overread. */
    static const char *texts[] = {"strided:12/34", "tiled:4x", "hilbert", "strided:7", "grouped:16", "grouped:"};
    for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
        size_t len = strlen(texts[i]);
        char *copy = malloc(len);
        assert_non_null(copy);
        memcpy(copy, texts[i], len);
        gt_order o;
        char err[256];
        (void)gt_order_parse(copy, len, &o, err, sizeof err);
        free(copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_permutes),
        cmocka_unit_test(test_column_permutes),
        cmocka_unit_test(test_strided_permutes),
        cmocka_unit_test(test_zigzag_permutes),
        cmocka_unit_test(test_tiled_permutes),
        cmocka_unit_test(test_hilbert_permutes),
        cmocka_unit_test(test_morton_permutes),
        cmocka_unit_test(test_grouped_permutes),
        cmocka_unit_test(test_hilbert_steps_to_neighbours_in_2d),
        cmocka_unit_test(test_hilbert_steps_to_neighbours_on_larger_2d),
        cmocka_unit_test(test_hilbert_steps_to_neighbours_in_3d),
        cmocka_unit_test(test_hilbert_walks_odd_planes_backwards),
        cmocka_unit_test(test_hilbert_on_1d_is_linear),
        cmocka_unit_test(test_linear_on_3x2),
        cmocka_unit_test(test_column_on_3x2),
        cmocka_unit_test(test_column_in_3d_runs_z_fastest),
        cmocka_unit_test(test_column_on_1d_is_linear),
        cmocka_unit_test(test_zigzag_on_3x3),
        cmocka_unit_test(test_zigzag_counts_rows_across_planes),
        cmocka_unit_test(test_zigzag_on_1d_is_linear),
        cmocka_unit_test(test_tiled_clips_edge_tiles),
        cmocka_unit_test(test_tiled_walks_planes_in_turn),
        cmocka_unit_test(test_tiled_with_tile_over_grid_is_linear),
        cmocka_unit_test(test_tiled_on_1d_is_linear),
        cmocka_unit_test(test_strided_visits_every_stride_th_cell),
        cmocka_unit_test(test_strided_keeps_granules_together),
        cmocka_unit_test(test_strided_runs_over_the_linear_index),
        cmocka_unit_test(test_strided_with_stride_over_granules_is_linear),
        cmocka_unit_test(test_morton_on_4x4),
        cmocka_unit_test(test_morton_skips_cells_outside_the_grid),
        cmocka_unit_test(test_morton_interleaves_x_y_z),
        cmocka_unit_test(test_morton_on_skinny_grids_is_linear),
        cmocka_unit_test(test_grouped_on_4x5_ends_with_a_short_band),
        cmocka_unit_test(test_grouped_on_3x7_with_bands_of_3),
        cmocka_unit_test(test_grouped_walks_planes_in_turn),
        cmocka_unit_test(test_grouped_with_one_row_bands_is_linear),
        cmocka_unit_test(test_grouped_with_bands_over_the_grid_is_column_in_2d),
        cmocka_unit_test(test_grouped_on_1d_is_linear),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_linear_at_matches_fill),
        cmocka_unit_test(test_column_at_matches_fill),
        cmocka_unit_test(test_zigzag_at_matches_fill),
        cmocka_unit_test(test_strided_at_matches_fill),
        cmocka_unit_test(test_tiled_at_matches_fill),
        cmocka_unit_test(test_grouped_at_matches_fill),
        cmocka_unit_test(test_at_on_a_grid_near_the_cell_limit),
        cmocka_unit_test(test_at_refuses_what_fill_refuses),
        cmocka_unit_test(test_zero_parameters_are_rejected),
        cmocka_unit_test(test_empty_shape_is_rejected),
        cmocka_unit_test(test_too_many_cells_overflow),
        cmocka_unit_test(test_unknown_kind_is_rejected),
        cmocka_unit_test(test_format_writes_canonical_text),
        cmocka_unit_test(test_format_truncates_like_snprintf),
        cmocka_unit_test(test_parse_format_round_trips),
        cmocka_unit_test(test_parse_rejects_malformed_text_quoting_it),
        cmocka_unit_test(test_parse_error_says_what_was_expected),
        cmocka_unit_test(test_parse_reads_only_len_chars),
        cmocka_unit_test(test_parse_never_reads_past_len),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
