/* test_guarded_map.c: buffers between guard regions (engine/guarded_map.h), with real memfds
 * and real faults in forked children. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/guarded_map.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BYTES 10000 /* not a multiple of the page */

static int make_memfd(size_t size)
{
    int fd = memfd_create("gridtune-buffer", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    return fd;
}

/* A memfd of size bytes, mapped between guards; its descriptor in *fd. */
static gt_guarded_map open_map(size_t size, int *fd)
{
    *fd = make_memfd(size);
    gt_guarded_map m;
    char err[256];
    if (gt_guarded_map_open(*fd, size, &m, err, sizeof err) != 0)
        fail_msg("mapping %zu bytes: %s", size, err);
    return m;
}

/* What a write at p does in a child: 0 when it returns, else the signal that ended it. */
static int write_in_child(volatile unsigned char *p)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* cmocka's handlers would catch it */
        signal(SIGBUS, SIG_DFL);
        *p = 1;
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void test_the_mapping_is_the_memfds_bytes(void **state)
{
    (void)state;
    int fd;
    gt_guarded_map m = open_map(BYTES, &fd);
    unsigned char *data = m.data;
    data[0] = 7;
    data[BYTES - 1] = 9;
    unsigned char got[2];
    assert_int_equal(pread(fd, &got[0], 1, 0), 1);
    assert_int_equal(pread(fd, &got[1], 1, BYTES - 1), 1);
    assert_int_equal(got[0], 7);
    assert_int_equal(got[1], 9);
    gt_guarded_map_close(&m);
    close(fd);
}

static void test_overruns_and_underruns_fault(void **state)
{
    (void)state;
    int fd;
    gt_guarded_map m = open_map(BYTES, &fd);
    unsigned char *data = m.data;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (BYTES + page - 1) / page * page;
    assert_int_equal(write_in_child(data + BYTES - 1), 0);
    assert_int_equal(write_in_child(data + span - 1), 0); /* the last page's tail: the page is the unit */
    assert_int_equal(write_in_child(data + span), SIGSEGV);
    assert_int_equal(write_in_child(data + span + GT_GUARD_AFTER - 1), SIGSEGV);
    assert_int_equal(write_in_child(data - 1), SIGSEGV);
    assert_int_equal(write_in_child(data - GT_GUARD_BEFORE), SIGSEGV);
    gt_guarded_map_close(&m);
    close(fd);
}

/* A large buffer starts on a 2 MiB boundary, so that it can get huge pages. */
static void test_a_large_buffer_is_aligned_for_huge_pages(void **state)
{
    (void)state;
    size_t size = (size_t)3 << 20;
    int fd;
    gt_guarded_map m = open_map(size, &fd);
    assert_int_equal((uintptr_t)m.data % ((uintptr_t)2 << 20), 0);
    assert_true((char *)m.data - (char *)m.base >= (ptrdiff_t)GT_GUARD_BEFORE);
    gt_guarded_map_close(&m);
    close(fd);
}

/* Closing gives the whole reservation back: the same range can be mapped anew. */
static void test_close_releases_the_reservation(void **state)
{
    (void)state;
    int fd;
    gt_guarded_map m = open_map(BYTES, &fd);
    void *base = m.base;
    size_t total = m.total;
    gt_guarded_map_close(&m);
    assert_null(m.data);
    void *again = mmap(base, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    assert_ptr_equal(again, base);
    munmap(again, total);
    close(fd);
}

static void test_bad_input_is_refused(void **state)
{
    (void)state;
    gt_guarded_map m;
    char err[256];
    assert_int_equal(gt_guarded_map_open(-1, BYTES, &m, err, sizeof err), -EBADF);
    assert_non_null(strstr(err, "cannot map"));
    int fd = make_memfd(BYTES);
    assert_int_equal(gt_guarded_map_open(fd, 0, &m, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "0 bytes"));
    assert_int_equal(gt_guarded_map_open(fd, SIZE_MAX - 100, &m, err, sizeof err), -EINVAL);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_mapping_is_the_memfds_bytes),
        cmocka_unit_test(test_overruns_and_underruns_fault),
        cmocka_unit_test(test_a_large_buffer_is_aligned_for_huge_pages),
        cmocka_unit_test(test_close_releases_the_reservation),
        cmocka_unit_test(test_bad_input_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
