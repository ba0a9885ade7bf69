/* build.h: compiling clients' kernel sources into modules, with an on-disk cache.
 * A client may send the C source of a kernel module instead of a path; the daemon runs the
 * system C compiler on it (execve, no shell, a minimal environment, a deadline, an allow list of
 * options, a private build directory and, where the kernel has Landlock, a sandbox that keeps its
 * reads to the system's files and kernel.h's directory and its writes to the build directory) and
 * keeps the shared object in a cache keyed by everything that went into it. gt_module_open loads
 * it. The sandbox guards the daemon's files from the compiler, not the daemon from the kernel: the
 * module runs as the daemon's user, its constructors as soon as it is loaded. */
#ifndef GT_BUILD_H
#define GT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_BUILD_DEFAULT_CC "cc"
#define GT_BUILD_DEFAULT_TIMEOUT_MS 60000u
/* The cache's modules and keys, in bytes, past which each build removes those used longest ago. */
#define GT_BUILD_DEFAULT_MAX_CACHE_BYTES ((uint64_t)1 << 30)
/* Compiler output kept for a failed build, the note saying it was cut included. */
#define GT_BUILD_MAX_DIAGNOSTICS (64u * 1024u)
/* Limits on a build's options: how many, and the length of one. */
#define GT_BUILD_MAX_OPTIONS 64u
#define GT_BUILD_MAX_OPTION_LEN 256u
/* The cache directory, and any parent it has to create, get this mode. */
#define GT_BUILD_CACHE_MODE 0700
/* The compiler's whole environment is PATH=GT_BUILD_CHILD_PATH and LC_ALL=GT_BUILD_CHILD_LOCALE.
 * GT_BUILD_CHILD_PATH is also where a compiler name is looked up when the daemon has no $PATH. */
#define GT_BUILD_CHILD_PATH "/usr/local/bin:/usr/bin:/bin"
#define GT_BUILD_CHILD_LOCALE "C"

typedef struct gt_build_config {
    const char *cc;          /* an absolute path, or a name looked up in $PATH; NULL = GT_BUILD_DEFAULT_CC */
    const char *cache_dir;   /* created (with missing parents, GT_BUILD_CACHE_MODE) if missing */
    const char *include_dir; /* the directory holding gridtune/kernel.h */
    unsigned timeout_ms;     /* the compiler is killed after this long; 0 = GT_BUILD_DEFAULT_TIMEOUT_MS */
    bool portable;           /* build for the compiler's default target, not -march=native */
    uint64_t max_cache_bytes; /* 0 = GT_BUILD_DEFAULT_MAX_CACHE_BYTES; see gt_builder_build */
} gt_build_config;

typedef struct gt_builder gt_builder;

/* Resolves the compiler to an absolute path, reads its identity once (the first line of
 * `cc --version`, run the way builds run, plus the path) and, unless cfg->portable, what
 * -march=native resolves to (the macros `cc -march=native -dM -E` predefines, hashed; a compiler
 * that cannot say makes builds portable), hashes include_dir/gridtune/kernel.h and creates the
 * cache directory. The cache must belong to this user and be writable by no one
 * else: modules are loaded from it. Returns 0, or with a sentence in err: -ENOENT when the
 * compiler or kernel.h cannot be found, -ENOEXEC when `cc --version` fails, -EPERM for a cache
 * others could write, another negative errno for system failures. The config is copied. */
int gt_builder_create(const gt_build_config *cfg, gt_builder **out, char *err, size_t errlen);
void gt_builder_destroy(gt_builder *b);
/* The identity that keys the cache, owned by b, e.g.
 * "cc (Debian 12.2.0-14) 12.2.0 (/usr/bin/cc -> /usr/bin/x86_64-linux-gnu-gcc-12)". */
const char *gt_builder_compiler(const gt_builder *b);
/* Whether builds run in the Landlock sandbox (the kernel has Landlock), and a sentence, owned by
 * b, that says what confines the compiler, or that nothing but its directory and include path do:
 * the daemon logs it, so that whoever enables builds knows what a client's source can read. */
bool gt_builder_confined(const gt_builder *b);
const char *gt_builder_confinement(const gt_builder *b);
/* What builds are for, owned by b, to follow "kernel builds are ": this CPU (-march=native, and
 * the hash of what it resolves to), or the compiler's default target and why. */
const char *gt_builder_target(const gt_builder *b);

/* Compiles source (NUL-terminated C, fed on stdin so diagnostics read "<stdin>:3:5: ...") with
 * extra options (NULL or "" for none; split on white space) into a module in the cache, or finds
 * it there. The command is `cc -std=c11 -O3 -fPIC -shared [-march=native] -I <include_dir>
 * <options> -x c - -o kernel.so`, -march=native unless the builder is portable or the options
 * hold a -march= or -mcpu= of their own (the client's target wins), run in a fresh directory <cache>/.tmp-* (its working directory and TMPDIR, removed
 * after the build) and, when gt_builder_confined, in the Landlock sandbox: an #include of any
 * other file then fails with "Permission denied" and its contents never reach the diagnostics.
 * Thread-safe: builds may run concurrently from several threads (two identical builds at once
 * both compile; either result is the same module). The compiler is reaped by pid, so the process
 * must not reap children it did not start (no waitpid(-1) in a SIGCHLD handler).
 * On success returns 0, *so_path (malloc'd, the caller frees) names the module file and *cached
 * (may be NULL) says whether it was reused. On failure *so_path is NULL and, with a sentence in err:
 *   -ENOEXEC: the compiler failed; *diagnostics (malloc'd, the caller frees) holds its output, at
 *             most GT_BUILD_MAX_DIAGNOSTICS bytes with a note when cut;
 *   -ETIME:   the time limit passed; the compiler's whole process group was killed and reaped;
 *   -EINVAL:  an option outside the allowed list (the sentence names it and why), or an empty source;
 *   another negative errno for system failures (cannot write the cache, cannot spawn, ...).
 * diagnostics may be NULL; otherwise *diagnostics is NULL except after -ENOEXEC.
 *
 * Cache layout: <cache>/<key>.so and <cache>/<key>.key, where <key> is the FNV-1a 64 hash of the
 * key text (compiler identity, fixed flags, the target: what -march=native resolves to when the
 * build gets it, else "default", options, kernel.h's hash, source, and the machine's signature
 * when an option asks for =native) and the .key file
 * holds that text. An entry is used only when its .key matches byte for byte, so a missing or
 * tampered .key, or a 64-bit collision, is a miss and the entry is rebuilt over (two colliding
 * sources would take turns, never be confused). Both files are written under temporary names in
 * the cache (the module in its build directory) and renamed into place, the stale .key removed
 * first and the new .key last, so a .key never vouches for a module it does not describe. A daemon
 * killed mid-build may leave .tmp-* files and directories behind; they are never read. After a
 * build the cache keeps its entries within max_cache_bytes, removing those used longest ago (a
 * hit counts as a use), never the one just built. */
int gt_builder_build(gt_builder *b, const char *source, const char *options, char **so_path, bool *cached,
                     char **diagnostics, char *err, size_t errlen);

#endif
