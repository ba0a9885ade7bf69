/* test_populate.c: a new buffer's pages are mapped into gridtuned before any launch uses it.
 *
 * Two daemons side by side, alike but for --no-populate, each with a new 16 MiB buffer. By
 * default the daemon maps a new buffer's every page on the launcher thread, ahead of the
 * launches queued after it, so its mapping in /proc/PID/smaps is resident in full once a
 * launch that writes one page is done; with --no-populate it holds that page only. Where the
 * probes count page faults (root and BPF), the first launch over the whole buffer takes a
 * fault for every page without populating and none with it. The two are compared, and only
 * by more than half the pages, since the workers' other faults (their first touches of other
 * memory, a sanitizer's shadow memory among them, a fault taken again after a retry) come on
 * top in both, and not in the same numbers.
 * The launch after the buffer's creation runs after the populate job (one thread runs both,
 * in order), so nothing here waits on a clock. And `gridtuned --help` lists the flag, and a
 * value given to it is refused. */
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
/* Pages the small launch may leave mapped without populating: the one it wrote, with room for
 * the kernel mapping a few around a fault. */
#define SLACK_PAGES 16u

/* One daemon, its client, fill and a new buffer. */
typedef struct side {
    daemon_fixture fx;
    gt_client *c;
    gt_kernel *k;
    gt_buffer *b;
} side;

enum { POPULATED, UNPOPULATED, NSIDES };

typedef struct populate_test {
    side sides[NSIDES];
    unsigned long pages;
} populate_test;

static int setup(void **state)
{
    populate_test *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->pages = BYTES / (unsigned long)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < NSIDES; i++) {
        side *s = &t->sides[i];
        /* memfds, whose pages are 4 KiB here: a store's huge pages would fault in 2 MiB at a time */
        daemon_fixture_start(&s->fx, NULL,
                             i == UNPOPULATED ? (const char *const[]){"--buffer-store", "memfd", "--no-populate", NULL}
                                              : (const char *const[]){"--buffer-store", "memfd", NULL});
        s->c = daemon_fixture_connect(&s->fx);
        assert_int_equal(gt_kernel_load(s->c, GT_TEST_DAEMON_MODULE, "fill", &s->k), 0);
        assert_int_equal(gt_buffer_create(s->c, BYTES, &s->b), 0);
    }
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    populate_test *t = *state;
    daemon_fixture fx[NSIDES];
    for (int i = 0; i < NSIDES; i++) {
        gt_buffer_release(t->sides[i].b);
        gt_kernel_release(t->sides[i].k);
        gt_disconnect(t->sides[i].c);
        fx[i] = t->sides[i].fx;
    }
    free(t);
    for (int i = 0; i < NSIDES; i++)
        daemon_fixture_finish(&fx[i]);
    return 0;
}

/* fill over the buffer's first `items` int32s, 1-D in workgroups of SMALL_ITEMS, tuning as
 * asked; its output checked, and its report. */
static cJSON *launch(side *s, uint32_t items, gt_tuning tuning)
{
    gt_range range = {.dims = 1, .global = {items}, .local = {SMALL_ITEMS}};
    gt_arg args[] = {gt_arg_buffer(s->b), gt_arg_i32(5)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    gt_event ev;
    char *json = NULL;
    if (gt_launch(s->c, s->k, &range, args, 2, &opts, &ev) || gt_wait(s->c, ev) || gt_report(s->c, ev, &json) ||
        gt_event_release(s->c, ev))
        fail_msg("launch over %u items: %s", items, gt_last_error(s->c));
    const int32_t *data = gt_buffer_data(s->b);
    for (uint32_t i = 0; i < items; i++)
        if (data[i] != 5 + (int32_t)i)
            fail_msg("launch over %u items: element %u is %d, not %d", items, i, data[i], 5 + (int32_t)i);
    cJSON *report = cJSON_Parse(json);
    free(json);
    assert_non_null(report);
    return report;
}

/* The report's page faults of both phases, or -1 when the probes do not count them. */
static double launch_page_faults(const cJSON *report, const char *side_name)
{
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "phases"), "page_faults");
    if (cJSON_IsNull(pf))
        return -1;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(pf, "analysis"), *r = cJSON_GetObjectItemCaseSensitive(pf, "remainder");
    assert_true(cJSON_IsNumber(a) && cJSON_IsNumber(r));
    print_message("%s: page faults %.0f in the analysis, %.0f in the remainder\n", side_name, a->valuedouble,
                  r->valuedouble);
    return a->valuedouble + r->valuedouble;
}

static void test_a_new_buffer_is_mapped_in_before_its_first_launch(void **state)
{
    populate_test *t = *state;
    for (int i = 0; i < NSIDES; i++)
        cJSON_Delete(launch(&t->sides[i], SMALL_ITEMS, GT_TUNING_OFF));
    assert_int_equal(daemon_fixture_buffer_rss_kib(&t->sides[POPULATED].fx), BYTES / 1024);
    unsigned long kib = daemon_fixture_buffer_rss_kib(&t->sides[UNPOPULATED].fx);
    if (kib == 0 || kib * 1024 > SLACK_PAGES * (unsigned long)sysconf(_SC_PAGESIZE))
        fail_msg("with --no-populate, a launch that wrote one page left %lu KiB of the buffer resident", kib);
}

static void test_only_an_unpopulated_buffer_faults_in_its_first_launch(void **state)
{
    populate_test *t = *state;
    static const char *const names[NSIDES] = {"populated", "--no-populate"};
    double faults[NSIDES];
    for (int i = 0; i < NSIDES; i++) {
        cJSON *report = launch(&t->sides[i], ITEMS, GT_TUNING_RETUNE);
        faults[i] = launch_page_faults(report, names[i]);
        cJSON_Delete(report);
        assert_int_equal(daemon_fixture_buffer_rss_kib(&t->sides[i].fx), BYTES / 1024);
    }
    if (faults[POPULATED] < 0 || faults[UNPOPULATED] < 0) {
        print_message("page faults not compared: the probes do not count them here (root and BPF needed)\n");
        return;
    }
    if (faults[UNPOPULATED] - faults[POPULATED] < (double)t->pages / 2)
        fail_msg("the first launch over a buffer of %lu pages took %.0f page faults populated and %.0f not: "
                 "expected about one per page more without populating",
                 t->pages, faults[POPULATED], faults[UNPOPULATED]);
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
        cmocka_unit_test_setup_teardown(test_a_new_buffer_is_mapped_in_before_its_first_launch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_an_unpopulated_buffer_faults_in_its_first_launch, setup, teardown),
        cmocka_unit_test(test_help_lists_the_flag_and_a_value_is_refused),
    };
    return cmocka_run_group_tests_name("gridtuned maps new buffers in before their launches", tests, NULL, NULL);
}
