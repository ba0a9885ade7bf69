/* build.c: the kernel builder: which compiler, what a build is, where it may reach, how one runs.
 * This file finds the compiler and its identity, decides the compiler's confinement (a private
 * build directory, and a Landlock sandbox where the kernel has one), writes the key text that
 * names a build and drives a build through the cache; compiler_run.c runs the compiler in its
 * sandbox, build_options.c vets the options and build_cache.c keeps the modules. */
#include "build.h"

#include "build_cache.h"
#include "build_options.h"
#include "compiler_run.h"
#include "tuner/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const fixed_flags[] = {"-std=c11", "-O3", "-fPIC", "-shared"};
#define N_FIXED_FLAGS (sizeof fixed_flags / sizeof *fixed_flags)
/* argv: the compiler, the fixed flags, -march=native, -I dir, the options, -x c - -o out, NULL */
#define ARGV_MAX (1 + N_FIXED_FLAGS + 1 + 2 + GT_BUILD_MAX_OPTIONS + 5 + 1)
/* The module's name in the build directory, the compiler's working directory. */
#define MODULE_FILE "kernel.so"

/* What a sandboxed compiler may read and run: the system's programs, libraries and headers, and
 * the compiler's own installation (added per builder). The dynamic loader's cache, and the CPU's
 * description for -march=native where the compiler reads it, are read; /dev/null is written. */
static const char *const system_exec_paths[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
#define N_SYSTEM_EXEC_PATHS (sizeof system_exec_paths / sizeof *system_exec_paths)
/* and the compiler's installation prefix, the compiler itself, NULL */
#define EXEC_PATHS_MAX (N_SYSTEM_EXEC_PATHS + 3)
#define SYSTEM_READ_FILES "/etc/ld.so.cache", "/proc/cpuinfo"
#define SYSTEM_WRITE_FILES "/dev/null"
#define CONFINEMENT_MAX 1024

#define KERNEL_HEADER "gridtune/kernel.h"
/* First line of every key text; change it when the key text's layout changes. */
#define KEY_FORMAT "gridtune kernel build 2"
#define CUT_NOTE "\n[diagnostics cut here: the compiler wrote more than this]\n"
#define READ_CHUNK 16384
#define STATUS_TEXT_MAX 64
/* An option value that asks for this machine's CPU. */
#define NATIVE_VALUE "=native"
/* What builds get by default, and the options with which a client picks its own target instead. */
#define NATIVE_MARCH "-march=native"
static const char *const own_target_options[] = {"-march=", "-mcpu="};
#define TARGET_NOTE_MAX 256

struct gt_builder {
    char *cc;          /* the absolute path executed, also argv[0] (a ccache-style link needs it) */
    char *compiler;    /* identity: first line of --version and the path */
    char *flags;       /* the fixed flags as text, -I include_dir included */
    char *cache_dir;   /* absolute */
    char *include_dir; /* absolute */
    char kernel_h[GT_HASH_TEXT_MAX];
    char machine[GT_HASH_TEXT_MAX]; /* gt_machine_signature */
    char native[GT_HASH_TEXT_MAX];  /* what -march=native resolves to, hashed; "": builds are portable */
    char target_note[TARGET_NOTE_MAX];
    unsigned timeout_ms;
    uint64_t max_cache_bytes;
    int landlock_abi;  /* 0: no sandbox, the kernel has none */
    char *cc_real;     /* the file cc resolves to, executable in the sandbox */
    char *cc_prefix;   /* the installation cc lives in (<prefix>/bin/cc), or NULL */
    const char *exec_paths[EXEC_PATHS_MAX];
    const char *read_paths[4]; /* SYSTEM_READ_FILES, include_dir, NULL */
    char confinement[CONFINEMENT_MAX];
};

/* ---- the compiler -------------------------------------------------------------------------- */

static int check_executable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) < 0 || (S_ISREG(st.st_mode) && access(path, X_OK) < 0)) {
        int rc = -errno;
        snprintf(err, errlen, "the compiler %s cannot be run: %s", path, strerror(-rc));
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the compiler %s is not a regular file", path);
        return -EACCES;
    }
    return 0;
}

/* Relative and empty $PATH entries are skipped: a service must not depend on its directory. */
static int search_path(const char *name, char **out, char *err, size_t errlen)
{
    const char *path = getenv("PATH");
    char *dirs = strdup(path && *path ? path : GT_BUILD_CHILD_PATH), *save = NULL;
    if (!dirs)
        return -ENOMEM;
    int rc = -ENOENT;
    for (char *d = strtok_r(dirs, ":", &save); d && rc == -ENOENT; d = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        if (d[0] != '/' || snprintf(cand, sizeof cand, "%s/%s", d, name) >= (int)sizeof cand)
            continue;
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            rc = (*out = strdup(cand)) ? 0 : -ENOMEM;
    }
    if (rc == -ENOENT)
        snprintf(err, errlen, "the compiler \"%s\" was not found in PATH (%s)", name,
                 path && *path ? path : GT_BUILD_CHILD_PATH);
    free(dirs);
    return rc;
}

static int resolve_compiler(const char *cc, char **out, char *err, size_t errlen)
{
    if (!*cc) {
        snprintf(err, errlen, "the compiler's name is empty");
        return -EINVAL;
    }
    if (!strchr(cc, '/'))
        return search_path(cc, out, err, errlen);
    *out = cc[0] == '/' ? strdup(cc) : realpath(cc, NULL);
    if (!*out) {
        int rc = -errno;
        snprintf(err, errlen, "the compiler %s cannot be run: %s", cc, strerror(-rc));
        return rc;
    }
    return check_executable(*out, err, errlen);
}

static bool exited_ok(int status)
{
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void describe_status(int status, char *out, size_t len)
{
    if (WIFEXITED(status))
        snprintf(out, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, len, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(out, len, "ended with wait status %#x", (unsigned)status);
}

static const char *compiler_name(const gt_builder *b)
{
    return strrchr(b->cc, '/') + 1;
}

/* The first line of `cc --version` and the path, with the file it resolves to when that differs
 * (the alternatives system may repoint /usr/bin/cc). */
static int read_identity(gt_builder *b, char *err, size_t errlen)
{
    char *argv[] = {b->cc, "--version", NULL};
    gt_compiler_job job = {.path = b->cc, .argv = argv, .input = "", .timeout_ms = b->timeout_ms,
                           .max_output = GT_BUILD_MAX_DIAGNOSTICS};
    gt_compiler_result res;
    int rc = gt_compiler_run(&job, &res, err, errlen);
    if (rc)
        return rc;
    if (!exited_ok(res.status)) {
        char how[STATUS_TEXT_MAX];
        describe_status(res.status, how, sizeof how);
        snprintf(err, errlen, "the compiler %s cannot tell its version (%s --version %s)", b->cc, compiler_name(b),
                 how);
        free(res.output);
        return -ENOEXEC;
    }
    res.output[strcspn(res.output, "\n")] = '\0';
    const char *line = *res.output ? res.output : "unknown version";
    char *real = realpath(b->cc, NULL);
    if (real && strcmp(real, b->cc) != 0)
        rc = asprintf(&b->compiler, "%s (%s -> %s)", line, b->cc, real);
    else
        rc = asprintf(&b->compiler, "%s (%s)", line, b->cc);
    free(real);
    free(res.output);
    if (rc < 0) {
        b->compiler = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* What -march=native means here, read once: the macros the compiler predefines with it (the ISA
 * extensions and the CPU it tunes for), hashed. It keys the cache, so that a module built for one
 * CPU is never loaded on another (the cache may outlive a change of the virtual machine's CPU
 * model, or move with a home directory). Without it (portable, or a compiler that cannot say),
 * builds are for the compiler's default target. */
static void read_native_target(gt_builder *b, bool portable)
{
    b->native[0] = '\0';
    if (portable) {
        snprintf(b->target_note, sizeof b->target_note,
                 "for the compiler's default target (the default; --native-builds builds for this CPU)");
        return;
    }
    char *argv[] = {b->cc, NATIVE_MARCH, "-dM", "-E", "-x", "c", "-", NULL};
    gt_compiler_job job = {.path = b->cc, .argv = argv, .input = "", .timeout_ms = b->timeout_ms,
                           .max_output = GT_BUILD_MAX_DIAGNOSTICS};
    gt_compiler_result res;
    char why[TARGET_NOTE_MAX / 2];
    int rc = gt_compiler_run(&job, &res, why, sizeof why);
    if (rc == 0 && exited_ok(res.status)) {
        gt_hash_format(gt_hash_bytes(GT_HASH_SEED, res.output, res.len), b->native);
        snprintf(b->target_note, sizeof b->target_note, "for this CPU (" NATIVE_MARCH ", target %s)", b->native);
    } else {
        if (rc == 0)
            describe_status(res.status, why, sizeof why);
        snprintf(b->target_note, sizeof b->target_note,
                 "for the compiler's default target (%s " NATIVE_MARCH " %s)", compiler_name(b), why);
    }
    if (rc == 0)
        free(res.output);
}

/* ---- the kernel header ----------------------------------------------------------------------- */

static int hash_kernel_header(gt_builder *b, const char *include_dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", include_dir, KERNEL_HEADER);
    int rc = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t h = GT_HASH_SEED;
    char buf[READ_CHUNK];
    ssize_t n;
    if (fd < 0)
        rc = -errno;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) != 0) {
        if (n > 0) {
            h = gt_hash_bytes(h, buf, (size_t)n);
        } else if (errno != EINTR) {
            rc = -errno;
            break;
        }
    }
    if (fd >= 0)
        close(fd);
    if (rc)
        snprintf(err, errlen, "cannot read the kernel header %s: %s", path, strerror(-rc));
    gt_hash_format(h, b->kernel_h);
    return rc;
}

/* ---- the compiler's confinement --------------------------------------------------------------- */

/* <prefix> for a compiler at <prefix>/bin/<name>, unless that is the root: a compiler in /bin must
 * not open the whole file system. */
static char *installation_prefix(const char *real)
{
    const char *slash = strrchr(real, '/');
    size_t dir_len = (size_t)(slash - real);
    static const char bin[] = "/bin";
    if (dir_len < sizeof bin || strncmp(real + dir_len - (sizeof bin - 1), bin, sizeof bin - 1) != 0)
        return NULL;
    size_t prefix_len = dir_len - (sizeof bin - 1);
    return prefix_len > 1 ? strndup(real, prefix_len) : NULL;
}

/* Whether path is one of the n dirs or lies beneath one (textually: the paths are resolved). */
static bool beneath_any(const char *const *dirs, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dirs[i]);
        if (strncmp(path, dirs[i], len) == 0 && (path[len] == '/' || !path[len]))
            return true;
    }
    return false;
}

static void describe_confinement(gt_builder *b, const char *why_not)
{
    if (!b->landlock_abi) {
        snprintf(b->confinement, sizeof b->confinement,
                 "the compiler runs in a private build directory with the include path limited to %s and the "
                 "system's headers, but without a sandbox (%s): it can read any file the daemon's user can "
                 "read, and #include \"/absolute/path\" can quote such a file in the diagnostics",
                 b->include_dir, why_not);
        return;
    }
    char *end = b->confinement, *stop = b->confinement + sizeof b->confinement;
    end += snprintf(end, (size_t)(stop - end), "the compiler runs under Landlock (ABI %d): it reads and runs files "
                                                "only under", b->landlock_abi);
    for (size_t i = 0; b->exec_paths[i] && end < stop; i++)
        end += snprintf(end, (size_t)(stop - end), "%s %s", i ? "," : "", b->exec_paths[i]);
    if (end < stop)
        snprintf(end, (size_t)(stop - end), "; reads %s and the loader's cache; and writes only its private build "
                                            "directory under %s%s",
                 b->include_dir, b->cache_dir,
                 b->landlock_abi >= GT_COMPILER_SANDBOX_NET_ABI ? "; TCP is closed to it" : "");
}

/* The sandbox's lists, filled once: only the build directory changes from build to build. */
static int plan_confinement(gt_builder *b)
{
    char why_not[CONFINEMENT_MAX / 2];
    int abi = gt_compiler_sandbox_abi(why_not, sizeof why_not);
    b->landlock_abi = abi > 0 ? abi : 0;
    b->cc_real = realpath(b->cc, NULL);
    if (!b->cc_real)
        return -errno;
    b->cc_prefix = installation_prefix(b->cc_real);
    size_t n = 0;
    for (size_t i = 0; i < N_SYSTEM_EXEC_PATHS; i++)
        if (access(system_exec_paths[i], F_OK) == 0) /* the sentence names only what is there */
            b->exec_paths[n++] = system_exec_paths[i];
    if (b->cc_prefix && !beneath_any(b->exec_paths, n, b->cc_prefix))
        b->exec_paths[n++] = b->cc_prefix;
    if (!beneath_any(b->exec_paths, n, b->cc_real))
        b->exec_paths[n++] = b->cc_real;
    b->exec_paths[n] = NULL;
    const char *read_paths[] = {SYSTEM_READ_FILES, b->include_dir, NULL};
    memcpy(b->read_paths, read_paths, sizeof read_paths);
    describe_confinement(b, why_not);
    return 0;
}

/* ---- the builder ----------------------------------------------------------------------------- */

static int join_flags(gt_builder *b)
{
    size_t len = strlen(b->include_dir) + sizeof " -I ";
    for (size_t i = 0; i < N_FIXED_FLAGS; i++)
        len += strlen(fixed_flags[i]) + 1;
    b->flags = malloc(len);
    if (!b->flags)
        return -ENOMEM;
    char *end = b->flags;
    for (size_t i = 0; i < N_FIXED_FLAGS; i++)
        end += sprintf(end, "%s ", fixed_flags[i]);
    sprintf(end, "-I %s", b->include_dir);
    return 0;
}

static int absolute_dirs(gt_builder *b, const gt_build_config *cfg, char *err, size_t errlen)
{
    b->cache_dir = realpath(cfg->cache_dir, NULL);
    if (!b->cache_dir) {
        int rc = -errno;
        snprintf(err, errlen, "cannot resolve the build cache %s: %s", cfg->cache_dir, strerror(-rc));
        return rc;
    }
    b->include_dir = realpath(cfg->include_dir, NULL);
    if (!b->include_dir) {
        int rc = -errno;
        snprintf(err, errlen, "cannot resolve the include directory %s: %s", cfg->include_dir, strerror(-rc));
        return rc;
    }
    return join_flags(b);
}

static int builder_init(gt_builder *b, const gt_build_config *cfg, char *err, size_t errlen)
{
    int rc = resolve_compiler(cfg->cc ? cfg->cc : GT_BUILD_DEFAULT_CC, &b->cc, err, errlen);
    if (rc == 0)
        rc = read_identity(b, err, errlen);
    if (rc == 0)
        read_native_target(b, cfg->portable);
    if (rc == 0)
        rc = hash_kernel_header(b, cfg->include_dir, err, errlen);
    if (rc == 0)
        rc = gt_build_cache_ensure(cfg->cache_dir, err, errlen);
    if (rc == 0)
        rc = absolute_dirs(b, cfg, err, errlen);
    if (rc == 0 && (rc = plan_confinement(b)) != 0 && rc != -ENOMEM)
        snprintf(err, errlen, "cannot resolve the compiler %s: %s", b->cc, strerror(-rc));
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory setting up the kernel builder");
    return rc;
}

int gt_builder_create(const gt_build_config *cfg, gt_builder **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!cfg || !cfg->cache_dir || !*cfg->cache_dir || !cfg->include_dir || !*cfg->include_dir) {
        snprintf(err, errlen, "the kernel builder needs a cache directory and an include directory");
        return -EINVAL;
    }
    gt_builder *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory for the kernel builder");
        return -ENOMEM;
    }
    b->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : GT_BUILD_DEFAULT_TIMEOUT_MS;
    b->max_cache_bytes = cfg->max_cache_bytes ? cfg->max_cache_bytes : GT_BUILD_DEFAULT_MAX_CACHE_BYTES;
    gt_machine_signature(b->machine, NULL, 0);
    int rc = builder_init(b, cfg, err, errlen);
    if (rc) {
        gt_builder_destroy(b);
        return rc;
    }
    *out = b;
    return 0;
}

void gt_builder_destroy(gt_builder *b)
{
    if (!b)
        return;
    free(b->cc);
    free(b->compiler);
    free(b->flags);
    free(b->cache_dir);
    free(b->include_dir);
    free(b->cc_real);
    free(b->cc_prefix);
    free(b);
}

const char *gt_builder_compiler(const gt_builder *b)
{
    return b->compiler;
}

bool gt_builder_confined(const gt_builder *b)
{
    return b->landlock_abi > 0;
}

const char *gt_builder_confinement(const gt_builder *b)
{
    return b->confinement;
}

const char *gt_builder_target(const gt_builder *b)
{
    return b->target_note;
}

/* ---- building into the cache ----------------------------------------------------------------- */

static char *with_cut_note(gt_compiler_result *res)
{
    if (!res->truncated)
        return res->output;
    char *grown = realloc(res->output, res->len + sizeof CUT_NOTE);
    if (!grown)
        return res->output;
    memcpy(grown + res->len, CUT_NOTE, sizeof CUT_NOTE);
    return grown;
}

static int judge(const gt_builder *b, gt_compiler_result *res, const char *module, char **diagnostics, char *err,
                 size_t errlen)
{
    struct stat st;
    char how[STATUS_TEXT_MAX];
    if (!exited_ok(res->status)) {
        describe_status(res->status, how, sizeof how);
        snprintf(err, errlen, "the kernel source did not compile (%s %s); diagnostics follow", compiler_name(b), how);
    } else if (stat(module, &st) < 0) {
        snprintf(err, errlen, "the compiler %s exited with status 0 but wrote no module; its output follows", b->cc);
    } else {
        free(res->output);
        return 0;
    }
    char *text = with_cut_note(res);
    if (diagnostics)
        *diagnostics = text;
    else
        free(text);
    return -ENOEXEC;
}

/* The hash of what -march=native resolves to when this build gets it: unless builds are
 * portable, or the client's options pick a target of their own; else NULL. */
static const char *native_target(const gt_builder *b, const gt_build_options *o)
{
    if (!b->native[0])
        return NULL;
    for (size_t i = 0; i < o->count; i++)
        for (size_t k = 0; k < sizeof own_target_options / sizeof *own_target_options; k++)
            if (strncmp(o->argv[i], own_target_options[k], strlen(own_target_options[k])) == 0)
                return NULL;
    return b->native;
}

/* Runs the compiler in dir, which is its working directory, its TMPDIR and, in the sandbox, the
 * only place it may write; module is dir/MODULE_FILE, which the command line names relatively. */
static int compile(const gt_builder *b, const gt_build_options *o, const char *source, const char *dir,
                   const char *module, char **diagnostics, char *err, size_t errlen)
{
    char *argv[ARGV_MAX];
    size_t argc = 0;
    argv[argc++] = b->cc;
    for (size_t i = 0; i < N_FIXED_FLAGS; i++)
        argv[argc++] = (char *)fixed_flags[i];
    if (native_target(b, o))
        argv[argc++] = NATIVE_MARCH;
    argv[argc++] = "-I";
    argv[argc++] = b->include_dir;
    for (size_t i = 0; i < o->count; i++)
        argv[argc++] = o->argv[i];
    char *input_and_output[] = {"-x", "c", "-", "-o", MODULE_FILE, NULL};
    memcpy(argv + argc, input_and_output, sizeof input_and_output);

    const char *write_paths[] = {dir, SYSTEM_WRITE_FILES, NULL};
    gt_compiler_sandbox sandbox = {.exec_paths = b->exec_paths, .read_paths = b->read_paths,
                                   .write_paths = write_paths};
    gt_compiler_job job = {.path = b->cc, .argv = argv, .input = source, .input_len = strlen(source),
                           .timeout_ms = b->timeout_ms,
                           .max_output = GT_BUILD_MAX_DIAGNOSTICS - (sizeof CUT_NOTE - 1), .dir = dir,
                           .sandbox = b->landlock_abi ? &sandbox : NULL};
    gt_compiler_result res;
    int rc = gt_compiler_run(&job, &res, err, errlen);
    return rc ? rc : judge(b, &res, module, diagnostics, err, errlen);
}

/* The key text holds everything that makes two builds differ; its hash names the entry. Code built
 * for -march=native (the default target, or an option's) depends on the CPU it resolves to, and
 * an option's =native on the machine too, should the cache be shared. */
static int make_entry(const gt_builder *b, const gt_build_options *o, const char *source, gt_build_entry *e)
{
    char *key;
    const char *machine = strstr(o->text, NATIVE_VALUE) ? b->machine : "any";
    const char *native = native_target(b, o);
    int n = asprintf(&key,
                     KEY_FORMAT "\ncompiler: %s\nflags: %s\ntarget: %s\noptions: %s\nmachine: %s\nkernel.h: %s\n"
                                "source:\n%s",
                     b->compiler, b->flags, native ? native : "default", o->text, machine, b->kernel_h, source);
    if (n < 0) {
        *e = (gt_build_entry){0};
        return -ENOMEM;
    }
    return gt_build_entry_init(e, b->cache_dir, key, (size_t)n);
}

static int build_entry(const gt_builder *b, const gt_build_options *o, const char *source, const gt_build_entry *e,
                       char **diagnostics, char *err, size_t errlen)
{
    char dir[PATH_MAX], module[sizeof dir + sizeof "/" MODULE_FILE];
    int rc = gt_build_dir_create(b->cache_dir, dir, sizeof dir, err, errlen);
    if (rc)
        return rc;
    snprintf(module, sizeof module, "%s/" MODULE_FILE, dir);
    rc = compile(b, o, source, dir, module, diagnostics, err, errlen);
    if (rc == 0)
        rc = gt_build_entry_publish(e, module, err, errlen);
    gt_build_dir_remove(dir); /* with whatever a killed or failed compiler left there */
    if (rc == 0) /* a client building many kernels must not fill the disk */
        gt_build_cache_trim(b->cache_dir, b->max_cache_bytes, e->so_path);
    return rc;
}

int gt_builder_build(gt_builder *b, const char *source, const char *options, char **so_path, bool *cached,
                     char **diagnostics, char *err, size_t errlen)
{
    *so_path = NULL;
    if (cached)
        *cached = false;
    if (diagnostics)
        *diagnostics = NULL;
    if (!source || !*source) {
        snprintf(err, errlen, "the kernel source is empty");
        return -EINVAL;
    }
    gt_build_options o;
    int rc = gt_build_options_parse(options, &o, err, errlen);
    if (rc)
        return rc;
    gt_build_entry e;
    rc = make_entry(b, &o, source, &e);
    if (rc)
        snprintf(err, errlen, "out of memory for the build's cache key");
    if (rc == 0) /* again: someone may have removed it while the daemon runs */
        rc = gt_build_cache_ensure(b->cache_dir, err, errlen);
    bool hit = rc == 0 && gt_build_entry_cached(&e);
    if (rc == 0 && !hit)
        rc = build_entry(b, &o, source, &e, diagnostics, err, errlen);
    if (rc == 0) {
        *so_path = e.so_path;
        e.so_path = NULL;
        if (cached)
            *cached = hit;
    }
    gt_build_entry_free(&e);
    gt_build_options_free(&o);
    return rc;
}
