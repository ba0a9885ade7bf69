/* test_counters.c: PAPI counters report every asked-for event as used or unavailable with a
 * reason, fall back to perf::TASK-CLOCK when none can be counted, refuse bad event lists, and
 * count per thread; the pool reads them per batch and sums them over its workers.
 * The assertions hold on machines with and without hardware counters (and without perf). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/counters.h"
#include "engine/pool.h"

#include <errno.h>
#include <gridtune/kernel.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char task_clock[] = "perf::TASK-CLOCK";

/* Work that a task clock sees: a chain of multiplications the compiler cannot drop. */
GT_KERNEL(spin, uint64_t *, sink)
{
    uint64_t x = gt_global_id(0) + 1;
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    __atomic_fetch_add(sink, x, __ATOMIC_RELAXED);
}

static gt_counters *create_ok(const char *const *events, unsigned nevents, unsigned slots)
{
    gt_counters *c = NULL;
    char err[256] = "";
    int rc = gt_counters_create(events, nevents, slots, &c, err, sizeof err);
    if (rc)
        fail_msg("gt_counters_create failed (%d): %s", rc, err);
    return c;
}

static int index_in_used(const gt_counter_status *st, const char *name)
{
    for (unsigned i = 0; i < st->nused; i++)
        if (strcmp(st->used[i], name) == 0)
            return (int)i;
    return -1;
}

static unsigned times_unavailable(const gt_counter_status *st, const char *name)
{
    unsigned n = 0;
    for (unsigned i = 0; i < st->nunavailable; i++)
        if (strcmp(st->unavailable[i].name, name) == 0) {
            if (!st->unavailable[i].reason[0])
                fail_msg("unavailable event %s has no reason", name);
            n++;
        }
    return n;
}

static void bogus_events_fall_back_to_task_clock(void **state)
{
    (void)state;
    const char *events[] = {"GT_NO_SUCH_EVENT", "GT_NOR_THIS_ONE"};
    gt_counters *c = create_ok(events, 2, 1);
    const gt_counter_status *st = gt_counters_status(c);
    assert_int_equal(times_unavailable(st, events[0]), 1);
    assert_int_equal(times_unavailable(st, events[1]), 1);
    if (st->mode == GT_COUNTERS_SOFTWARE) {
        assert_non_null(strstr(st->note, task_clock));
        assert_int_equal(st->nused, 1);
        assert_string_equal(st->used[0], task_clock);
        assert_int_equal(st->nunavailable, 2);
    } else if (st->mode == GT_COUNTERS_NONE) { /* a machine without perf events */
        assert_int_equal(st->nused, 0);
        assert_int_equal(times_unavailable(st, task_clock), 1);
    } else
        fail_msg("mode %d with %u events used: expected the software fallback or none", st->mode, st->nused);
    gt_counters_destroy(c);
}

static void default_events_are_each_used_or_unavailable_once(void **state)
{
    (void)state;
    gt_counters *c = create_ok(NULL, 0, 1);
    const gt_counter_status *st = gt_counters_status(c);
    int last = -1;
    for (unsigned i = 0; i < gt_counters_default_nevents; i++) {
        const char *e = gt_counters_default_events[i];
        int at = index_in_used(st, e);
        if ((at >= 0) + times_unavailable(st, e) != 1)
            fail_msg("%s is used %s and unavailable %u times", e, at >= 0 ? "once" : "never", times_unavailable(st, e));
        if (at >= 0) {
            assert_true(at > last); /* in asked order */
            last = at;
        }
    }
    switch (st->mode) {
    case GT_COUNTERS_HARDWARE:
        assert_int_equal(st->nused + st->nunavailable, gt_counters_default_nevents);
        break;
    case GT_COUNTERS_SOFTWARE:
        assert_int_equal(st->nused, 1);
        assert_string_equal(st->used[0], task_clock);
        assert_int_equal(st->nunavailable, gt_counters_default_nevents);
        break;
    case GT_COUNTERS_NONE:
        assert_int_equal(st->nused, 0);
        break;
    }
    assert_true(st->note[0]);
    gt_counters_destroy(c);
}

static void only_task_clock_asked_is_noted_as_software(void **state)
{
    (void)state;
    const char *events[] = {task_clock};
    gt_counters *c = create_ok(events, 1, 1);
    const gt_counter_status *st = gt_counters_status(c);
    if (st->mode == GT_COUNTERS_HARDWARE) {
        assert_int_equal(st->nused, 1);
        assert_string_equal(st->used[0], task_clock);
        assert_non_null(strstr(st->note, "software"));
    } else {
        assert_int_equal(st->mode, GT_COUNTERS_NONE);
        assert_int_equal(times_unavailable(st, task_clock), 1);
    }
    gt_counters_destroy(c);
}

static void assert_create_refused(const char *const *events, unsigned nevents, unsigned slots, const char *named)
{
    gt_counters *c = NULL;
    char err[256] = "";
    assert_int_equal(gt_counters_create(events, nevents, slots, &c, err, sizeof err), -EINVAL);
    assert_null(c);
    if (!strstr(err, named))
        fail_msg("error \"%s\" does not mention \"%s\"", err, named);
}

static void too_many_events_are_refused(void **state)
{
    (void)state;
    const char *events[GT_COUNTERS_MAX + 1];
    char names[GT_COUNTERS_MAX + 1][16];
    for (unsigned i = 0; i <= GT_COUNTERS_MAX; i++) {
        snprintf(names[i], sizeof names[i], "EVENT_%u", i);
        events[i] = names[i];
    }
    char named[32];
    snprintf(named, sizeof named, "%d events", GT_COUNTERS_MAX + 1);
    assert_create_refused(events, GT_COUNTERS_MAX + 1, 1, named);
}

static void empty_event_names_are_refused(void **state)
{
    (void)state;
    const char *empty[] = {"PAPI_TOT_CYC", ""};
    assert_create_refused(empty, 2, 1, "event 2 of 2 has an empty name");
    const char *null[] = {NULL};
    assert_create_refused(null, 1, 1, "event 1 of 1 has an empty name");
    assert_create_refused(empty, 0, 1, "empty");
}

static void long_and_repeated_event_names_are_refused(void **state)
{
    (void)state;
    char longname[GT_COUNTER_NAME_MAX + 1];
    memset(longname, 'X', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    const char *toolong[] = {longname};
    char named[32];
    snprintf(named, sizeof named, "the most is %d", GT_COUNTER_NAME_MAX - 1);
    assert_create_refused(toolong, 1, 1, named);
    const char *twice[] = {"PAPI_TOT_CYC", task_clock, "PAPI_TOT_CYC"};
    assert_create_refused(twice, 3, 1, "\"PAPI_TOT_CYC\" is asked for twice");
}

static void zero_slots_are_refused(void **state)
{
    (void)state;
    assert_create_refused(NULL, 0, 0, "0 were asked");
}

typedef struct thread_check {
    gt_counters *c;
    int attach_rc;
    int64_t first[GT_COUNTERS_MAX], second[GT_COUNTERS_MAX];
} thread_check;

/* Spins until this thread's own CPU time has advanced by a millisecond: not a timing
 * assertion, only a guarantee that the task clock has something to count. */
static void burn_cpu(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    volatile uint64_t x = 1;
    do {
        for (int i = 0; i < 10000; i++)
            x = x * 3 + 1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000L);
}

static void *attach_burn_read(void *arg)
{
    thread_check *t = arg;
    t->attach_rc = gt_counters_thread_attach(t->c, 0);
    gt_counters_thread_read(t->c, 0, t->first);
    burn_cpu();
    gt_counters_thread_read(t->c, 0, t->second);
    gt_counters_thread_detach(t->c, 0);
    return NULL;
}

static void a_thread_counts_its_task_clock(void **state)
{
    (void)state;
    const char *events[] = {task_clock};
    thread_check t = {.c = create_ok(events, 1, 1)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, attach_burn_read, &t), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(t.attach_rc, 0);
    int at = index_in_used(gt_counters_status(t.c), task_clock);
    if (at >= 0)
        assert_true(t.second[at] - t.first[at] > 0);
    else
        assert_int_equal(gt_counters_status(t.c)->nused, 0);
    gt_counters_destroy(t.c);
}

static void slots_are_checked_on_attach(void **state)
{
    (void)state;
    gt_counters *c = create_ok(NULL, 0, 2);
    assert_int_equal(gt_counters_thread_attach(c, 2), -EINVAL);
    assert_int_equal(gt_counters_thread_attach(c, 1), 0);
    assert_int_equal(gt_counters_thread_attach(c, 1), -EBUSY);
    gt_counters_thread_detach(c, 1);
    assert_int_equal(gt_counters_thread_attach(c, 1), 0); /* free again after detach */
    gt_counters_thread_detach(c, 1);
    gt_counters_destroy(c);
}

static gt_batch spin_batch(void *const *args)
{
    return (gt_batch){.run = gt_kernel_desc_spin.run,
                      .args = args,
                      .range = {.dims = 1, .global = {4096, 1, 1}, .local = {64, 1, 1}},
                      .schedule = gt_schedule_default};
}

static void pool_sums_its_workers_counters(void **state)
{
    (void)state;
    /* PAPI_TOT_CYC is counted where there is a PMU; the task clock almost everywhere */
    const char *events[] = {"PAPI_TOT_CYC", task_clock};
    gt_counters *c = create_ok(events, 2, 2);
    const gt_counter_status *st = gt_counters_status(c);
    gt_pool *pool = NULL;
    char err[256];
    if (gt_pool_create(&(gt_pool_config){.workers = 2, .counters = c}, &pool, err, sizeof err) != 0)
        fail_msg("pool with counters: %s", err);
    uint64_t sink = 0;
    uint64_t *psink = &sink;
    void *args[] = {&psink};
    gt_batch b = spin_batch(args);
    gt_batch_result res;
    memset(&res, 0xff, sizeof res);
    assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
    assert_int_equal(res.ncounters, st->nused);
    for (unsigned k = 0; k < GT_COUNTERS_MAX; k++) {
        int64_t sum = 0;
        for (unsigned w = 0; w < res.workers; w++)
            sum += res.worker[w].counters[k];
        assert_int_equal(res.counters[k], sum);
        if (k >= res.ncounters)
            assert_int_equal(res.counters[k], 0);
    }
    int at = index_in_used(st, task_clock);
    if (at >= 0)
        assert_true(res.counters[at] > 0);
    gt_pool_destroy(pool);
    gt_counters_destroy(c);
}

static void pool_without_counters_reports_none(void **state)
{
    (void)state;
    gt_pool *pool = NULL;
    char err[256];
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2}, &pool, err, sizeof err), 0);
    uint64_t sink = 0;
    uint64_t *psink = &sink;
    void *args[] = {&psink};
    gt_batch b = spin_batch(args);
    gt_batch_result res;
    memset(&res, 0xff, sizeof res);
    assert_int_equal(gt_pool_run(pool, &b, &res, err, sizeof err), 0);
    assert_int_equal(res.ncounters, 0);
    for (unsigned k = 0; k < GT_COUNTERS_MAX; k++) {
        assert_int_equal(res.counters[k], 0);
        for (unsigned w = 0; w < res.workers; w++)
            assert_int_equal(res.worker[w].counters[k], 0);
    }
    gt_pool_destroy(pool);
}

static void pool_needs_a_slot_per_worker(void **state)
{
    (void)state;
    gt_counters *c = create_ok(NULL, 0, 1);
    gt_pool *pool = NULL;
    char err[256] = "";
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2, .counters = c}, &pool, err, sizeof err), -EINVAL);
    assert_null(pool);
    assert_non_null(strstr(err, "at least 2 slots"));
    /* the refused pool gave its slot back */
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1, .counters = c}, &pool, err, sizeof err), 0);
    gt_pool_destroy(pool);
    gt_counters_destroy(c);
}

static void counters_serve_one_pool(void **state)
{
    (void)state;
    gt_counters *c = create_ok(NULL, 0, 2);
    gt_pool *first = NULL, *second = NULL;
    char err[256] = "";
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 2, .counters = c}, &first, err, sizeof err), 0);
    assert_int_equal(gt_pool_create(&(gt_pool_config){.workers = 1, .counters = c}, &second, err, sizeof err), -EBUSY);
    assert_null(second);
    assert_non_null(strstr(err, "already attached"));
    gt_pool_destroy(first);
    gt_counters_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bogus_events_fall_back_to_task_clock),
        cmocka_unit_test(default_events_are_each_used_or_unavailable_once),
        cmocka_unit_test(only_task_clock_asked_is_noted_as_software),
        cmocka_unit_test(too_many_events_are_refused),
        cmocka_unit_test(empty_event_names_are_refused),
        cmocka_unit_test(long_and_repeated_event_names_are_refused),
        cmocka_unit_test(zero_slots_are_refused),
        cmocka_unit_test(a_thread_counts_its_task_clock),
        cmocka_unit_test(slots_are_checked_on_attach),
        cmocka_unit_test(pool_sums_its_workers_counters),
        cmocka_unit_test(pool_without_counters_reports_none),
        cmocka_unit_test(pool_needs_a_slot_per_worker),
        cmocka_unit_test(counters_serve_one_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
