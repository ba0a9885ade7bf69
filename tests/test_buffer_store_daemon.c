/* test_buffer_store_daemon.c: where gridtuned's clients make their buffers.
 *
 * By default the hello answer brings the user's buffer store (daemon/buffer_store.h), and
 * libgridtune makes each buffer there: the client's mapping is an unnamed file on it, the
 * status says "tmpfs", and the executor's mapping of a populated buffer is huge pages. With
 * --buffer-store memfd, and with --isolation none (where gridtuned maps buffers itself), buffers
 * are sealed memfds and the status says why. A store's files cannot be sealed, so gridtuned takes
 * them unsealed from their own user's store only: an unsealed tmpfs file from elsewhere is
 * refused. And a client that shrinks its buffer under a launch fails that launch (SIGBUS in its
 * executor), while gridtuned and the other clients go on. Where the daemon cannot make stores
 * because fsopen is not implemented (Linux before 5.2, valgrind 3.19) the store tests say so
 * and skip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/become_user.h"
#include "tests/fixtures/daemon_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 16 MiB of int32: eight huge pages. */
#define ITEMS (4u << 20)
#define BYTES ((size_t)ITEMS * sizeof(int32_t))

static const char *status_text(const cJSON *st, const char *key)
{
    const char *v = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "buffers"), key));
    if (!v)
        fail_msg("the status has no buffers.%s", key);
    return v;
}

/* The status's buffers.store into store and its store_note into note, each of len bytes. */
static void store_of(gt_client *c, char *store, char *note, size_t len)
{
    cJSON *st = daemon_fixture_status(c);
    snprintf(store, len, "%s", status_text(st, "store"));
    snprintf(note, len, "%s", status_text(st, "store_note"));
    cJSON_Delete(st);
}

/* This process's /proc/self/maps line of the mapping that starts at data. */
static void maps_line(const void *data, char *line, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "re");
    assert_non_null(f);
    unsigned long start;
    bool found = false;
    while (!found && fgets(line, (int)len, f))
        found = sscanf(line, "%lx-", &start) == 1 && start == (unsigned long)data;
    fclose(f);
    if (!found)
        fail_msg("no mapping starts at %p", data);
}

/* fill over the buffer's first `items` int32s; 0 with every element checked, or the launch's
 * error (its sentence in gt_last_error). */
static int fill(gt_client *c, gt_kernel *k, gt_buffer *b, uint32_t items, int32_t v)
{
    gt_range range = {.dims = 1, .global = {items}, .local = {256}};
    gt_arg args[] = {gt_arg_buffer(b), gt_arg_i32(v)};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    gt_event ev;
    int rc = gt_launch(c, k, &range, args, 2, &opts, &ev);
    if (rc)
        return rc;
    rc = gt_wait(c, ev);
    gt_event_release(c, ev);
    if (rc)
        return rc;
    const int32_t *data = gt_buffer_data(b);
    for (uint32_t i = 0; i < items; i++)
        if (data[i] != v + (int32_t)i)
            fail_msg("element %u is %d, not %d", i, data[i], v + (int32_t)i);
    return 0;
}

/* A daemon started with extra, a client with fill loaded and a new buffer of `bytes`, the
 * status's buffers.store and store_note, and the buffer's line of /proc/self/maps. */
typedef struct rig {
    daemon_fixture fx;
    gt_client *c;
    gt_kernel *k;
    gt_buffer *b;
    char store[256], note[256], line[512];
} rig;

/* True, after saying so, when gridtuned's status says it could make no store because this
 * kernel (or valgrind) has no fsopen. */
static bool no_fsopen(gt_client *c)
{
    char store[256], note[256];
    store_of(c, store, note, sizeof note);
    bool none = strcmp(store, "memfd") == 0 && strstr(note, "fsopen") && strstr(note, strerror(ENOSYS));
    if (none)
        print_message("skipped: %s\n", note);
    return none;
}

/* without_caps: gridtuned runs without CAP_SYS_ADMIN (and BPF's), as a user's own would. */
static void rig_start_as(rig *r, const char *const *extra, size_t bytes, bool without_caps)
{
    daemon_fixture_start_as(&r->fx, NULL, extra, without_caps);
    r->c = daemon_fixture_connect(&r->fx);
    store_of(r->c, r->store, r->note, sizeof r->note);
    assert_int_equal(gt_kernel_load(r->c, GT_TEST_DAEMON_MODULE, "fill", &r->k), 0);
    assert_int_equal(gt_buffer_create(r->c, bytes, &r->b), 0);
    maps_line(gt_buffer_data(r->b), r->line, sizeof r->line);
}

static void rig_start(rig *r, const char *const *extra, size_t bytes)
{
    rig_start_as(r, extra, bytes, false);
}

static void rig_finish(rig *r)
{
    gt_buffer_release(r->b);
    gt_kernel_release(r->k);
    gt_disconnect(r->c);
    daemon_fixture_finish(&r->fx);
}

/* The default daemon, or one without CAP_SYS_ADMIN, which makes its user's store in a child
 * with namespaces of its own: the buffer is a store file, and huge pages in the executor. */
static void expect_store(bool without_caps)
{
    rig r;
    rig_start_as(&r, NULL, BYTES, without_caps);
    if (no_fsopen(r.c)) {
        rig_finish(&r);
        return;
    }
    assert_string_equal(r.store, "tmpfs");
    assert_string_equal(r.note, "");
    if (!daemon_fixture_is_store_file(r.line))
        fail_msg("the buffer's mapping is not a file on a store: %s", r.line);
    if (fill(r.c, r.k, r.b, ITEMS, 3) != 0)
        fail_msg("fill: %s", gt_last_error(r.c));
    unsigned long huge = daemon_fixture_buffer_huge_kib(&r.fx);
    print_message("the executor's mapping of the %zu KiB buffer: %lu KiB in huge pages\n", BYTES >> 10, huge);
    if (daemon_fixture_file_has("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "[deny]"))
        assert_int_equal(huge, 0); /* deny takes them from every shared mapping */
    else
        assert_true(huge >= 2048);
    /* which way the store was made, as the log says */
    bool namespaced = daemon_fixture_log_has_line(&r.fx, "made in a user namespace (gridtuned lacks CAP_SYS_ADMIN)");
    if (namespaced != without_caps)
        fail_msg("the store was made %s a user namespace", namespaced ? "in" : "outside");
    rig_finish(&r);
}

static void buffers_are_made_on_the_users_store_with_huge_pages(void **state)
{
    (void)state;
    expect_store(false);
}

static void a_daemon_without_cap_sys_admin_makes_its_store_in_a_namespace(void **state)
{
    (void)state;
    if (geteuid() != 0) { /* a daemon of this user lacks it anyway: the case above */
        print_message("skipped: dropping capabilities from gridtuned needs root\n");
        return;
    }
    if (!user_namespaces_allowed()) {
        print_message("skipped: this machine allows no user namespaces\n");
        return;
    }
    expect_store(true);
}

/* A daemon started with extra: buffers are memfds, and the status's note contains why. */
static void expect_memfds(const char *const *extra, const char *why)
{
    rig r;
    rig_start(&r, extra, 1 << 20);
    assert_string_equal(r.store, "memfd");
    if (!strstr(r.note, why))
        fail_msg("the status's store_note \"%s\" does not say \"%s\"", r.note, why);
    assert_non_null(strstr(r.line, "memfd:gridtune-buffer"));
    if (fill(r.c, r.k, r.b, (1 << 20) / 4, 7) != 0) {
        if (!strstr(gt_last_error(r.c), "cannot enter its sandbox"))
            fail_msg("fill: %s", gt_last_error(r.c));
        print_message("launch not checked: %s\n", gt_last_error(r.c)); /* no seccomp here: valgrind, for one */
    }
    rig_finish(&r);
}

static void buffer_store_memfd_makes_memfds(void **state)
{
    (void)state;
    expect_memfds((const char *const[]){"--buffer-store", "memfd", NULL}, "--buffer-store memfd");
}

static void without_executors_buffers_are_memfds(void **state)
{
    (void)state;
    expect_memfds((const char *const[]){"--isolation", "none", NULL}, "--isolation none");
}

/* buffer_create of fd (size bytes) from a raw client: the answer, whole. */
static cJSON *create_from(raw_client *rc, uint64_t id, int fd, size_t size)
{
    char req[128];
    snprintf(req, sizeof req, "{\"type\":\"buffer_create\",\"id\":%" PRIu64 ",\"size\":%zu}", id, size);
    return raw_client_call(rc, req, &fd, 1);
}

static void only_the_senders_store_files_come_unsealed(void **state)
{
    (void)state;
    daemon_fixture fx;
    daemon_fixture_start(&fx, NULL, NULL);
    gt_client *c = daemon_fixture_connect(&fx);
    bool skip = no_fsopen(c);
    gt_disconnect(c);
    if (skip) {
        daemon_fixture_finish(&fx);
        return;
    }
    raw_client rc;
    raw_client_open_hello(&rc, &fx);
    if (rc.store < 0)
        fail_msg("the hello answer brought no buffer store");
    int mine = openat(rc.store, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    assert_true(mine >= 0);
    assert_int_equal(ftruncate(mine, 4096), 0);
    cJSON *answer = create_from(&rc, 2, mine, 4096);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(answer, "buffer")));
    cJSON_Delete(answer);

    int elsewhere = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); /* a tmpfs, not the store */
    assert_true(elsewhere >= 0);
    assert_int_equal(ftruncate(elsewhere, 4096), 0);
    answer = create_from(&rc, 3, elsewhere, 4096);
    const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "code"));
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(answer, "message"));
    assert_non_null(code);
    assert_string_equal(code, "bad_buffer");
    assert_non_null(message);
    assert_non_null(strstr(message, "F_SEAL_SHRINK"));
    cJSON_Delete(answer);
    close(elsewhere);
    close(mine);
    raw_client_close(&rc);
    daemon_fixture_finish(&fx);
}

static void a_buffer_shrunk_under_a_launch_fails_only_that_launch(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        print_message("skipped: reopening the buffer's file through /proc/self/map_files needs root\n");
        return;
    }
    daemon_fixture fx;
    daemon_fixture_start(&fx, NULL, NULL);
    gt_client *bad = daemon_fixture_connect(&fx), *good = daemon_fixture_connect(&fx);
    if (no_fsopen(good)) {
        gt_disconnect(bad);
        gt_disconnect(good);
        daemon_fixture_finish(&fx);
        return;
    }
    gt_kernel *bk, *gk;
    gt_buffer *bb, *gb;
    assert_int_equal(gt_kernel_load(bad, GT_TEST_DAEMON_MODULE, "fill", &bk), 0);
    assert_int_equal(gt_kernel_load(good, GT_TEST_DAEMON_MODULE, "fill", &gk), 0);
    assert_int_equal(gt_buffer_create(bad, BYTES, &bb), 0);
    assert_int_equal(gt_buffer_create(good, BYTES, &gb), 0);
    assert_int_equal(fill(good, gk, gb, ITEMS, 1), 0);
    /* libgridtune closed its descriptor; the mapping still names the file */
    char path[96];
    snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", (unsigned long)gt_buffer_data(bb),
             (unsigned long)gt_buffer_data(bb) + BYTES);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    assert_int_equal(ftruncate(fd, 0), 0);
    close(fd);
    int rc = fill(bad, bk, bb, ITEMS, 2); /* does not touch our own mapping: it fails first */
    assert_int_not_equal(rc, 0);
    print_message("the shrunk buffer's launch: %d: %s\n", rc, gt_last_error(bad));
    assert_non_null(strstr(gt_last_error(bad), "SIGBUS"));
    assert_int_equal(fill(good, gk, gb, ITEMS, 4), 0); /* gridtuned and the other client go on */
    gt_buffer_release(gb);
    gt_kernel_release(gk);
    gt_disconnect(good);
    gt_disconnect(bad); /* unmapping the shrunk buffer touches none of its pages */
    daemon_fixture_finish(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffers_are_made_on_the_users_store_with_huge_pages),
        cmocka_unit_test(a_daemon_without_cap_sys_admin_makes_its_store_in_a_namespace),
        cmocka_unit_test(buffer_store_memfd_makes_memfds),
        cmocka_unit_test(without_executors_buffers_are_memfds),
        cmocka_unit_test(only_the_senders_store_files_come_unsealed),
        cmocka_unit_test(a_buffer_shrunk_under_a_launch_fails_only_that_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
