/* durable_file.c: mkdir -p, the atomic replace of a file and the cleanup of what dead writers
 * left, for every part of gridtune that keeps state on disk (durable_file.h).
 * A writer holds an flock on its temporary until the rename is done, so that a cleaner can tell
 * a dead writer's file (lockable) from a living one's (locked) without guessing from ages. */
#include "durable_file.h"

#include "sentence.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMPORARY_SUFFIX ".tmp-"
#define TEMPORARY_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" /* mkostemp's */
#define TEMPORARY_TRIES 8

int gt_file_make_dirs(const char *dir, mode_t mode, char *err, size_t errlen)
{
    char *p = strdup(dir);
    if (!p)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory creating %s", dir);
    int rc = 0;
    /* Each prefix that ends before a '/' or at the end, skipping the root's own '/'. */
    for (char *s = *p ? p + 1 : p;; s++) {
        if (*s && *s != '/')
            continue;
        char saved = *s;
        *s = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST) {
            rc = gt_sentence_fail(err, errlen, -errno, "cannot create directory %s: %s", *p ? p : "\"\"", strerror(errno));
            break;
        }
        *s = saved;
        if (!saved)
            break;
    }
    free(p);
    return rc;
}

int gt_file_read_all(int fd, size_t max, char **out, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                free(buf);
                return -EFBIG;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return -ENOMEM;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return -e;
        }
        n += (size_t)got;
    }
    *out = buf;
    *len = n;
    return 0;
}

int gt_file_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int gt_file_sync(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 || fsync(fd) < 0 ? -errno : 0;
    if (fd >= 0)
        close(fd);
    return rc ? gt_sentence_fail(err, errlen, rc, "cannot sync %s: %s", path, strerror(-rc)) : 0;
}

/* The directory part of path: "." for a bare name, "/" for a file in the root. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    return strndup(path, n);
}

static int sync_dir(const char *dir, char *err, size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return gt_sentence_fail(err, errlen, -errno, "cannot open directory %s to sync it: %s", dir, strerror(errno));
    /* Some file systems cannot sync a directory (EINVAL); the rename is then as durable as
       they make it. */
    int rc = fsync(fd) != 0 && errno != EINVAL ? -errno : 0;
    if (rc)
        gt_sentence_fail(err, errlen, rc, "cannot sync directory %s: %s", dir, strerror(-rc));
    close(fd);
    return rc;
}

/* Creates the temporary file named by the template tmp and locks it (see
 * gt_file_remove_stale_temporaries). A cleaner may have removed the file between its creation
 * and the lock: then it has no name any more, and another is made. A negative errno on failure. */
static int locked_temporary(char *tmp)
{
    size_t len = strlen(tmp);
    for (int i = 0; i < TEMPORARY_TRIES; i++) {
        memcpy(tmp + len - 6, "XXXXXX", 6);
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
            return -errno;
        struct stat st;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0)
            return fd;
        close(fd);
    }
    return -EAGAIN;
}

int gt_file_replace(const char *path, const void *data, size_t len, mode_t dir_mode, char *err, size_t errlen)
{
    char *dir = dir_of(path);
    size_t tmp_len = strlen(path) + sizeof TEMPORARY_SUFFIX "XXXXXX";
    char *tmp = malloc(tmp_len);
    bool tmp_exists = false;
    int rc = 0, fd = -1;
    if (!dir || !tmp) {
        rc = gt_sentence_fail(err, errlen, -ENOMEM, "out of memory saving %s", path);
        goto out;
    }
    snprintf(tmp, tmp_len, "%s" TEMPORARY_SUFFIX "XXXXXX", path);
    if (dir_mode && (rc = gt_file_make_dirs(dir, dir_mode, err, errlen)) != 0)
        goto out;
    if ((fd = locked_temporary(tmp)) < 0) {
        rc = gt_sentence_fail(err, errlen, fd, "cannot create a temporary file in %s: %s", dir, strerror(-fd));
        goto out;
    }
    tmp_exists = true;
    rc = gt_file_write_all(fd, data, len);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (rc) {
        gt_sentence_fail(err, errlen, rc, "cannot write %s: %s", tmp, strerror(-rc));
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rc = gt_sentence_fail(err, errlen, -errno, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        goto out;
    }
    tmp_exists = false;
    rc = sync_dir(dir, err, errlen);
out:
    if (tmp_exists)
        unlink(tmp);
    if (fd >= 0)
        close(fd); /* only now: the lock tells gt_file_remove_stale_temporaries the file is in use */
    free(tmp);
    free(dir);
    return rc;
}

/* Only names gt_file_replace makes are touched: <name>.tmp-XXXXXX, regular files of this user.
 * A temporary that can be locked belongs to no living writer. */
unsigned gt_file_remove_stale_temporaries(const char *path)
{
    char *dir = dir_of(path);
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t base_len = strlen(base), suffix_len = strlen(TEMPORARY_SUFFIX);
    DIR *d = dir ? opendir(dir) : NULL;
    unsigned removed = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        const char *suffix = e->d_name + base_len;
        if (strncmp(e->d_name, base, base_len) != 0 || strncmp(suffix, TEMPORARY_SUFFIX, suffix_len) != 0 ||
            strlen(suffix + suffix_len) != 6 || strspn(suffix + suffix_len, TEMPORARY_CHARS) != 6)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
            continue;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
        close(fd);
    }
    if (d)
        closedir(d);
    free(dir);
    return removed;
}
