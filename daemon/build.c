/* build.c: the kernel builder: which compiler, what a build is, and how one runs.
 * This file finds the compiler and its identity, writes the key text that names a build and
 * drives a build through the cache; compiler_run.c runs the compiler, build_options.c vets the
 * options and build_cache.c keeps the modules. */
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
/* argv: the compiler, the fixed flags, -I dir, the options, -x c - -o out, NULL */
#define ARGV_MAX (1 + N_FIXED_FLAGS + 2 + GT_BUILD_MAX_OPTIONS + 5 + 1)

#define KERNEL_HEADER "gridtune/kernel.h"
/* First line of every key text; change it when the key text's layout changes. */
#define KEY_FORMAT "gridtune kernel build 1"
#define CUT_NOTE "\n[diagnostics cut here: the compiler wrote more than this]\n"
#define READ_CHUNK 16384
#define STATUS_TEXT_MAX 64
/* An option value that asks for this machine's CPU. */
#define NATIVE_VALUE "=native"

struct gt_builder {
    char *cc;          /* the absolute path executed, also argv[0] (a ccache-style link needs it) */
    char *compiler;    /* identity: first line of --version and the path */
    char *flags;       /* the fixed flags as text, -I include_dir included */
    char *cache_dir;   /* absolute */
    char *include_dir; /* absolute */
    char kernel_h[GT_HASH_TEXT_MAX];
    char machine[GT_HASH_TEXT_MAX]; /* gt_machine_signature */
    unsigned timeout_ms;
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
        rc = hash_kernel_header(b, cfg->include_dir, err, errlen);
    if (rc == 0)
        rc = gt_build_cache_ensure(cfg->cache_dir, err, errlen);
    if (rc == 0)
        rc = absolute_dirs(b, cfg, err, errlen);
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
    free(b);
}

const char *gt_builder_compiler(const gt_builder *b)
{
    return b->compiler;
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

static int judge(const gt_builder *b, gt_compiler_result *res, const char *out, char **diagnostics, char *err,
                 size_t errlen)
{
    struct stat st;
    char how[STATUS_TEXT_MAX];
    if (!exited_ok(res->status)) {
        describe_status(res->status, how, sizeof how);
        snprintf(err, errlen, "the kernel source did not compile (%s %s); diagnostics follow", compiler_name(b), how);
    } else if (stat(out, &st) < 0) {
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

static int compile(const gt_builder *b, const gt_build_options *o, const char *source, const char *out,
                   char **diagnostics, char *err, size_t errlen)
{
    char *argv[ARGV_MAX];
    size_t argc = 0;
    argv[argc++] = b->cc;
    for (size_t i = 0; i < N_FIXED_FLAGS; i++)
        argv[argc++] = (char *)fixed_flags[i];
    argv[argc++] = "-I";
    argv[argc++] = b->include_dir;
    for (size_t i = 0; i < o->count; i++)
        argv[argc++] = o->argv[i];
    char *input_and_output[] = {"-x", "c", "-", "-o", (char *)out, NULL};
    memcpy(argv + argc, input_and_output, sizeof input_and_output);

    gt_compiler_job job = {.path = b->cc, .argv = argv, .input = source, .input_len = strlen(source),
                           .timeout_ms = b->timeout_ms,
                           .max_output = GT_BUILD_MAX_DIAGNOSTICS - (sizeof CUT_NOTE - 1)};
    gt_compiler_result res;
    int rc = gt_compiler_run(&job, &res, err, errlen);
    return rc ? rc : judge(b, &res, out, diagnostics, err, errlen);
}

/* The key text holds everything that makes two builds differ; its hash names the entry. Code built
 * for -march=native or -mtune=native also depends on the machine, should the cache be shared. */
static int make_entry(const gt_builder *b, const gt_build_options *o, const char *source, gt_build_entry *e)
{
    char *key;
    const char *machine = strstr(o->text, NATIVE_VALUE) ? b->machine : "any";
    int n = asprintf(&key,
                     KEY_FORMAT "\ncompiler: %s\nflags: %s\noptions: %s\nmachine: %s\nkernel.h: %s\nsource:\n%s",
                     b->compiler, b->flags, o->text, machine, b->kernel_h, source);
    if (n < 0) {
        *e = (gt_build_entry){0};
        return -ENOMEM;
    }
    return gt_build_entry_init(e, b->cache_dir, key, (size_t)n);
}

static int build_entry(const gt_builder *b, const gt_build_options *o, const char *source, const gt_build_entry *e,
                       char **diagnostics, char *err, size_t errlen)
{
    char tmp_so[PATH_MAX];
    gt_build_cache_temp_path(b->cache_dir, ".so", tmp_so, sizeof tmp_so);
    int rc = compile(b, o, source, tmp_so, diagnostics, err, errlen);
    if (rc) {
        unlink(tmp_so); /* a killed or failed compiler may leave part of a module */
        return rc;
    }
    rc = gt_build_entry_publish(e, tmp_so);
    if (rc)
        snprintf(err, errlen, "cannot write the build cache %s: %s", b->cache_dir, strerror(-rc));
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
