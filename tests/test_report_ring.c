/* test_report_ring.c: the ring of launch reports gridtuned keeps. A report's JSON is written
 * only when someone may read it: walking the ring writes none, so that a reader who sees only
 * its own reports never pays for writing everyone else's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/report_ring.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allocations made through cJSON: a report's text is built with it, and nothing else here is. */
static size_t json_allocations;

static void *counting_malloc(size_t size)
{
    json_allocations++;
    return malloc(size);
}

static gt_launch_report *report_of(uint64_t id)
{
    gt_tune_config cfg = gt_tune_config_default();
    gt_tune_launch tl = {.kernel = "fill", .kernel_hash = "0123", .machine = "test", .range = {.dims = 1, .global = {64}, .local = {64}}};
    gt_tune_result res = {.winner = gt_schedule_default, .estimated_gain = NAN};
    gt_launch_report *r = gt_launch_report_new(&cfg, &tl, &res, NULL, NULL, 1, id, 0);
    assert_non_null(r);
    return r;
}

/* Two users' reports: walking the ring, as a reader of either does to check their owners,
 * writes neither; the one then read is written. */
static void test_walking_writes_no_report(void **state)
{
    (void)state;
    gt_report_ring *ring = gt_report_ring_new(4);
    assert_non_null(ring);
    gt_launch_report *mine = report_of(1), *theirs = report_of(2);
    gt_report_ring_add(ring, 1, 1000, mine);
    gt_report_ring_add(ring, 2, 1001, theirs);
    cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = counting_malloc, .free_fn = free});
    json_allocations = 0;
    uint64_t id;
    unsigned uid;
    assert_non_null(gt_report_ring_get(ring, 0, &id, &uid));
    assert_true(id == 2 && uid == 1001);
    assert_non_null(gt_report_ring_get(ring, 1, &id, &uid));
    assert_true(id == 1 && uid == 1000);
    assert_null(gt_report_ring_get(ring, 2, NULL, NULL));
    assert_non_null(gt_report_ring_find(ring, 2, &uid));
    assert_int_equal(uid, 1001);
    assert_int_equal(json_allocations, 0);
    assert_non_null(gt_launch_report_text(mine)); /* and the count does see a report written */
    assert_true(json_allocations > 0);
    cJSON_InitHooks(NULL);
    gt_launch_report_unref(mine);
    gt_launch_report_unref(theirs);
    gt_report_ring_free(ring);
}

/* A report is written when first read, on gridtuned's loop, while the thread that ran the
 * launch may restart its executor and write that executor's counter status anew: the report
 * keeps the status the launch ran with, not a pointer to the executor's. */
static void test_a_report_keeps_the_counter_status_it_ran_with(void **state)
{
    (void)state;
    gt_counter_status status = {.mode = GT_COUNTERS_NONE};
    snprintf(status.note, sizeof status.note, "the launch's own note");
    gt_tune_config cfg = gt_tune_config_default();
    gt_tune_launch tl = {.kernel = "fill", .kernel_hash = "0123", .machine = "test", .range = {.dims = 1, .global = {64}, .local = {64}}};
    gt_tune_result res = {.winner = gt_schedule_default, .estimated_gain = NAN};
    gt_launch_report *r = gt_launch_report_new(&cfg, &tl, &res, &status, NULL, 1, 7, 0);
    assert_non_null(r);
    snprintf(status.note, sizeof status.note, "a restarted executor's note");
    const char *text = gt_launch_report_text(r);
    assert_non_null(text);
    assert_non_null(strstr(text, "the launch's own note"));
    assert_null(strstr(text, "a restarted executor's note"));
    gt_launch_report_unref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walking_writes_no_report),
        cmocka_unit_test(test_a_report_keeps_the_counter_status_it_ran_with),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
