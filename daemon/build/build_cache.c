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
    if (same)
        utimensat(AT_FDCWD, e->so_path, NULL, 0); /* its last use; a failure only makes it look older */
    return same;
}

typedef struct cached_module {
    char hash[GT_HASH_TEXT_MAX];
    struct timespec used;
    uint64_t bytes; /* the module's and its .key's */
} cached_module;

static int by_use(const void *a, const void *b)
{
    const struct timespec *x = &((const cached_module *)a)->used, *y = &((const cached_module *)b)->used;
    return x->tv_sec != y->tv_sec ? (x->tv_sec > y->tv_sec) - (x->tv_sec < y->tv_sec)
                                  : (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* <16 hex digits>.so: an entry's module. */
static bool is_module_name(const char *name)
{
    size_t n = strlen(name);
    if (n != GT_HASH_TEXT_MAX - 1 + 3 || strcmp(name + n - 3, ".so") != 0)
        return false;
    for (size_t i = 0; i < n - 3; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return true;
}

/* The entries in d, into *out (malloc'd, *n of them), and their bytes in all. */
static uint64_t list_modules(DIR *d, cached_module **out, size_t *n)
{
    size_t cap = 0;
    uint64_t total = 0;
    *out = NULL;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat so, key;
        char key_name[GT_HASH_TEXT_MAX + 4];
        if (!is_module_name(e->d_name) || fstatat(dirfd(d), e->d_name, &so, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(so.st_mode))
            continue;
        snprintf(key_name, sizeof key_name, "%.*s.key", GT_HASH_TEXT_MAX - 1, e->d_name);
        uint64_t bytes = (uint64_t)so.st_size;
        if (fstatat(dirfd(d), key_name, &key, AT_SYMLINK_NOFOLLOW) == 0)
            bytes += (uint64_t)key.st_size;
        if (*n == cap) {
            cached_module *more = realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof *more);
            if (!more)
                break; /* what is listed is trimmed; the rest next time */
            *out = more;
        }
        cached_module *m = &(*out)[(*n)++];
        snprintf(m->hash, sizeof m->hash, "%.*s", GT_HASH_TEXT_MAX - 1, e->d_name);
        m->used = so.st_mtim;
        m->bytes = bytes;
        total += bytes;
    }
    return total;
}

unsigned gt_build_cache_trim(const char *dir, uint64_t max_bytes, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    cached_module *mods;
    size_t n;
    uint64_t total = list_modules(d, &mods, &n);
    qsort(mods, n, sizeof *mods, by_use);
    const char *keep_name = keep ? strrchr(keep, '/') : NULL;
    keep_name = keep_name ? keep_name + 1 : keep;
    unsigned removed = 0;
    for (size_t i = 0; i < n && total > max_bytes; i++) {
        char so[GT_HASH_TEXT_MAX + 4], key[GT_HASH_TEXT_MAX + 4];
        snprintf(so, sizeof so, "%s.so", mods[i].hash);
        snprintf(key, sizeof key, "%s.key", mods[i].hash);
        if (keep_name && strcmp(so, keep_name) == 0)
            continue;
        /* the .key first: a module without one is never trusted, nor listed again */
        unlinkat(dirfd(d), key, 0);
        if (unlinkat(dirfd(d), so, 0) == 0 || errno == ENOENT) {
            total -= mods[i].bytes;
            removed++;
        }
    }
    free(mods);
    closedir(d);
    return removed;
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
