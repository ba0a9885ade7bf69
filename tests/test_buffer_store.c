/* test_buffer_store.c: the users' tmpfs stores that buffers are made on (daemon/buffer_store.c).
 * A store is a real detached tmpfs mount; its files get huge pages whatever shmem_enabled says
 * (short of deny), its root is its user's alone, a user without CAP_SYS_ADMIN gets one through
 * a user namespace, and the set of stores knows which files are whose. The tests that change
 * uid run as root and say so when they cannot; where fsopen is not implemented (Linux before
 * 5.2, or valgrind 3.19, which passes it ENOSYS) they say so and skip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/buffer_store.h"
#include "daemon/huge_pages.h"
#include "fixtures/become_user.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534u
#define OTHER 65533u
#define BYTES ((size_t)8 << 20)

/* An unnamed file of BYTES on the store, or -1 with errno. */
static int store_file(int store)
{
    int fd = openat(store, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 && ftruncate(fd, (off_t)BYTES) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The kB of the mapping at data that /proc/self/smaps shows as huge pages of shared memory. */
static unsigned long pmd_mapped_kib(const void *data)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    assert_non_null(f);
    char line[512];
    bool in = false;
    unsigned long kib = 0, start, end, v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
            in = start == (unsigned long)data;
        else if (in && sscanf(line, "ShmemPmdMapped: %lu kB", &v) == 1)
            kib = v;
    }
    fclose(f);
    return kib;
}

/* Maps fd's BYTES, writes every page and returns how much of it is huge pages. */
static unsigned long written_huge_kib(int fd)
{
    char *p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    (void)madvise(p, BYTES, MADV_HUGEPAGE); /* as libgridtune and the executors do */
    memset(p, 1, BYTES);
    unsigned long kib = pmd_mapped_kib(p);
    munmap(p, BYTES);
    return kib;
}

static bool shmem_denied(void)
{
    char mode[24];
    gt_huge_pages_mode(GT_SHMEM_HUGE_PAGES_PATH, mode, sizeof mode);
    return strcmp(mode, "deny") == 0;
}

/* False, after saying so, where this kernel (or valgrind) has no fsopen. */
static bool stores_here(void)
{
    char err[256];
    int fd = gt_buffer_store_mount(geteuid(), NULL, err, sizeof err);
    if (fd == -ENOSYS) {
        print_message("skipped: %s\n", err);
        return false;
    }
    if (fd >= 0)
        close(fd);
    return true;
}

/* stores_here, for the tests that change uid: false, after saying so, when not root. */
static bool root_with_stores(void)
{
    if (geteuid() != 0) {
        print_message("skipped: changing uid needs root\n");
        return false;
    }
    return stores_here();
}

static void a_store_gives_its_files_huge_pages(void **state)
{
    (void)state;
    if (!stores_here())
        return;
    char err[256] = "";
    int store = gt_buffer_store_mount(geteuid(), NULL, err, sizeof err);
    if (store < 0)
        fail_msg("%s", err);
    struct stat st;
    assert_int_equal(fstat(store, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(st.st_uid, geteuid());
    int fd = store_file(store);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    assert_int_equal(fcntl(store, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    unsigned long kib = written_huge_kib(fd);
    print_message("a store file of %zu KiB: %lu KiB in huge pages\n", BYTES >> 10, kib);
    if (shmem_denied())
        assert_int_equal(kib, 0); /* deny takes them from every shared mapping */
    else
        assert_true(kib >= 2048);
    close(fd);
    close(store);
}

/* Runs fn in a child as uid (root only), dumpable again after the change of uid, as a process
 * the user started would be (its /proc/self files are then its own); its exit status. */
static int as_user(uid_t uid, int (*fn)(void *), void *arg)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        become_user(uid, uid, false);
        _exit(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 ? fn(arg) : 99);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* 0 when a file can be made on the store, else the errno (capped). */
static int try_file(void *arg)
{
    int fd = store_file(*(int *)arg);
    return fd >= 0 ? 0 : errno < 99 ? errno : 98;
}

static void each_user_writes_only_their_own_store(void **state)
{
    (void)state;
    if (!root_with_stores())
        return;
    char err[256] = "";
    int store = gt_buffer_store_mount(NOBODY, NULL, err, sizeof err);
    if (store < 0)
        fail_msg("%s", err);
    assert_int_equal(as_user(NOBODY, try_file, &store), 0);
    assert_int_equal(as_user(OTHER, try_file, &store), EACCES);
    close(store);
}

/* In a child without CAP_SYS_ADMIN: its own store through a user namespace, with huge pages;
 * none for another uid. 0, or which check failed. */
static int store_without_privileges(void *arg)
{
    (void)arg;
    char err[256] = "";
    bool namespaced = false;
    int store = gt_buffer_store_mount(getuid(), &namespaced, err, sizeof err);
    if (!user_namespaces_allowed()) /* no user namespaces here: the error must name the step */
        return store < 0 && strstr(err, "unshare") ? 0 : 1;
    if (store < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (!namespaced)
        return 6; /* without CAP_SYS_ADMIN, only the child's namespaces allow the mount */
    int fd = store_file(store);
    if (fd < 0)
        return 3;
    if (!shmem_denied() && written_huge_kib(fd) < 2048)
        return 4;
    if (gt_buffer_store_mount(OTHER, NULL, err, sizeof err) != -EPERM || !strstr(err, "CAP_SYS_ADMIN"))
        return 5;
    return 0;
}

static void without_cap_sys_admin_a_user_gets_a_store_through_a_namespace(void **state)
{
    (void)state;
    if (!root_with_stores())
        return;
    assert_int_equal(as_user(NOBODY, store_without_privileges, NULL), 0);
}

static void the_stores_know_whose_file_is_whose(void **state)
{
    (void)state;
    if (!stores_here())
        return;
    gt_buffer_stores *s = gt_buffer_stores_new(true, NULL);
    assert_non_null(s);
    int mine = gt_buffer_stores_get(s, geteuid());
    assert_true(mine >= 0);
    assert_int_equal(gt_buffer_stores_get(s, geteuid()), mine); /* made once */
    int file = store_file(mine);
    assert_true(file >= 0);
    assert_true(gt_buffer_stores_holds(s, geteuid(), file));
    assert_false(gt_buffer_stores_holds(s, geteuid(), mine)); /* the directory is no buffer */
    assert_false(gt_buffer_stores_holds(s, NOBODY, file));    /* nobody has no store yet */
    int memfd = memfd_create("not-a-store-file", MFD_CLOEXEC);
    assert_true(memfd >= 0);
    assert_false(gt_buffer_stores_holds(s, geteuid(), memfd));
    if (geteuid() == 0) {
        int theirs = gt_buffer_stores_get(s, NOBODY);
        assert_true(theirs >= 0 && theirs != mine);
        int their_file = store_file(theirs);
        assert_true(their_file >= 0);
        assert_true(gt_buffer_stores_holds(s, NOBODY, their_file));
        assert_false(gt_buffer_stores_holds(s, geteuid(), their_file));
        assert_false(gt_buffer_stores_holds(s, NOBODY, file));
        close(their_file);
    }
    const char *why;
    assert_string_equal(gt_buffer_stores_kind(s, &why), "tmpfs");
    assert_string_equal(why, "");
    close(memfd);
    close(file);
    gt_buffer_stores_free(s);
}

static void stores_turned_off_say_why(void **state)
{
    (void)state;
    gt_buffer_stores *s = gt_buffer_stores_new(false, "--buffer-store memfd");
    assert_non_null(s);
    assert_int_equal(gt_buffer_stores_get(s, geteuid()), -1);
    const char *why;
    assert_string_equal(gt_buffer_stores_kind(s, &why), "memfd");
    assert_string_equal(why, "--buffer-store memfd");
    gt_buffer_stores_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_store_gives_its_files_huge_pages),
        cmocka_unit_test(each_user_writes_only_their_own_store),
        cmocka_unit_test(without_cap_sys_admin_a_user_gets_a_store_through_a_namespace),
        cmocka_unit_test(the_stores_know_whose_file_is_whose),
        cmocka_unit_test(stores_turned_off_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
