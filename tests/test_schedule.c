/* test_schedule.c: the schedule's canonical text form: round trips, defaults, and errors that
 * name the bad part. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tuner/schedule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void assert_round_trip(const char *text)
{
    gt_schedule s;
    char err[256] = "", out[GT_SCHEDULE_TEXT_MAX];
    assert_int_equal(gt_schedule_parse(text, &s, err, sizeof err), 0);
    int n = gt_schedule_format(&s, out, sizeof out);
    assert_true(n > 0 && n < (int)sizeof out);
    assert_string_equal(out, text);
}

static void canonical_texts_round_trip(void **state)
{
    (void)state;
    assert_round_trip("group=tiled:4x4,item=linear,assign=dynamic:8");
    assert_round_trip("group=linear,item=linear,assign=dynamic:1");
    assert_round_trip("group=hilbert,item=tiled:8x2,assign=block");
    assert_round_trip("group=strided:16/4,item=zigzag,assign=cyclic:3");
    assert_round_trip("group=morton,item=column,assign=stealing");
    assert_round_trip("group=linear,span=8,item=linear,assign=dynamic:1");
    assert_round_trip("group=hilbert,span=65536,item=tiled:8x2,assign=block");
}

/* A span of 1 is today's behaviour and is not written, so texts from before spans stay
 * canonical; a text that names span=1 reads as that. */
static void span_of_one_is_the_default_and_unwritten(void **state)
{
    (void)state;
    gt_schedule s;
    char err[256], text[GT_SCHEDULE_TEXT_MAX];
    assert_int_equal(gt_schedule_parse("item=tiled:4x4", &s, err, sizeof err), 0);
    assert_int_equal(s.span, 1);
    assert_int_equal(gt_schedule_parse("span=1,item=tiled:4x4", &s, err, sizeof err), 0);
    assert_int_equal(s.span, 1);
    gt_schedule_format(&s, text, sizeof text);
    assert_string_equal(text, "group=linear,item=tiled:4x4,assign=stealing");
    assert_int_equal(gt_schedule_parse("assign=block,span=16", &s, err, sizeof err), 0);
    gt_schedule_format(&s, text, sizeof text);
    assert_string_equal(text, "group=linear,span=16,item=linear,assign=block");
    gt_schedule other = s;
    other.span = 8;
    assert_false(gt_schedule_equal(&s, &other));
}

/* The longest schedule there is fits in GT_SCHEDULE_TEXT_MAX. */
static void longest_schedule_fits(void **state)
{
    (void)state;
    assert_round_trip("group=strided:4294967295/4294967295,span=65536,item=strided:4294967295/4294967295,"
                      "assign=dynamic:4294967295");
}

static void every_combination_round_trips(void **state)
{
    (void)state;
    const char *orders[] = {"linear", "column", "strided:3/2", "zigzag", "tiled:5x7", "hilbert", "morton"};
    const char *assigns[] = {"block", "cyclic:2", "dynamic:9", "stealing"};
    char text[GT_SCHEDULE_TEXT_MAX];
    for (size_t g = 0; g < 7; g++)
        for (size_t i = 0; i < 7; i++)
            for (size_t a = 0; a < 4; a++) {
                snprintf(text, sizeof text, "group=%s,item=%s,assign=%s", orders[g], orders[i], assigns[a]);
                assert_round_trip(text);
            }
}

static void parse_format_parse_gives_same_schedule(void **state)
{
    (void)state;
    gt_schedule a, b;
    char err[256], text[GT_SCHEDULE_TEXT_MAX];
    assert_int_equal(gt_schedule_parse("assign=stealing,item=tiled:2x3,group=strided:7/1", &a, err, sizeof err), 0);
    gt_schedule_format(&a, text, sizeof text);
    assert_string_equal(text, "group=strided:7/1,item=tiled:2x3,assign=stealing");
    assert_int_equal(gt_schedule_parse(text, &b, err, sizeof err), 0);
    assert_true(gt_schedule_equal(&a, &b));
}

static void omitted_keys_take_defaults(void **state)
{
    (void)state;
    gt_schedule s;
    char err[256], text[GT_SCHEDULE_TEXT_MAX];
    assert_int_equal(gt_schedule_parse("item=tiled:4x4", &s, err, sizeof err), 0);
    gt_schedule_format(&s, text, sizeof text);
    assert_string_equal(text, "group=linear,item=tiled:4x4,assign=stealing");
    gt_schedule_format(&gt_schedule_default, text, sizeof text);
    assert_string_equal(text, "group=linear,item=linear,assign=stealing");
}

static void equal_compares_parameters(void **state)
{
    (void)state;
    gt_schedule a, b;
    char err[256];
    gt_schedule_parse("group=tiled:4x4,assign=dynamic:8", &a, err, sizeof err);
    gt_schedule_parse("group=tiled:4x2,assign=dynamic:8", &b, err, sizeof err);
    assert_false(gt_schedule_equal(&a, &b));
    gt_schedule_parse("group=tiled:4x4,assign=dynamic:4", &b, err, sizeof err);
    assert_false(gt_schedule_equal(&a, &b));
    gt_schedule_parse("assign=dynamic:8,group=tiled:4x4", &b, err, sizeof err);
    assert_true(gt_schedule_equal(&a, &b));
}

static void assert_rejected(const char *text, const char *named)
{
    gt_schedule s = gt_schedule_default;
    char err[256] = "";
    assert_int_equal(gt_schedule_parse(text, &s, err, sizeof err), -EINVAL);
    if (!strstr(err, named))
        fail_msg("error for \"%s\" is \"%s\", which does not name \"%s\"", text, err, named);
    assert_true(gt_schedule_equal(&s, &gt_schedule_default)); /* output untouched on error */
}

static void malformed_texts_name_the_bad_part(void **state)
{
    (void)state;
    assert_rejected("", "empty schedule");
    assert_rejected("grup=linear", "grup=linear");
    assert_rejected("group", "group");
    assert_rejected("group=linear,", "\"\"");
    assert_rejected("group=linear,,item=linear", "\"\"");
    assert_rejected("group=linear,group=hilbert", "\"group\" twice");
    assert_rejected("group=tiledd:4x4", "tiledd:4x4");
    assert_rejected("item=tiled:4x0", "tiled:4x0");
    assert_rejected("assign=dynamic:0", "dynamic:0");
    assert_rejected("assign=dynamic", "dynamic");
    assert_rejected("assign=dynamic:8x", "dynamic:8x");
    assert_rejected("assign=cyclic:-2", "cyclic:-2");
    assert_rejected("assign=block:4", "block:4");
    assert_rejected("assign=stealing:2", "stealing:2");
    assert_rejected("assign=guided", "guided");
    assert_rejected("assign=dynamic:99999999999", "dynamic:99999999999");
    assert_rejected(" group=linear", " group=linear");
    assert_rejected("span=0", "span \"0\"");
    assert_rejected("span=65537", "span \"65537\"");
    assert_rejected("span=", "span \"\"");
    assert_rejected("span=4x", "span \"4x\"");
    assert_rejected("span=-1", "span \"-1\"");
    assert_rejected("span=2,span=2", "\"span\" twice");
    assert_rejected("spam=2", "spam=2");
}

static void assignment_text_round_trips(void **state)
{
    (void)state;
    const char *texts[] = {"block", "cyclic:1", "cyclic:4294967295", "dynamic:64", "stealing"};
    for (size_t i = 0; i < 5; i++) {
        gt_assign a;
        char err[128], out[64];
        assert_int_equal(gt_assign_parse(texts[i], strlen(texts[i]), &a, err, sizeof err), 0);
        gt_assign_format(&a, out, sizeof out);
        assert_string_equal(out, texts[i]);
    }
}

static void format_reports_needed_length(void **state)
{
    (void)state;
    char small[8];
    int n = gt_schedule_format(&gt_schedule_default, small, sizeof small);
    assert_int_equal(n, (int)strlen("group=linear,item=linear,assign=stealing"));
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canonical_texts_round_trip),
        cmocka_unit_test(span_of_one_is_the_default_and_unwritten),
        cmocka_unit_test(longest_schedule_fits),
        cmocka_unit_test(every_combination_round_trips),
        cmocka_unit_test(parse_format_parse_gives_same_schedule),
        cmocka_unit_test(omitted_keys_take_defaults),
        cmocka_unit_test(equal_compares_parameters),
        cmocka_unit_test(malformed_texts_name_the_bad_part),
        cmocka_unit_test(assignment_text_round_trips),
        cmocka_unit_test(format_reports_needed_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
