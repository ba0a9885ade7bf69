/* test_spin.c: polling that yields (engine/spin.c). It says true as soon as the thing polled
 * for is there, false once the time is up, and it lets a thread waiting for its CPU run: two
 * real-time FIFO threads of one priority pinned to one CPU never take the CPU from each other,
 * so the thread that sets the flag runs only when the poller yields; a poller that did not
 * yield would poll out its whole time and say false. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/spin.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

static bool flag_set(void *ctx)
{
    return atomic_load((atomic_bool *)ctx);
}

static bool never(void *ctx)
{
    (*(unsigned *)ctx)++;
    return false;
}

static void test_true_at_once_when_ready(void **state)
{
    (void)state;
    atomic_bool flag = true;
    assert_true(gt_spin_until(0, flag_set, &flag));
}

static void test_false_when_the_time_is_up(void **state)
{
    (void)state;
    unsigned polls = 0;
    assert_false(gt_spin_until(2000000, never, &polls));
    assert_true(polls >= 1);
    polls = 0;
    assert_false(gt_spin_until(0, never, &polls));
    assert_int_equal(polls, 1);
}

typedef struct pair {
    int cpu;
    atomic_bool flag;
    bool seen;
    bool refused; /* no real-time scheduling for this user */
} pair;

static void *poller(void *arg)
{
    pair *p = arg;
    p->seen = gt_spin_until(2000000000u, flag_set, &p->flag); /* 2 s */
    return NULL;
}

static void *setter(void *arg)
{
    atomic_store(&((pair *)arg)->flag, true);
    return NULL;
}

/* Starts fn(arg) as a SCHED_FIFO thread of priority 1 on cpu; false when refused. */
static bool start_fifo(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    struct sched_param param = {.sched_priority = 1};
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &param);
    pthread_attr_setaffinity_np(&a, sizeof one, &one);
    int rc = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc == 0;
}

/* Of the same priority on the same CPU, so neither runs before it blocks in the joins, and the
 * poller, made first, is ahead of the setter in the CPU's FIFO queue. (A thread whose priority
 * is lowered goes to the front of its new priority's queue: the three share one priority so
 * that nobody's is changed.) */
static void *conductor(void *arg)
{
    pair *p = arg;
    pthread_t a, b;
    if (!start_fifo(&a, p->cpu, poller, p))
        return NULL;
    if (!start_fifo(&b, p->cpu, setter, p)) {
        atomic_store(&p->flag, true);
        p->refused = true;
    } else
        pthread_join(b, NULL);
    pthread_join(a, NULL);
    return NULL;
}

static void test_the_poller_lets_a_thread_on_its_cpu_run(void **state)
{
    (void)state;
    cpu_set_t mine;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    pair p = {0};
    while (!CPU_ISSET(p.cpu, &mine))
        p.cpu++;
    pthread_t c;
    if (!start_fifo(&c, p.cpu, conductor, &p))
        skip(); /* no real-time scheduling for this user */
    pthread_join(c, NULL);
    assert_false(p.refused);
    assert_true(p.seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_true_at_once_when_ready),
        cmocka_unit_test(test_false_when_the_time_is_up),
        cmocka_unit_test(test_the_poller_lets_a_thread_on_its_cpu_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
