/* test_durable_file.c: the one mkdir -p and the one atomic replace (tuner/durable_file.h):
 * directories made with their mode, a replaced file whole and alone in its directory, a failure
 * that leaves the old file and says why, and the cleanup that spares a living writer's file. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/temp_dir.h"
#include "tuner/durable_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char dir[512]; /* the temporary directory, removed by teardown */
    char err[1024];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (temp_dir_make(f->dir, sizeof f->dir, "test_durable_file") != 0) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    int rc = temp_dir_remove(f->dir);
    free(f);
    return rc;
}

static void path_in(const fixture *f, const char *name, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s/%s", f->dir, name);
    assert_true(n > 0 && (size_t)n < outlen);
}

static void read_text(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ssize_t n = read(fd, out, size - 1);
    close(fd);
    assert_true(n >= 0);
    out[n] = '\0';
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void make_dirs_creates_parents_with_the_mode(void **state)
{
    fixture *f = *state;
    char deep[PATH_MAX], mid[PATH_MAX];
    path_in(f, "a/b/c", deep, sizeof deep);
    path_in(f, "a/b", mid, sizeof mid);
    assert_int_equal(gt_file_make_dirs(deep, 0700, f->err, sizeof f->err), 0);
    struct stat st;
    assert_int_equal(stat(mid, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(stat(deep, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* Again, and with a trailing slash: what exists is left as it is. */
    strcat(deep, "/");
    assert_int_equal(gt_file_make_dirs(deep, 0700, f->err, sizeof f->err), 0);
}

static void make_dirs_names_the_directory_it_could_not_make(void **state)
{
    fixture *f = *state;
    char file[PATH_MAX], below[PATH_MAX];
    path_in(f, "plain", file, sizeof file);
    path_in(f, "plain/sub/dir", below, sizeof below);
    assert_int_equal(gt_file_replace(file, "x", 1, 0, f->err, sizeof f->err), 0);
    assert_int_equal(gt_file_make_dirs(below, 0700, f->err, sizeof f->err), -ENOTDIR);
    assert_non_null(strstr(f->err, "cannot create directory"));
    assert_non_null(strstr(f->err, "plain/sub"));
    /* No sentence is asked for: no crash either. */
    assert_int_equal(gt_file_make_dirs(below, 0700, NULL, 0), -ENOTDIR);
}

static void replace_writes_the_whole_file_and_leaves_no_temporary(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], dir[PATH_MAX], text[64];
    path_in(f, "made/here/state.json", path, sizeof path);
    path_in(f, "made/here", dir, sizeof dir);
    assert_int_equal(gt_file_replace(path, "first\n", 6, 0700, f->err, sizeof f->err), 0);
    assert_int_equal(gt_file_replace(path, "second\n", 7, 0700, f->err, sizeof f->err), 0);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "second\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(entries(dir), 1);
}

static void replace_without_its_directory_fails_with_a_sentence(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    path_in(f, "missing/state.json", path, sizeof path);
    assert_int_equal(gt_file_replace(path, "x", 1, 0, f->err, sizeof f->err), -ENOENT);
    assert_non_null(strstr(f->err, "cannot create a temporary file in"));
    assert_non_null(strstr(f->err, "missing"));
}

static void replace_failure_keeps_the_old_file(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], text[64];
    path_in(f, "kept", path, sizeof path);
    assert_int_equal(gt_file_replace(path, "old", 3, 0, f->err, sizeof f->err), 0);
    /* Under a file: no temporary can be made there, and the file is not touched. */
    char in_the_way[PATH_MAX + 16];
    snprintf(in_the_way, sizeof in_the_way, "%s/sub", path);
    assert_int_equal(gt_file_replace(in_the_way, "new", 3, 0, f->err, sizeof f->err), -ENOTDIR);
    read_text(path, text, sizeof text);
    assert_string_equal(text, "old");
    assert_int_equal(entries(f->dir), 1);
}

static void make_leftover(const fixture *f, const char *name, char *out, size_t outlen)
{
    path_in(f, name, out, outlen);
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
}

static void stale_temporaries_go_and_held_ones_stay(void **state)
{
    fixture *f = *state;
    char target[PATH_MAX], stale[PATH_MAX], held[PATH_MAX], other[PATH_MAX];
    path_in(f, "state.json", target, sizeof target);
    make_leftover(f, "state.json.tmp-a1B2c3", stale, sizeof stale);
    make_leftover(f, "state.json.tmp-Zz9Yy8", held, sizeof held);
    make_leftover(f, "state.json.tmp-abc", other, sizeof other);
    int lock = open(held, O_RDONLY | O_CLOEXEC);
    assert_true(lock >= 0);
    assert_int_equal(flock(lock, LOCK_EX), 0); /* a living writer */
    assert_int_equal(gt_file_remove_stale_temporaries(target), 1);
    assert_int_equal(access(stale, F_OK), -1);
    assert_int_equal(access(held, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0); /* not a name gt_file_replace makes */
    close(lock);
    assert_int_equal(gt_file_remove_stale_temporaries(target), 1);
    assert_int_equal(access(held, F_OK), -1);
}

static void read_all_stops_at_its_limit(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    path_in(f, "big", path, sizeof path);
    char data[5000];
    memset(data, 'x', sizeof data);
    assert_int_equal(gt_file_replace(path, data, sizeof data, 0, f->err, sizeof f->err), 0);
    char *text = NULL;
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(gt_file_read_all(fd, 4096, &text, &len), -EFBIG);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_int_equal(gt_file_read_all(fd, 1 << 20, &text, &len), 0);
    close(fd);
    assert_int_equal(len, sizeof data);
    assert_memory_equal(text, data, len);
    free(text);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(make_dirs_creates_parents_with_the_mode),
        T(make_dirs_names_the_directory_it_could_not_make),
        T(replace_writes_the_whole_file_and_leaves_no_temporary),
        T(replace_without_its_directory_fails_with_a_sentence),
        T(replace_failure_keeps_the_old_file),
        T(stale_temporaries_go_and_held_ones_stay),
        T(read_all_stops_at_its_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
