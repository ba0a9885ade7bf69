/* test_populate.c: a new buffer's pages are mapped into gridtuned before any launch uses it.
 *
 * By default the daemon maps a new buffer's every page on the launcher thread, ahead of the
 * launches queued after it, so its mapping in /proc/PID/smaps is resident in full once a
 * launch that writes one page is done, and a launch over the whole buffer takes (nearly) no
 * page faults. With --no-populate the mapping holds only the pages launches wrote, and the
 * first launch over the buffer takes a fault per page. The launch after the buffer's creation
 * runs after the populate job (one thread runs both, in order), so nothing here waits on a
 * clock. The page faults are checked where the probes count them (root and BPF). And
 * `gridtuned --help` lists the flag, and a value given to it is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* 16 MiB of int32: 4096 pages of 4 KiB. */
#define ITEMS (4u << 20)
#define BYTES ((size_t)ITEMS * sizeof(int32_t))
/* One workgroup of fill writes the buffer's first 256 bytes: one page. */
#define SMALL_ITEMS 64u

typedef struct populate_test {
    daemon_fixture fx;
    gt_client *c;
    gt_kernel *k;
    gt_buffer *b;
    unsigned long pages;
} populate_test;

static int start(void **state, const char *const *extra)
{
    populate_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    daemon_fixture_start(&t->fx, NULL, extra);
    t->c = daemon_fixture_connect(&t->fx);
    assert_int_equal(gt_kernel_load(t->c, GT_TEST_DAEMON_MODULE, "fill", &t->k), 0);
    assert_int_equal(gt_buffer_create(t->c, BYTES, &t->b), 0);
    t->pages = BYTES / (unsigned long)sysconf(_SC_PAGESIZE);
    *state = t;
    return 0;
}

static int setup_default(void **state) { return start(state, NULL); }
static int setup_no_populate(void **state) { return start(state, (const char *const[]){"--no-populate", NULL}); }

static int teardown(void **state)
{
    populate_test *t = *state;
    gt_buffer_release(t->b);
    gt_kernel_release(t->k);
    gt_disconnect(t->c);
    daemon_fixture fx = t->fx;
    free(t);
    daemon_fixture_finish(&fx);
    return 0;
}

/* fill over the buffer's first `items` int32s, 1-D in workgroups of SMALL_ITEMS, tuning as
 * asked; its output checked, and its report. */
static cJSON *launch(populate_test *t, uint32_t items, gt_tuning tuning)
{
    gt_range range = {.dims = 1, .global = {items}, .local = {SMALL_ITEMS}};
    gt_arg args[] = {gt_arg_buffer(t->b), gt_arg_i32(5)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    gt_event ev;
    char *json = NULL;
    if (gt_launch(t->c, t->k, &range, args, 2, &opts, &ev) || gt_wait(t->c, ev) || gt_report(t->c, ev, &json) ||
        gt_event_release(t->c, ev))
        fail_msg("launch over %u items: %s", items, gt_last_error(t->c));
    const int32_t *data = gt_buffer_data(t->b);
    for (uint32_t i = 0; i < items; i++)
        if (data[i] != 5 + (int32_t)i)
            fail_msg("launch over %u items: element %u is %d, not %d", items, i, data[i], 5 + (int32_t)i);
    cJSON *report = cJSON_Parse(json);
    free(json);
    assert_non_null(report);
    return report;
}

/* The report's page faults of both phases, or -1 when the probes do not count them. */
static double launch_page_faults(const cJSON *report)
{
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "phases"), "page_faults");
    if (cJSON_IsNull(pf)) {
        print_message("page faults not checked: the probes do not count them here (root and BPF needed)\n");
        return -1;
    }
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(pf, "analysis"), *r = cJSON_GetObjectItemCaseSensitive(pf, "remainder");
    assert_true(cJSON_IsNumber(a) && cJSON_IsNumber(r));
    print_message("page faults: %.0f in the analysis, %.0f in the remainder\n", a->valuedouble, r->valuedouble);
    return a->valuedouble + r->valuedouble;
}

static void test_a_new_buffer_is_mapped_in_before_its_first_launch(void **state)
{
    populate_test *t = *state;
    cJSON_Delete(launch(t, SMALL_ITEMS, GT_TUNING_OFF));
    assert_int_equal(daemon_fixture_buffer_rss_kib(&t->fx), BYTES / 1024);
    cJSON *report = launch(t, ITEMS, GT_TUNING_RETUNE);
    double faults = launch_page_faults(report);
    cJSON_Delete(report);
    /* the workers' own first touches (a stack page, the module's data) may remain; one per
       page of the buffer may not */
    if (faults >= 0 && faults >= (double)t->pages / 16)
        fail_msg("the launch over a populated buffer of %lu pages took %.0f page faults", t->pages, faults);
}

static void test_no_populate_leaves_the_pages_to_the_launches(void **state)
{
    populate_test *t = *state;
    cJSON_Delete(launch(t, SMALL_ITEMS, GT_TUNING_OFF));
    unsigned long kib = daemon_fixture_buffer_rss_kib(&t->fx);
    if (kib == 0 || kib * 1024 > 16ul * (unsigned long)sysconf(_SC_PAGESIZE))
        fail_msg("with --no-populate, a launch that wrote one page left %lu KiB of the buffer resident", kib);
    cJSON *report = launch(t, ITEMS, GT_TUNING_RETUNE);
    double faults = launch_page_faults(report);
    cJSON_Delete(report);
    if (faults >= 0 && faults < (double)t->pages - 16)
        fail_msg("the first launch over an unpopulated buffer of %lu pages took only %.0f page faults", t->pages,
                 faults);
    assert_int_equal(daemon_fixture_buffer_rss_kib(&t->fx), BYTES / 1024);
}

/* gridtuned run with `args` (a shell word list): its exit status, and its output in out. */
static int run_gridtuned(const char *args, char *out, size_t len)
{
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", GT_GRIDTUNED_PATH, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_help_lists_the_flag_and_a_value_is_refused(void **state)
{
    (void)state;
    static char out[64 * 1024];
    assert_int_equal(run_gridtuned("--help", out, sizeof out), 0);
    if (!strstr(out, "--no-populate "))
        fail_msg("gridtuned --help does not list --no-populate:\n%s", out);
    assert_int_equal(run_gridtuned("--no-populate=yes --foreground --socket /nonexistent/s.sock", out, sizeof out), 2);
    if (!strstr(out, "'--no-populate' doesn't allow an argument"))
        fail_msg("gridtuned --no-populate=yes did not say the flag takes no value:\n%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_new_buffer_is_mapped_in_before_its_first_launch, setup_default,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_no_populate_leaves_the_pages_to_the_launches, setup_no_populate,
                                        teardown),
        cmocka_unit_test(test_help_lists_the_flag_and_a_value_is_refused),
    };
    return cmocka_run_group_tests_name("gridtuned maps new buffers in before their launches", tests, NULL, NULL);
}
