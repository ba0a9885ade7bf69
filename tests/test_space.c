/* test_space.c: the candidate space: the variations of each axis, their geometric parameter
 * series, twins left out, and the text forms of styles and series. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tuner/space.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t items16x16[3] = {16, 16, 1};
static const uint32_t grid13x8[3] = {13, 8, 1};

/* The entries of an axis as one comma-separated line of formatted schedules' axis parts. */
/* A sample holds the whole grid unless sample_groups says otherwise. */
static void axis_text_sampled(const gt_space_config *c, gt_axis axis, const uint32_t items[3], const uint32_t grid[3],
                              uint64_t sample_groups, unsigned workers, char *out, size_t len)
{
    gt_space_entry *e;
    size_t n;
    assert_int_equal(gt_space_axis(c, axis, &gt_schedule_default, items, grid, sample_groups, workers, &e, &n), 0);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char part[64];
        if (axis == GT_AXIS_SPAN)
            snprintf(part, sizeof part, "%u", e[i].schedule.span);
        else if (axis == GT_AXIS_ASSIGN)
            gt_assign_format(&e[i].schedule.assign, part, sizeof part);
        else
            gt_order_format(axis == GT_AXIS_ITEM ? &e[i].schedule.item : &e[i].schedule.group, part, sizeof part);
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", part);
        /* Only the axis varies, but in the item axis's column walk, which moves the group order too. */
        gt_schedule other = e[i].schedule;
        if (strcmp(e[i].style, "walk=column") == 0) {
            snprintf(out + strlen(out), len - strlen(out), "+group=column");
            assert_int_equal(axis, GT_AXIS_ITEM);
            assert_int_equal(other.group.kind, GT_ORDER_COLUMN);
            other.group = gt_schedule_default.group;
        }
        if (axis == GT_AXIS_SPAN)
            other.span = 1;
        else if (axis == GT_AXIS_ASSIGN)
            other.assign = gt_schedule_default.assign;
        else
            *(axis == GT_AXIS_ITEM ? &other.item : &other.group) = gt_schedule_default.item;
        assert_true(gt_schedule_equal(&other, &gt_schedule_default));
    }
    free(e);
}

static void axis_text(const gt_space_config *c, gt_axis axis, const uint32_t items[3], const uint32_t grid[3],
                      unsigned workers, char *out, size_t len)
{
    axis_text_sampled(c, axis, items, grid, (uint64_t)grid[0] * grid[1] * grid[2], workers, out, len);
}

static void test_assign_axis_follows_the_series(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    /* 104 groups a sample, 2 workers, 4 chunks each at least: chunks up to 13. */
    axis_text(&c, GT_AXIS_ASSIGN, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "stealing dynamic:2 dynamic:4 dynamic:8");
    axis_text_sampled(&c, GT_AXIS_ASSIGN, items16x16, grid13x8, 1000, 2, text, sizeof text);
    assert_string_equal(text, "stealing dynamic:2 dynamic:4 dynamic:8 dynamic:16 dynamic:32 dynamic:64");
    /* block is not a default style (space.c says why), but it can be asked for */
    char err[256];
    assert_int_equal(gt_space_styles_parse("assign=block+dynamic+stealing", &c, err, sizeof err), 0);
    axis_text(&c, GT_AXIS_ASSIGN, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "stealing block dynamic:2 dynamic:4 dynamic:8");
    c.series = (gt_series){.start = 3, .ratio = 4, .limit = 20};
    c.assign_styles = 1u << GT_ASSIGN_CYCLIC;
    axis_text(&c, GT_AXIS_ASSIGN, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "stealing cyclic:3 cyclic:12");
}

static void test_item_axis_drops_twins(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    /* tiled:16x16 is the linear order of a 16 x 16 workgroup. */
    axis_text(&c, GT_AXIS_ITEM, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear column column+group=column tiled:2x2 tiled:4x4 tiled:8x8");
    /* In 1-D every order of the default set is the linear one. */
    const uint32_t line[3] = {64, 1, 1};
    axis_text(&c, GT_AXIS_ITEM, line, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear");
}

/* The item axis offers the column walk (column items under the column group order) only over
   a base that walks the grid by rows, with both column styles on and the group axis explored,
   and where both column orders differ from the linear one. */
static void test_the_column_walk_needs_rows_to_turn(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    const uint32_t one_row[3] = {13, 1, 1}, line[3] = {64, 1, 1};
    axis_text(&c, GT_AXIS_ITEM, items16x16, one_row, 2, text, sizeof text);
    assert_string_equal(text, "linear column tiled:2x2 tiled:4x4 tiled:8x8");
    axis_text(&c, GT_AXIS_ITEM, line, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear");
    c.axes &= ~(1u << GT_AXIS_GROUP);
    axis_text(&c, GT_AXIS_ITEM, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear column tiled:2x2 tiled:4x4 tiled:8x8");
    c = gt_space_config_default();
    c.group_styles &= ~(1u << GT_ORDER_COLUMN);
    axis_text(&c, GT_AXIS_ITEM, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear column tiled:2x2 tiled:4x4 tiled:8x8");
    c = gt_space_config_default();
    c.item_styles &= ~(1u << GT_ORDER_COLUMN);
    axis_text(&c, GT_AXIS_ITEM, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear tiled:2x2 tiled:4x4 tiled:8x8");

    /* Over a base that walks the grid in another order, and with the span and the assignment
       the base's. */
    c = gt_space_config_default();
    gt_schedule base = gt_schedule_default;
    base.group = (gt_order){GT_ORDER_ZIGZAG, 0, 0};
    gt_space_entry *e;
    size_t n;
    assert_int_equal(gt_space_axis(&c, GT_AXIS_ITEM, &base, items16x16, grid13x8, 104, 2, &e, &n), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(e[i].schedule.group.kind, GT_ORDER_ZIGZAG);
    free(e);
    base = gt_schedule_default;
    base.span = 4;
    base.assign = (gt_assign){GT_ASSIGN_BLOCK, 0};
    assert_int_equal(gt_space_axis(&c, GT_AXIS_ITEM, &base, items16x16, grid13x8, 104, 2, &e, &n), 0);
    gt_schedule walk = base;
    walk.group = (gt_order){GT_ORDER_COLUMN, 0, 0};
    walk.item = (gt_order){GT_ORDER_COLUMN, 0, 0};
    assert_true(n > 2);
    /* right after the column item order: the first round's looks reach it before the tiled ones */
    assert_int_equal(e[1].schedule.item.kind, GT_ORDER_COLUMN);
    assert_true(gt_schedule_equal(&e[2].schedule, &walk));
    assert_string_equal(e[2].style, "walk=column");
    free(e);
}

static void test_group_axis_is_bounded_by_the_grid(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    /* Tiles clip to the 13 x 8 grid: 16x8 covers whole rows, the linear order again; a band of
     * 8 rows is the whole grid, the column order again. */
    axis_text(&c, GT_AXIS_GROUP, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear column zigzag tiled:2x2 tiled:4x4 tiled:8x8 hilbert grouped:2 grouped:4");
    /* A sample holds a whole tile: samples of 20 workgroups take tiles up to 4x4. */
    axis_text_sampled(&c, GT_AXIS_GROUP, items16x16, grid13x8, 20, 2, text, sizeof text);
    assert_string_equal(text, "linear column zigzag tiled:2x2 tiled:4x4 hilbert grouped:2 grouped:4");
}

/* On grids too large to fill, twins are still found (a tile as wide as the grid is the linear
   order, every order of a line is), and Hilbert stays. */
static void test_twins_are_found_on_large_grids(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    const uint32_t wide[3] = {1024, 512, 1}, line[3] = {1u << 20, 1, 1};
    axis_text_sampled(&c, GT_AXIS_GROUP, items16x16, wide, 1u << 22, 2, text, sizeof text);
    assert_string_equal(text, "linear column zigzag tiled:2x2 tiled:4x4 tiled:8x8 tiled:16x16 tiled:32x32 "
                              "tiled:64x64 tiled:128x128 tiled:256x256 tiled:512x512 hilbert grouped:2 grouped:4 "
                              "grouped:8 grouped:16");
    axis_text_sampled(&c, GT_AXIS_GROUP, items16x16, line, 4096, 2, text, sizeof text);
    assert_string_equal(text, "linear");
    /* Probes a power of two apart would all fall on even rows here, where zigzag is linear. */
    const uint32_t pow2[3] = {2048, 4096, 1};
    axis_text_sampled(&c, GT_AXIS_GROUP, items16x16, pow2, 1u << 22, 2, text, sizeof text);
    assert_string_equal(text, "linear column zigzag tiled:2x2 tiled:4x4 tiled:8x8 tiled:16x16 tiled:32x32 "
                              "tiled:64x64 tiled:128x128 tiled:256x256 tiled:512x512 tiled:1024x1024 hilbert "
                              "grouped:2 grouped:4 grouped:8 grouped:16");
    /* Hilbert has no closed form: on a thin grid of 8192 cells it is filled, and its probes
     * match an order probed through its closed form. */
    const uint32_t thin[3] = {2, 4096, 1};
    axis_text_sampled(&c, GT_AXIS_GROUP, items16x16, thin, 4096, 2, text, sizeof text);
    assert_string_equal(text, "linear column zigzag grouped:2 grouped:4 grouped:8 grouped:16");
}

/* Band heights follow the series up to the grid's height and at most 16 rows. */
static void test_grouped_bands_are_bounded(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    c.group_styles = (1u << GT_ORDER_COLUMN) | (1u << GT_ORDER_GROUPED);
    char text[512];
    const uint32_t tall[3] = {256, 256, 1}, short_grid[3] = {64, 3, 1}, line[3] = {1024, 1, 1};
    axis_text(&c, GT_AXIS_GROUP, items16x16, tall, 2, text, sizeof text);
    assert_string_equal(text, "linear column grouped:2 grouped:4 grouped:8 grouped:16");
    axis_text(&c, GT_AXIS_GROUP, items16x16, short_grid, 2, text, sizeof text);
    assert_string_equal(text, "linear column grouped:2");
    axis_text(&c, GT_AXIS_GROUP, items16x16, line, 2, text, sizeof text);
    assert_string_equal(text, "linear");
    /* In 3-D, a band of the whole height walks each plane column-major, which the column order
     * (z fastest) does not. */
    const uint32_t cube[3] = {8, 4, 2};
    axis_text(&c, GT_AXIS_GROUP, items16x16, cube, 2, text, sizeof text);
    assert_string_equal(text, "linear column grouped:2 grouped:4");
    c.series.limit = 4;
    axis_text(&c, GT_AXIS_GROUP, items16x16, tall, 2, text, sizeof text);
    assert_string_equal(text, "linear column grouped:2 grouped:4");
}

/* Spans follow the series up to a row of the grid, or a worker's whole share of a sample when
 * that holds less than half a row. */
static void test_span_axis_is_bounded_by_a_row_and_a_share(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char text[512];
    axis_text(&c, GT_AXIS_SPAN, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "1 13 8 4 2"); /* the widest, then the series from the top */
    /* A row of 16, and samples of 200 workgroups: 2 workers, one span each, 100 wide at most. */
    const uint32_t grid16[3] = {16, 2, 1};
    axis_text_sampled(&c, GT_AXIS_SPAN, items16x16, grid16, 200, 2, text, sizeof text);
    assert_string_equal(text, "1 16 8 4 2");
    /* 20 workgroups a sample: 10 each, more than half a row: the row, not a span of 10. */
    axis_text_sampled(&c, GT_AXIS_SPAN, items16x16, grid16, 20, 2, text, sizeof text);
    assert_string_equal(text, "1 16 8 4 2");
    /* 12 workgroups: 6 each, less than half a row. */
    axis_text_sampled(&c, GT_AXIS_SPAN, items16x16, grid16, 12, 2, text, sizeof text);
    assert_string_equal(text, "1 6 4 2");
    c.series = (gt_series){.start = 3, .ratio = 3, .limit = 9};
    axis_text(&c, GT_AXIS_SPAN, items16x16, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "1 9 3");
    const uint32_t one[3] = {1, 8, 1};
    axis_text(&c, GT_AXIS_SPAN, items16x16, one, 2, text, sizeof text);
    assert_string_equal(text, "1");
}

/* Under another group order than the linear one, spans leave the grid 16 spans wide at least:
   at a row, the order would walk the rows again. */
static void test_span_axis_leaves_another_order_columns(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    const uint32_t grid[3] = {512, 512, 1};
    const uint64_t sample_groups = 1u << 20;
    const char *want[] = {"1 512 256 128 64 32 16 8 4 2", "1 32 16 8 4 2", "1 32 16 8 4 2"};
    const gt_order_kind orders[] = {GT_ORDER_LINEAR, GT_ORDER_COLUMN, GT_ORDER_HILBERT};
    for (size_t k = 0; k < 3; k++) {
        gt_schedule base = gt_schedule_default;
        base.group = (gt_order){orders[k], 0, 0};
        gt_space_entry *e;
        size_t n;
        assert_int_equal(gt_space_axis(&c, GT_AXIS_SPAN, &base, items16x16, grid, sample_groups, 2, &e, &n), 0);
        char text[256] = "";
        for (size_t i = 0; i < n; i++) {
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%u", i ? " " : "", e[i].schedule.span);
            assert_int_equal(e[i].schedule.group.kind, orders[k]);
        }
        assert_string_equal(text, want[k]);
        free(e);
    }
    /* A grid fewer than 16 workgroups wide leaves such an order no span but 1. */
    gt_schedule base = gt_schedule_default;
    base.group = (gt_order){GT_ORDER_COLUMN, 0, 0};
    gt_space_entry *e;
    size_t n;
    assert_int_equal(gt_space_axis(&c, GT_AXIS_SPAN, &base, items16x16, grid13x8, sample_groups, 2, &e, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].schedule.span, 1);
    free(e);
}

static void test_strided_takes_both_parameters(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    c.item_styles = 1u << GT_ORDER_STRIDED;
    c.series.limit = 4;
    const uint32_t items[3] = {32, 1, 1};
    char text[512];
    axis_text(&c, GT_AXIS_ITEM, items, grid13x8, 2, text, sizeof text);
    assert_string_equal(text, "linear strided:2/2 strided:2/4 strided:4/2 strided:4/4");
}

static void test_styles_parse(void **state)
{
    (void)state;
    gt_space_config c = gt_space_config_default();
    char err[256];
    assert_int_equal(gt_space_styles_parse("group=hilbert+morton,assign=", &c, err, sizeof err), 0);
    assert_int_equal(c.group_styles, (1u << GT_ORDER_HILBERT) | (1u << GT_ORDER_MORTON));
    assert_false(c.axes & (1u << GT_AXIS_ASSIGN));
    assert_true(c.axes & (1u << GT_AXIS_ITEM));
    assert_int_equal(c.item_styles, gt_space_config_default().item_styles);

    assert_true(c.axes & (1u << GT_AXIS_SPAN));
    assert_int_equal(gt_space_styles_parse("span=", &c, err, sizeof err), 0);
    assert_false(c.axes & (1u << GT_AXIS_SPAN));
    assert_int_equal(gt_space_styles_parse("span=series", &c, err, sizeof err), 0);
    assert_true(c.axes & (1u << GT_AXIS_SPAN));
    assert_int_equal(gt_space_styles_parse("span=wide", &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "unknown span style \"wide\""));

    assert_int_equal(gt_space_styles_parse("group=linear+grouped", &c, err, sizeof err), 0);
    assert_int_equal(c.group_styles, (1u << GT_ORDER_LINEAR) | (1u << GT_ORDER_GROUPED));
    assert_true(c.axes & (1u << GT_AXIS_GROUP));

    gt_space_config before = c;
    assert_int_equal(gt_space_styles_parse("item=linear+spiral", &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "unknown item style \"spiral\""));
    assert_non_null(strstr(err, "expected linear, column, strided, zigzag, tiled, hilbert, morton or grouped"));
    assert_memory_equal(&c, &before, sizeof c);
    assert_int_equal(gt_space_styles_parse("grop=linear", &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "grop=linear"));
}

static void test_series_parse(void **state)
{
    (void)state;
    gt_series s;
    char err[256];
    assert_int_equal(gt_series_parse("1:4:256", &s, err, sizeof err), 0);
    assert_int_equal(s.start, 1);
    assert_int_equal(s.ratio, 4);
    assert_int_equal(s.limit, 256);
    const char *bad[] = {"2:1:0", "0:2:0", "2:2", "8:2:4", "a:2:0", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(gt_series_parse(bad[i], &s, err, sizeof err), -EINVAL);
        assert_true(strlen(err) > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_axis_follows_the_series),
        cmocka_unit_test(test_item_axis_drops_twins),
        cmocka_unit_test(test_the_column_walk_needs_rows_to_turn),
        cmocka_unit_test(test_group_axis_is_bounded_by_the_grid),
        cmocka_unit_test(test_grouped_bands_are_bounded),
        cmocka_unit_test(test_twins_are_found_on_large_grids),
        cmocka_unit_test(test_span_axis_is_bounded_by_a_row_and_a_share),
        cmocka_unit_test(test_span_axis_leaves_another_order_columns),
        cmocka_unit_test(test_strided_takes_both_parameters),
        cmocka_unit_test(test_styles_parse),
        cmocka_unit_test(test_series_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
