/* test_usage.c: the per-user and daemon-wide counts behind gridtuned's connection and buffer
 * limits (daemon/usage.c): each limit refuses with a sentence naming its flag, users are
 * counted apart, and what is given back makes room again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/usage.h"

#include <errno.h>
#include <string.h>

static const gt_limits limits = {.max_clients = 3, .max_user_clients = 2, .max_total_buffers = 3,
                                 .max_user_buffers = 2, .max_total_buffer_bytes = 1000, .max_user_buffer_bytes = 600};

static void clients_are_capped_per_user_and_in_all(void **state)
{
    (void)state;
    gt_usage *u = gt_usage_new(&limits);
    char err[256];
    assert_int_equal(gt_usage_client_add(u, 1000, err, sizeof err), 0);
    assert_int_equal(gt_usage_client_add(u, 1000, err, sizeof err), 0);
    assert_int_equal(gt_usage_client_add(u, 1000, err, sizeof err), -EUSERS);
    assert_non_null(strstr(err, "uid 1000 has 2 clients connected"));
    assert_non_null(strstr(err, "--max-user-clients 2"));
    assert_int_equal(gt_usage_client_add(u, 1001, err, sizeof err), 0); /* another user has room */
    assert_int_equal(gt_usage_client_add(u, 1002, err, sizeof err), -EUSERS);
    assert_non_null(strstr(err, "at most 3 clients at once (--max-clients)"));
    gt_usage_client_remove(u, 1000);
    assert_int_equal(gt_usage_total(u).clients, 2);
    assert_int_equal(gt_usage_of(u, 1000).clients, 1);
    assert_int_equal(gt_usage_client_add(u, 1002, err, sizeof err), 0);
    gt_usage_free(u);
}

static void buffers_are_capped_by_count_and_bytes(void **state)
{
    (void)state;
    gt_usage *u = gt_usage_new(&limits);
    char err[256];
    assert_int_equal(gt_usage_buffer_add(u, 1000, 500, err, sizeof err), 0);
    assert_int_equal(gt_usage_buffer_add(u, 1000, 200, err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "bring the buffers of uid 1000 to more than 600 bytes (--max-user-buffer-bytes)"));
    assert_int_equal(gt_usage_buffer_add(u, 1001, 600, err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "buffers of all clients to more than 1000 bytes (--max-total-buffer-bytes)"));
    assert_int_equal(gt_usage_buffer_add(u, 1000, 100, err, sizeof err), 0);
    assert_int_equal(gt_usage_buffer_add(u, 1000, 1, err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "(--max-user-buffers 2)"));
    assert_int_equal(gt_usage_buffer_add(u, 1001, 1, err, sizeof err), 0);
    assert_int_equal(gt_usage_buffer_add(u, 1002, 1, err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "(--max-total-buffers 3)"));
    gt_usage_counts total = gt_usage_total(u);
    assert_int_equal(total.buffers, 3);
    assert_int_equal(total.buffer_bytes, 601);
    gt_usage_buffer_remove(u, 1000, 500);
    gt_usage_buffer_remove(u, 1000, 100);
    assert_int_equal(gt_usage_of(u, 1000).buffers, 0);
    assert_int_equal(gt_usage_of(u, 1000).buffer_bytes, 0);
    assert_int_equal(gt_usage_buffer_add(u, 1002, 600, err, sizeof err), 0);
    gt_usage_free(u);
}

/* A user's entry goes when it holds nothing, and many users come and go without a trace. */
static void users_come_and_go(void **state)
{
    (void)state;
    gt_limits many = limits;
    many.max_clients = 1000;
    gt_usage *u = gt_usage_new(&many);
    char err[256];
    for (unsigned uid = 0; uid < 100; uid++)
        assert_int_equal(gt_usage_client_add(u, uid, err, sizeof err), 0);
    assert_int_equal(gt_usage_buffer_add(u, 7, 10, err, sizeof err), 0);
    for (unsigned uid = 0; uid < 100; uid++)
        gt_usage_client_remove(u, uid);
    assert_int_equal(gt_usage_total(u).clients, 0);
    assert_int_equal(gt_usage_of(u, 7).buffers, 1); /* a launch may hold a buffer past its client */
    gt_usage_buffer_remove(u, 7, 10);
    gt_usage_client_remove(u, 7); /* nothing left to remove: no underflow */
    gt_usage_counts total = gt_usage_total(u);
    assert_int_equal(total.clients + total.buffers + total.buffer_bytes, 0);
    gt_usage_free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clients_are_capped_per_user_and_in_all),
        cmocka_unit_test(buffers_are_capped_by_count_and_bytes),
        cmocka_unit_test(users_come_and_go),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
