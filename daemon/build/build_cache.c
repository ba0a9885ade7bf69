/* build_cache.c: the on-disk cache of built kernel modules, and the builds' private directories.
 * Lookups trust a module only through its .key. New entries are built in a private directory in
 * the cache and written under temporary names, then renamed into place (the .key by
 * tuner/durable_file.h's atomic replace), so a reader in another thread or daemon sees a whole
 * file or none; the order of the renames keeps every .key true to the module beside it. */
#include "build_cache.h"

#include "build.h"
#include "tuner/durable_file.h"
#include "tuner/machine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"
#define READ_CHUNK 16384

/* With the pid and the thread id, makes temporary names unique. */
static atomic_uint next_temp;

/* Anyone who can write the cache can put code into the daemon, hence the owner and mode check. */
int gt_build_cache_ensure(const char *dir, char *err, size_t errlen)
{
    char why[PATH_MAX + 64];
    int rc = gt_file_make_dirs(dir, GT_BUILD_CACHE_MODE, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "the build cache %s: %s", dir, why);
        return rc;
    }
    struct stat st;
    if (stat(dir, &st) < 0) {
        rc = -errno;
        snprintf(err, errlen, "cannot create the build cache %s: %s", dir, strerror(-rc));
        return rc;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the build cache %s is not a directory", dir);
        return -ENOTDIR;
    }
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(err, errlen,
                 "the build cache %s (owner uid %u, mode %03o) must belong to uid %u and be writable by no one "
                 "else: modules are loaded from it",
                 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), (unsigned)geteuid());
        return -EPERM;
    }
    return 0;
}

int gt_build_dir_create(const char *dir, char *out, size_t outlen, char *err, size_t errlen)
{
    int n = snprintf(out, outlen, "%s/" TMP_PREFIX "%ld-%ld-%u", dir, (long)getpid(), (long)gettid(),
                     atomic_fetch_add(&next_temp, 1));
    if (n < 0 || (size_t)n >= outlen) {
        snprintf(err, errlen, "cannot make a build directory in the build cache %s: its path is too long", dir);
        return -ENAMETOOLONG;
    }
    if (mkdir(out, GT_BUILD_CACHE_MODE) < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot make the build directory %s: %s", out, strerror(-rc));
        return rc;
    }
    return 0;
}

/* The compiler makes only files here (in the sandbox it can make nothing else), so one level of
 * unlinks empties the directory. */
void gt_build_dir_remove(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(path);
}

int gt_build_entry_init(gt_build_entry *e, const char *cache_dir, char *key, size_t key_len)
{
    *e = (gt_build_entry){.dir = cache_dir, .key = key, .key_len = key_len};
    char hash[GT_HASH_TEXT_MAX];
    gt_hash_format(gt_hash_bytes(GT_HASH_SEED, key, key_len), hash);
    if (asprintf(&e->so_path, "%s/%s.so", cache_dir, hash) < 0)
        e->so_path = NULL;
    if (asprintf(&e->key_path, "%s/%s.key", cache_dir, hash) < 0)
        e->key_path = NULL;
    return e->so_path && e->key_path ? 0 : -ENOMEM;
}

void gt_build_entry_free(gt_build_entry *e)
{
    free(e->key);
    free(e->so_path);
    free(e->key_path);
    *e = (gt_build_entry){0};
}

static bool same_bytes(int fd, const char *want, size_t len)
{
    char buf[READ_CHUNK];
    size_t off = 0;
    while (off < len) {
        ssize_t n = read(fd, buf, len - off < sizeof buf ? len - off : sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || memcmp(buf, want + off, (size_t)n) != 0)
            return false;
        off += (size_t)n;
    }
    return true;
}

bool gt_build_entry_cached(const gt_build_entry *e)
{
    struct stat st;
    if (stat(e->so_path, &st) < 0 || !S_ISREG(st.st_mode))
        return false;
    int fd = open(e->key_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool same = fstat(fd, &st) == 0 && (size_t)st.st_size == e->key_len && same_bytes(fd, e->key, e->key_len);
    close(fd);
    return same;
}

/* The stale .key goes first and the new one comes last, so at no moment does a .key vouch for
 * a module built from another key text. The module is the compiler's output, synced and renamed
 * in; the .key is written by the atomic replace, whose sync of the directory makes both renames
 * stick. */
int gt_build_entry_publish(const gt_build_entry *e, const char *tmp_so, char *err, size_t errlen)
{
    int rc = gt_file_sync(tmp_so, err, errlen);
    if (rc == 0 && unlink(e->key_path) < 0 && errno != ENOENT) {
        rc = -errno;
        snprintf(err, errlen, "cannot remove the stale key %s: %s", e->key_path, strerror(-rc));
    }
    if (rc == 0 && rename(tmp_so, e->so_path) < 0) {
        rc = -errno;
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp_so, e->so_path, strerror(-rc));
    }
    if (rc == 0)
        rc = gt_file_replace(e->key_path, e->key, e->key_len, 0, err, errlen);
    if (rc)
        unlink(tmp_so);
    return rc;
}
