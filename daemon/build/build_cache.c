/* build_cache.c: the on-disk cache of built kernel modules, and the builds' private directories.
 * Lookups trust a module only through its .key. New entries are built in a private directory in
 * the cache and written under temporary names, then renamed into place, so a reader in another
 * thread or daemon sees a whole file or none; the order of the renames keeps every .key true to
 * the module beside it. */
#include "build_cache.h"

#include "build.h"
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
#define KEY_FILE_MODE 0600
#define READ_CHUNK 16384
#define TMP_SUFFIX_KEY ".key"

/* With the pid and the thread id, makes temporary names unique. */
static atomic_uint next_temp;

/* mkdir -p */
static int make_dirs(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int rc = mkdir(path, GT_BUILD_CACHE_MODE) < 0 && errno != EEXIST ? -errno : 0;
        *p = '/';
        if (rc)
            return rc;
    }
    return mkdir(path, GT_BUILD_CACHE_MODE) < 0 && errno != EEXIST ? -errno : 0;
}

/* Anyone who can write the cache can put code into the daemon, hence the owner and mode check. */
int gt_build_cache_ensure(const char *dir, char *err, size_t errlen)
{
    char *copy = strdup(dir);
    int rc = copy ? make_dirs(copy) : -ENOMEM;
    free(copy);
    struct stat st;
    if (rc == 0 && stat(dir, &st) < 0)
        rc = -errno;
    if (rc) {
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

void gt_build_cache_temp_path(const char *dir, const char *suffix, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/" TMP_PREFIX "%ld-%ld-%u%s", dir, (long)getpid(), (long)gettid(),
             atomic_fetch_add(&next_temp, 1), suffix);
}

int gt_build_dir_create(const char *dir, char *out, size_t outlen)
{
    gt_build_cache_temp_path(dir, "", out, outlen);
    return mkdir(out, GT_BUILD_CACHE_MODE) < 0 ? -errno : 0;
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

static int write_file(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, KEY_FILE_MODE);
    if (fd < 0)
        return -errno;
    int rc = 0;
    for (size_t off = 0; off < len && rc == 0;) {
        ssize_t n = write(fd, data + off, len - off);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && errno != EINTR)
            rc = -errno;
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

/* A renamed file must be whole after a crash too, not only to other processes. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 || fsync(fd) < 0 ? -errno : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The stale .key goes first and the new one comes last, so at no moment does a .key vouch for
 * a module built from another key text. */
int gt_build_entry_publish(const gt_build_entry *e, const char *tmp_so)
{
    char tmp_key[PATH_MAX];
    gt_build_cache_temp_path(e->dir, TMP_SUFFIX_KEY, tmp_key, sizeof tmp_key);
    int rc = sync_file(tmp_so);
    if (rc == 0)
        rc = write_file(tmp_key, e->key, e->key_len);
    if (rc == 0 && unlink(e->key_path) < 0 && errno != ENOENT)
        rc = -errno;
    if (rc == 0 && rename(tmp_so, e->so_path) < 0)
        rc = -errno;
    if (rc == 0 && rename(tmp_key, e->key_path) < 0)
        rc = -errno;
    if (rc) {
        unlink(tmp_so);
        unlink(tmp_key);
    }
    return rc;
}
