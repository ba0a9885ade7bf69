/* build_cache.h: the on-disk cache of built kernel modules (internal to gt_build).
 * An entry is <cache>/<hash>.so with <cache>/<hash>.key holding the key text the hash was taken
 * of; build.h describes the layout and why an entry is trusted only on a byte-for-byte match. */
#ifndef GT_BUILD_CACHE_H
#define GT_BUILD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_build_entry {
    const char *dir; /* the cache directory, borrowed */
    char *key;      /* the key text, owned */
    size_t key_len;
    char *so_path;  /* <cache>/<hash>.so */
    char *key_path; /* <cache>/<hash>.key */
} gt_build_entry;

/* Creates dir with missing parents (mode GT_BUILD_CACHE_MODE) and checks it belongs to this user
 * and no one else can write it. 0, or a negative errno with a sentence naming dir. */
int gt_build_cache_ensure(const char *dir, char *err, size_t errlen);

/* Makes a fresh private directory (mode 0700) in dir for one build: the compiler's working
 * directory, and the only place a sandboxed compiler may write. Its name is unique per process,
 * thread and call, and no entry lookup ever reads it. out gets its path. 0, or a negative errno
 * with a sentence. */
int gt_build_dir_create(const char *dir, char *out, size_t outlen, char *err, size_t errlen);
/* Removes a build directory and the files in it; what cannot be removed stays, under a name no
 * lookup reads. */
void gt_build_dir_remove(const char *path);

/* Takes key (malloc'd, key_len bytes; freed with the entry even when this fails) and names its
 * entry in cache_dir, which must outlive the entry. 0 or -ENOMEM. */
int gt_build_entry_init(gt_build_entry *e, const char *cache_dir, char *key, size_t key_len);
void gt_build_entry_free(gt_build_entry *e);

/* Whether the module exists and the .key holds exactly e->key; a hit sets the module's mtime
 * to now, its last use, for gt_build_cache_trim. */
bool gt_build_entry_cached(const gt_build_entry *e);

/* Moves the module at tmp_so (in the cache directory or a build directory in it) into the entry
 * and writes its .key. 0, or a negative errno with a sentence; tmp_so is gone either way. */
int gt_build_entry_publish(const gt_build_entry *e, const char *tmp_so, char *err, size_t errlen);

/* Keeps the entries in dir (a module and its .key) within max_bytes in all, removing those used
 * longest ago (by the module's mtime) first, never keep (a module's path, which may be NULL).
 * Build directories and other files are left alone. Returns how many entries it removed. */
unsigned gt_build_cache_trim(const char *dir, uint64_t max_bytes, const char *keep);

#endif
