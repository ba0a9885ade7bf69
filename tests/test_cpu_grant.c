/* test_cpu_grant.c: the CPU grant (daemon/executor/cpu_grant.c) with members that only record
 * whether they run, on threads of their own: at most one member runs at any time; a holder that
 * never gives the grant back is paused for a waiting member once its slice is over, and
 * resumed when that member is done; with a slice of 0 nobody is paused; a member that ends
 * while paused leaves the line, resumed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/executor/cpu_grant.h"
#include "tuner/clock.h"

#include <pthread.h>
#include <stdatomic.h>

#define GUARD_MS 20000

typedef struct fake {
    gt_grant_member member;
    atomic_bool running; /* holds the grant and is not paused */
    atomic_bool ended;   /* its process is gone: resuming it runs nothing */
    atomic_uint pauses, resumes;
} fake;

static atomic_int runners; /* fakes running now */

static void fake_pause(void *ctx)
{
    fake *f = ctx;
    atomic_store(&f->running, false);
    atomic_fetch_sub(&runners, 1);
    atomic_fetch_add(&f->pauses, 1);
}

static void fake_resume(void *ctx)
{
    fake *f = ctx;
    atomic_fetch_add(&f->resumes, 1);
    if (atomic_load(&f->ended))
        return;
    assert_int_equal(atomic_fetch_add(&runners, 1), 0); /* nobody else runs */
    atomic_store(&f->running, true);
}

static void fake_init(fake *f)
{
    *f = (fake){.member = {.pause = fake_pause, .resume = fake_resume, .ctx = f}};
}

static void acquire(gt_cpu_grant *g, fake *f)
{
    gt_cpu_grant_acquire(g, &f->member);
    assert_int_equal(atomic_fetch_add(&runners, 1), 0);
    atomic_store(&f->running, true);
}

static void release(gt_cpu_grant *g, fake *f)
{
    if (atomic_exchange(&f->running, false))
        atomic_fetch_sub(&runners, 1);
    gt_cpu_grant_release(g, &f->member);
}

typedef struct worker {
    gt_cpu_grant *g;
    fake *f;
    atomic_bool holds, done;
    pthread_t thread;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    acquire(w->g, w->f);
    atomic_store(&w->holds, true);
    release(w->g, w->f);
    atomic_store(&w->done, true);
    return NULL;
}

static void wait_for(atomic_bool *flag, const char *what)
{
    for (uint64_t until = gt_clock_ns() + GUARD_MS * 1000000ull; !atomic_load(flag); gt_clock_sleep_ms(1))
        if (gt_clock_ns() > until)
            fail_msg("%s did not happen within %d s", what, GUARD_MS / 1000);
}

/* A holds and never releases on its own; B asks: after A's slice, A is paused and B runs;
 * when B is done, A is resumed and holds again. */
static void test_a_holder_past_its_slice_is_paused_and_resumed(void **state)
{
    (void)state;
    gt_cpu_grant *g = gt_cpu_grant_new(5);
    fake a, b;
    fake_init(&a);
    fake_init(&b);
    acquire(g, &a);
    worker w = {.g = g, .f = &b};
    assert_int_equal(pthread_create(&w.thread, NULL, worker_main, &w), 0);
    wait_for(&w.done, "B's turn while A held the grant");
    pthread_join(w.thread, NULL);
    assert_int_equal(atomic_load(&a.pauses), 1);
    assert_int_equal(atomic_load(&a.resumes), 1);
    assert_true(atomic_load(&a.running));
    assert_int_equal(gt_cpu_grant_pauses(g), 1);
    release(g, &a);
    assert_int_equal(atomic_load(&runners), 0);
    gt_cpu_grant_free(g);
}

/* Several members asking at once, each holding briefly: all get their turn, never two at once
 * (fake_resume and acquire assert it). */
static void test_members_take_turns(void **state)
{
    (void)state;
    gt_cpu_grant *g = gt_cpu_grant_new(1);
    enum { N = 6, ROUNDS = 50 };
    fake f[N];
    for (int round = 0; round < ROUNDS; round++) {
        worker w[N];
        for (int i = 0; i < N; i++) {
            fake_init(&f[i]);
            w[i] = (worker){.g = g, .f = &f[i]};
            assert_int_equal(pthread_create(&w[i].thread, NULL, worker_main, &w[i]), 0);
        }
        for (int i = 0; i < N; i++) {
            pthread_join(w[i].thread, NULL);
            assert_true(atomic_load(&w[i].done));
        }
    }
    assert_int_equal(atomic_load(&runners), 0);
    gt_cpu_grant_free(g);
}

/* Slice 0: B waits for A's release, and A is never paused. */
static void test_no_slice_never_pauses(void **state)
{
    (void)state;
    gt_cpu_grant *g = gt_cpu_grant_new(0);
    fake a, b;
    fake_init(&a);
    fake_init(&b);
    acquire(g, &a);
    worker w = {.g = g, .f = &b};
    assert_int_equal(pthread_create(&w.thread, NULL, worker_main, &w), 0);
    gt_clock_sleep_ms(20); /* B asks meanwhile; nothing may happen to A */
    assert_false(atomic_load(&w.holds));
    assert_int_equal(atomic_load(&a.pauses), 0);
    release(g, &a);
    wait_for(&w.done, "B's turn after A's release");
    pthread_join(w.thread, NULL);
    assert_int_equal(gt_cpu_grant_pauses(g), 0);
    gt_cpu_grant_free(g);
}

/* try_acquire takes a free grant at once, and never one that is held: then it neither waits
 * nor joins the line, so the holder's release leaves the grant free. */
static void test_try_acquire_takes_only_a_free_grant(void **state)
{
    (void)state;
    gt_cpu_grant *g = gt_cpu_grant_new(5);
    fake a, b;
    fake_init(&a);
    fake_init(&b);
    assert_true(gt_cpu_grant_try_acquire(g, &a.member));
    assert_false(gt_cpu_grant_try_acquire(g, &b.member));
    gt_cpu_grant_release(g, &a.member);
    assert_true(gt_cpu_grant_try_acquire(g, &b.member));
    gt_cpu_grant_release(g, &b.member);
    assert_int_equal(atomic_load(&a.resumes) + atomic_load(&b.resumes), 0); /* neither was paused */
    gt_cpu_grant_free(g);
}

/* A is paused for B, then ends while paused (its process was killed): it leaves the line,
 * resumed, and C gets the grant after B without waiting for A. */
static void test_a_member_ending_while_paused_leaves_the_line(void **state)
{
    (void)state;
    gt_cpu_grant *g = gt_cpu_grant_new(5);
    fake a, b;
    fake_init(&a);
    fake_init(&b);
    acquire(g, &a);
    acquire(g, &b); /* on this thread too: A's slice ends, A is paused, B holds */
    assert_int_equal(atomic_load(&a.pauses), 1);
    atomic_store(&a.ended, true);
    release(g, &a); /* A ends while paused, B still holding */
    assert_int_equal(atomic_load(&a.resumes), 1);
    assert_true(atomic_load(&b.running));
    release(g, &b);
    fake c;
    fake_init(&c);
    worker wc = {.g = g, .f = &c};
    assert_int_equal(pthread_create(&wc.thread, NULL, worker_main, &wc), 0);
    wait_for(&wc.done, "C's turn");
    pthread_join(wc.thread, NULL);
    assert_int_equal(atomic_load(&runners), 0);
    gt_cpu_grant_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_holder_past_its_slice_is_paused_and_resumed),
        cmocka_unit_test(test_members_take_turns),
        cmocka_unit_test(test_no_slice_never_pauses),
        cmocka_unit_test(test_a_member_ending_while_paused_leaves_the_line),
        cmocka_unit_test(test_try_acquire_takes_only_a_free_grant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
