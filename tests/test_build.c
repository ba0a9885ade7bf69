/* test_build.c: the online kernel compiler, its confinement and its cache.
 * Builds run the system compiler where the module's contents matter, and fake compilers (small
 * shell scripts written into the test's temporary directory) where the point is how the compiler
 * is run: how often, for how long, with which environment, fds and files. A confined compiler may
 * write only its build directory, so a fake one reports to the test with SIGUSR1, whose sender
 * the test counts and remembers. The last test runs a real gridtuned (daemon_fixture.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fixtures/daemon_fixture.h"
#include "tests/fixtures/temp_dir.h"

#include "daemon/build/build.h"
#include "daemon/build/build_cache.h"
#include "engine/module.h"
#include "protocol/protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define ERR_MAX 1024
#define DIR_MAX 512 /* the temporary directory's path; room is left in PATH_MAX for names under it */
#define SLOW_TIMEOUT_MS 300
#define THREADS 4
#define BIG_SOURCE_BYTES (1024 * 1024)

static const char scale_source[] = "#include <gridtune/kernel.h>\n"
                                   "GT_KERNEL(scale, float *, dst, const float *, src, float, k)\n"
                                   "{ size_t i = gt_global_id(0); dst[i] = src[i] * k; }\n";

/* Multiplies by N, which only the options define. */
static const char times_n_source[] = "#include <gridtune/kernel.h>\n"
                                     "GT_KERNEL(times_n, float *, dst, const float *, src)\n"
                                     "{ size_t i = gt_global_id(0); dst[i] = src[i] * N; }\n";

static const char broken_source[] = "#include <gridtune/kernel.h>\n"
                                    "GT_KERNEL(broken, float *, dst)\n"
                                    "{ dst[0] = ; }\n";

/* A workgroup kernel compiled for a shape with a zero in it: refused at compile time. */
static const char zero_shape_source[] = "#include <gridtune/kernel.h>\n"
                                        "GT_KERNEL_GROUP_SIZED(flat, (16, 0, 1), (), float *, dst)\n"
                                        "{ GT_ITEMS { dst[gt_global_id(0)] = 1.0f; } }\n";

/* The builder's question of what -march=native resolves to (cc -march=native -dM -E ...). */
#define IS_NATIVE_PROBE "[ \"$1 $2\" = \"-march=native -dM\" ]"
/* Fake compilers answer --version and the native probe like a real one (both runs of
 * gt_builder_create must succeed), before they note anything as a build. */
#define FAKE_VERSION                                                                                                \
    "case \"$1\" in --version) echo \"fake-cc 1.0\"; exit 0;; esac\n"                                              \
    "if " IS_NATIVE_PROBE "; then echo \"#define __fake_cpu__ 1\"; exit 0; fi\n"
/* A fake compiler's report to the test (its parent): builds_seen counts these, last_sender names it. */
#define NOTE_BUILD "kill -USR1 $PPID\n"
/* What the private file holds: an identifier the compiler would quote in an error about it. */
#define SECRET_WORD "gt_secret_word_4711"

static atomic_int builds_seen;
static atomic_int last_sender;

static void on_note(int sig, siginfo_t *info, void *context)
{
    (void)sig, (void)context;
    atomic_fetch_add(&builds_seen, 1);
    atomic_store(&last_sender, (int)info->si_pid);
}

typedef struct fixture {
    char dir[DIR_MAX];    /* mkdtemp'd, removed in teardown */
    char cache[PATH_MAX]; /* dir/cache/modules: two levels the builder must create */
    gt_builder *b;
    bool portable; /* the next builder builds for the compiler's default target */
    uint64_t max_cache_bytes; /* the next builder's; 0: the default */
    char err[ERR_MAX];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (temp_dir_make(f->dir, sizeof f->dir, "gt-test-build") != 0) {
        free(f);
        return -1;
    }
    snprintf(f->cache, sizeof f->cache, "%s/cache/modules", f->dir);
    atomic_store(&builds_seen, 0);
    atomic_store(&last_sender, 0);
    struct sigaction sa = {.sa_sigaction = on_note, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gt_builder_destroy(f->b);
    signal(SIGUSR1, SIG_DFL);
    int rc = temp_dir_remove(f->dir);
    free(f);
    return rc;
}

static int try_builder(fixture *f, const char *cc, unsigned timeout_ms)
{
    gt_build_config cfg = {.cc = cc, .cache_dir = f->cache, .include_dir = GT_TEST_INCLUDE_DIR,
                           .timeout_ms = timeout_ms, .portable = f->portable, .max_cache_bytes = f->max_cache_bytes};
    return gt_builder_create(&cfg, &f->b, f->err, sizeof f->err);
}

static void make_builder(fixture *f, const char *cc, unsigned timeout_ms)
{
    int rc = try_builder(f, cc, timeout_ms);
    if (rc)
        print_error("%s\n", f->err);
    assert_int_equal(rc, 0);
}

/* Writes dir/name as a #!/bin/sh script (body after the shebang) and returns its path. */
static const char *write_script(fixture *f, const char *name, const char *body)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\n%s", body);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

/* A compiler that notes each build (builds_seen) and hands it to the real cc. */
static const char *counting_compiler(fixture *f)
{
    return write_script(f, "counting-cc", FAKE_VERSION NOTE_BUILD "exec cc \"$@\"\n");
}

/* Writes dir/secret, readable by this user alone, and returns its path. */
static const char *write_secret(fixture *f)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/secret", f->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    static const char text[] = SECRET_WORD " is what only the daemon's user may read;\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    assert_int_equal(close(fd), 0);
    return path;
}

/* The builder's confinement tests need Landlock; elsewhere they are skipped, and say why. */
static bool confined_or_skip(fixture *f)
{
    if (gt_builder_confined(f->b))
        return true;
    print_message("skipped: %s\n", gt_builder_confinement(f->b));
    return false;
}

/* Whether the cache directory holds a file or directory whose name starts with prefix. */
static bool cache_has(fixture *f, const char *prefix)
{
    DIR *d = opendir(f->cache);
    assert_non_null(d);
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

typedef struct build {
    int rc;
    char *path;
    bool cached;
    char *diagnostics;
} build;

static build do_build(fixture *f, const char *source, const char *options)
{
    build r = {0};
    r.rc = gt_builder_build(f->b, source, options, &r.path, &r.cached, &r.diagnostics, f->err, sizeof f->err);
    return r;
}

static void build_free(build *r)
{
    free(r->path);
    free(r->diagnostics);
}

static build must_build(fixture *f, const char *source, const char *options)
{
    build r = do_build(f, source, options);
    if (r.rc)
        print_error("%s\n%s\n", f->err, r.diagnostics ? r.diagnostics : "");
    assert_int_equal(r.rc, 0);
    assert_non_null(r.path);
    assert_null(r.diagnostics);
    return r;
}

/* A source the compiler refuses: no module, and its diagnostics kept. */
static build must_not_build(fixture *f, const char *source)
{
    build r = do_build(f, source, NULL);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_null(r.path);
    assert_non_null(r.diagnostics);
    return r;
}

/* Runs a two-parameter-buffer kernel over 8 items in two workgroups of 4. */
static void run_kernel(const gt_kernel_desc *k, float *dst, const float *src, void *extra)
{
    enum { N = 8, LOCAL = 4 };
    gt_group_ctx ctx = {.dims = 1, .span = 1, .global_size = {N, 1, 1}, .local_size = {LOCAL, 1, 1},
                        .num_groups = {N / LOCAL, 1, 1}, .items = NULL, .nitems = LOCAL};
    void *args[3] = {&dst, &src, extra};
    for (size_t g = 0; g < N / LOCAL; g++) {
        ctx.group_id[0] = g;
        k->run(&ctx, args);
    }
}

static size_t count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    size_t n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void key_path_of(const char *so_path, char out[PATH_MAX])
{
    snprintf(out, PATH_MAX, "%.*s.key", (int)(strlen(so_path) - strlen(".so")), so_path);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void builds_a_module_that_runs(void **state)
{
    fixture *f = *state;
    /* This process runs the kernel: under valgrind, which cannot run every instruction of the
       host's vector units (AVX-512), it is built for the compiler's default target. */
    f->portable = RUNNING_ON_VALGRIND;
    make_builder(f, NULL, 0);
    build r = must_build(f, scale_source, NULL);
    assert_false(r.cached);

    gt_module *m;
    assert_int_equal(gt_module_open(r.path, &m, f->err, sizeof f->err), 0);
    const gt_kernel_desc *k = gt_module_find(m, "scale");
    assert_non_null(k);
    assert_int_equal(k->nparams, 3);
    assert_string_equal(k->params[0].name, "dst");
    assert_int_equal(k->params[0].kind, GT_PARAM_BUFFER);
    assert_int_equal(k->params[1].kind, GT_PARAM_BUFFER_RO);
    assert_string_equal(k->params[2].type, "float");
    assert_int_equal(k->params[2].kind, GT_PARAM_SCALAR);

    float src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0}, factor = 2.5f;
    run_kernel(k, dst, src, &factor);
    for (int i = 0; i < 8; i++)
        assert_true(dst[i] == src[i] * 2.5f);
    gt_module_close(m);
    build_free(&r);
}

static void names_the_compiler(void **state)
{
    fixture *f = *state;
    const char *cc = counting_compiler(f);
    make_builder(f, cc, 0);
    const char *id = gt_builder_compiler(f->b);
    assert_non_null(strstr(id, "fake-cc 1.0"));
    assert_non_null(strstr(id, cc));
}

static void creates_a_private_cache(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    struct stat st;
    assert_int_equal(stat(f->cache, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
}

static void refuses_a_cache_others_can_write(void **state)
{
    fixture *f = *state;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s/cache", f->dir);
    assert_int_equal(mkdir(parent, 0700), 0);
    assert_int_equal(mkdir(f->cache, 0700), 0);
    assert_int_equal(chmod(f->cache, 0777), 0);
    assert_int_equal(try_builder(f, NULL, 0), -EPERM);
    assert_non_null(strstr(f->err, f->cache));
    assert_null(f->b);
}

static void second_build_is_cached_without_compiling(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    build first = must_build(f, scale_source, "-O2");
    build second = must_build(f, scale_source, "-O2");
    assert_false(first.cached);
    assert_true(second.cached);
    assert_string_equal(first.path, second.path);
    assert_int_equal(atomic_load(&builds_seen), 1);
    build_free(&first);
    build_free(&second);
}

static void different_options_give_different_modules(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    build o1 = must_build(f, scale_source, "-O1");
    build o2 = must_build(f, scale_source, "-O2");
    assert_false(o2.cached);
    assert_string_not_equal(o1.path, o2.path);
    build_free(&o1);
    build_free(&o2);
}

static void same_options_spaced_differently_share_a_module(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    build a = must_build(f, scale_source, "-O2 -g");
    build b = must_build(f, scale_source, "  -O2\t -g ");
    assert_true(b.cached);
    assert_string_equal(a.path, b.path);
    build_free(&a);
    build_free(&b);
}

static void syntax_error_gives_diagnostics(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    build r = must_not_build(f, broken_source);
    assert_non_null(strstr(r.diagnostics, "<stdin>:3"));
    assert_non_null(strstr(r.diagnostics, "error"));
    assert_non_null(strstr(f->err, "did not compile"));
    assert_non_null(strstr(f->err, "exited with status 1"));
    build_free(&r);
}

static void a_sized_kernel_with_a_zero_size_does_not_compile(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    build r = must_not_build(f, zero_shape_source);
    assert_non_null(strstr(r.diagnostics, "GT_KERNEL_GROUP_SIZED(flat): each size at least 1"));
    build_free(&r);
}

static void long_output_is_cut_with_a_note(void **state)
{
    fixture *f = *state;
    /* cat echoes the source while it is still being written: also proves input and output
     * are pumped together, or this would deadlock on full pipes */
    make_builder(f, write_script(f, "cat-cc", FAKE_VERSION "cat\nexit 1\n"), 0);
    char *source = malloc(BIG_SOURCE_BYTES + 1);
    for (size_t i = 0; i < BIG_SOURCE_BYTES; i++)
        source[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
    source[BIG_SOURCE_BYTES] = '\0';
    build r = do_build(f, source, NULL);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_true(strlen(r.diagnostics) <= GT_BUILD_MAX_DIAGNOSTICS);
    assert_true(strlen(r.diagnostics) > GT_BUILD_MAX_DIAGNOSTICS / 2);
    assert_memory_equal(r.diagnostics, source, GT_BUILD_MAX_DIAGNOSTICS / 2);
    assert_non_null(strstr(r.diagnostics, "diagnostics cut"));
    free(source);
    build_free(&r);
}

static void slow_compiler_is_killed(void **state)
{
    fixture *f = *state;
    make_builder(f, write_script(f, "slow-cc", FAKE_VERSION NOTE_BUILD "sleep 30\n"), SLOW_TIMEOUT_MS);
    build r = do_build(f, scale_source, NULL);
    assert_int_equal(r.rc, -ETIME);
    assert_null(r.path);
    assert_null(r.diagnostics);
    assert_non_null(strstr(f->err, "ran longer than 300 ms and was killed"));

    pid_t pid = (pid_t)atomic_load(&last_sender);
    assert_true(pid > 0);
    assert_int_equal(kill(pid, 0), -1); /* reaped: not even a zombie is left */
    assert_int_equal(errno, ESRCH);
    int status;
    assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* One option of each class that loads or instruments code, or reads or writes other files, and
 * a word the refusal's reason must hold. */
static const struct refused_option {
    const char *option, *why;
} refused_options[] = {
    {"-fsanitize=address", "sanitizer"},        {"-fsanitize=undefined", "sanitizer"},
    {"-fsanitize-coverage=trace-pc", "sanitizer"}, {"-fno-sanitize=all", "sanitizer"},
    {"-fprofile-generate", "profile"},          {"-fprofile-arcs", "profile"},
    {"-fprofile-use", "profile"},               {"-fcoverage-mapping", "profile"},
    {"--coverage", "profile"},                  {"-ftest-coverage", "profile"},
    {"-fauto-profile", "profile"},              {"-pg", "instrument"},
    {"-p", "instrument"},                       {"-finstrument-functions", "instrument"},
    {"-finstrument-functions-exclude-file-list=x", "instrument"}, {"-mfentry", "instrument"},
    {"-mrecord-mcount", "instrument"},          {"-fplugin=x", "plugin"},
    {"-fplugin-arg-x-y=z", "plugin"},           {"-specs=x", "specs"},
    {"--specs=x", "specs"},                     {"-B/tmp", "programs"},
    {"-Bx", "programs"},                        {"-wrapper", "programs"},
    {"-no-integrated-cpp", "programs"},         {"-Xlinker", "linker"},
    {"-Xassembler", "assembler"},               {"-Xpreprocessor", "preprocessor"},
    {"-Wl,-rpath,/x", "linker"},                {"-Wa,-x", "assembler"},
    {"-Wp,-x", "preprocessor"},                 {"-lm", "librar"},
    {"-L.", "librar"},                          {"-fopenmp", "librar"},
    {"-static", "librar"},                      {"-I/etc", "header"},
    {"-Iinclude", "header"},                    {"-include", "header"},
    {"-imacros", "header"},                     {"-iquote.", "header"},
    {"-isystem.", "header"},                    {"-idirafter.", "header"},
    {"-iprefix.", "header"},                    {"-isysroot", "header"},
    {"--sysroot=x", "header"},                  {"-nostdinc", "header"},
    {"@file", "file"},                          {"-save-temps", "file"},
    {"-save-temps=obj", "file"},                {"-o", "file"},
    {"-M", "file"},                             {"-MD", "file"},
    {"-MF", "file"},                            {"-MMD", "file"},
    {"-dumpdir", "file"},                       {"-dumpbase", "file"},
    {"-fdump-tree-all", "file"},                {"-fdump-rtl-expand", "file"},
    {"-frecord-gcc-switches", "module"},          {"-fopt-info-vec=x", "file"},
    {"-fstack-usage", "file"},                  {"-fcallgraph-info", "file"},
    {"-gsplit-dwarf", "file"},                  {"-aux-info", "file"},
    {"-fdebug-prefix-map=a=b", "file"},         {"-x", "input"},
    {"main.c", "input"},                        {"-E", "module"},
    {"-c", "module"},                           {"-S", "module"},
    {"-march=../../x", "allow"},                {"-D1X", "allow"},
    {"-fsome-new-thing", "allow"},              {"-mcmodel=large", "allow"},
    {"-Wa", "assembler"},
};

static void refuses_options_outside_the_list(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    for (size_t i = 0; i < sizeof refused_options / sizeof *refused_options; i++) {
        const struct refused_option *r = &refused_options[i];
        char options[128];
        snprintf(options, sizeof options, "-O2 %s -g", r->option); /* refused wherever it stands */
        build b = do_build(f, scale_source, options);
        assert_int_equal(b.rc, -EINVAL);
        assert_null(b.path);
        char quoted[128];
        snprintf(quoted, sizeof quoted, "option \"%s\" is not allowed", r->option);
        if (!strstr(f->err, quoted) || !strstr(f->err, r->why))
            fail_msg("options \"%s\": expected \"%s\" and the reason \"%s\", got: %s", options, quoted, r->why,
                     f->err);
    }
    assert_int_equal(atomic_load(&builds_seen), 0);
}

static void allowed_options_reach_the_compiler(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    build r = must_build(f, times_n_source, "-O2 -DN=4 -march=native -ffast-math");
    gt_module *m;
    assert_int_equal(gt_module_open(r.path, &m, f->err, sizeof f->err), 0);
    const gt_kernel_desc *k = gt_module_find(m, "times_n");
    assert_non_null(k);
    float src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
    run_kernel(k, dst, src, NULL);
    for (int i = 0; i < 8; i++)
        assert_true(dst[i] == src[i] * 4);
    gt_module_close(m);
    build_free(&r);
}

static void accepts_every_allowed_form(void **state)
{
    fixture *f = *state;
    /* writes an empty file at -o: the options are only checked, not compiled */
    make_builder(f, write_script(f, "touch-cc", FAKE_VERSION "while [ $# -gt 0 ]; do\n"
                                               "  if [ \"$1\" = -o ]; then : > \"$2\"; fi; shift\n"
                                               "done\n"), 0);
    build r = must_build(f, scale_source, "-O0 -O1 -O3 -Os -Ofast -Og -g -mtune=generic -march=x86-64-v2 "
                                          "-fno-tree-vectorize -funroll-loops -fvect-cost-model=unlimited "
                                          "-DX -DY=1+2 -UX -Wall -Wno-unused -Wformat=2 -std=gnu11 -pedantic");
    build_free(&r);
}

static void missing_compiler_is_named(void **state)
{
    fixture *f = *state;
    assert_int_equal(try_builder(f, "gt-no-such-compiler", 0), -ENOENT);
    assert_non_null(strstr(f->err, "gt-no-such-compiler"));
    assert_null(f->b);
    assert_int_equal(try_builder(f, "/nonexistent/gt-cc", 0), -ENOENT);
    assert_non_null(strstr(f->err, "/nonexistent/gt-cc"));
}

static void missing_kernel_header_is_named(void **state)
{
    fixture *f = *state;
    gt_build_config cfg = {.cache_dir = f->cache, .include_dir = f->dir};
    assert_int_equal(gt_builder_create(&cfg, &f->b, f->err, sizeof f->err), -ENOENT);
    assert_non_null(strstr(f->err, "gridtune/kernel.h"));
}

static void empty_source_is_refused(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    build r = do_build(f, "", NULL);
    assert_int_equal(r.rc, -EINVAL);
    assert_non_null(strstr(f->err, "empty"));
    r = do_build(f, NULL, NULL);
    assert_int_equal(r.rc, -EINVAL);
    assert_int_equal(atomic_load(&builds_seen), 0);
}

/* ---- the cache's size -------------------------------------------------------------------- */

/* An entry of the cache by hand: <hash>.so of so_bytes and <hash>.key of 10 bytes, the module
   last used at unix time `used`. */
static void fake_entry(const char *dir, const char *hash, size_t so_bytes, time_t used)
{
    char path[PATH_MAX];
    assert_true(snprintf(path, sizeof path, "%s/%s.key", dir, hash) < (int)sizeof path);
    FILE *key = fopen(path, "we");
    assert_non_null(key);
    assert_int_equal(fwrite("key text.\n", 1, 10, key), 10);
    fclose(key);
    assert_true(snprintf(path, sizeof path, "%s/%s.so", dir, hash) < (int)sizeof path);
    FILE *so = fopen(path, "we");
    assert_non_null(so);
    for (size_t i = 0; i < so_bytes; i++)
        assert_int_equal(fputc(0, so), 0);
    fclose(so);
    struct timespec times[2] = {{.tv_sec = used}, {.tv_sec = used}};
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static bool has_entry(const char *dir, const char *hash)
{
    char so[PATH_MAX], key[PATH_MAX];
    assert_true(snprintf(so, sizeof so, "%s/%s.so", dir, hash) < (int)sizeof so);
    assert_true(snprintf(key, sizeof key, "%s/%s.key", dir, hash) < (int)sizeof key);
    bool has_so = access(so, F_OK) == 0, has_key = access(key, F_OK) == 0;
    assert_int_equal(has_so, has_key); /* never one without the other */
    return has_so;
}

/* Trimming removes the entries used longest ago until the rest fit, never the one to keep, and
 * leaves build directories and other files alone. */
static void trim_removes_the_least_recently_used(void **state)
{
    fixture *f = *state;
    snprintf(f->cache, sizeof f->cache, "%s/trim", f->dir);
    assert_int_equal(mkdir(f->cache, 0700), 0);
    fake_entry(f->cache, "00000000000000a1", 990, 1000); /* the oldest */
    fake_entry(f->cache, "00000000000000a2", 990, 2000);
    fake_entry(f->cache, "00000000000000a3", 990, 3000);
    fake_entry(f->cache, "00000000000000a4", 990, 500);  /* older still, but kept */
    char other[PATH_MAX + 32];
    snprintf(other, sizeof other, "%s/notes.txt", f->cache);
    FILE *o = fopen(other, "we");
    assert_non_null(o);
    fclose(o);
    snprintf(other, sizeof other, "%s/.tmp-1-2-3", f->cache);
    assert_int_equal(mkdir(other, 0700), 0);
    char keep[PATH_MAX + 32];
    snprintf(keep, sizeof keep, "%s/00000000000000a4.so", f->cache);
    /* 4000 bytes in all; 2500 fit two entries */
    assert_int_equal(gt_build_cache_trim(f->cache, 2500, keep), 2);
    assert_false(has_entry(f->cache, "00000000000000a1"));
    assert_false(has_entry(f->cache, "00000000000000a2"));
    assert_true(has_entry(f->cache, "00000000000000a3"));
    assert_true(has_entry(f->cache, "00000000000000a4"));
    snprintf(other, sizeof other, "%s/notes.txt", f->cache);
    assert_int_equal(access(other, F_OK), 0);
    snprintf(other, sizeof other, "%s/.tmp-1-2-3", f->cache);
    assert_int_equal(access(other, F_OK), 0);
    assert_int_equal(gt_build_cache_trim(f->cache, 2500, keep), 0); /* within it now */
}

/* A builder whose cache holds one byte keeps only the module it built last, and a hit marks its
 * module used: a client building many kernels cannot fill the disk. */
static void builds_keep_the_cache_within_its_bytes(void **state)
{
    fixture *f = *state;
    f->max_cache_bytes = 1;
    make_builder(f, NULL, 0);
    build o1 = must_build(f, scale_source, "-O1");
    struct timespec old[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
    assert_int_equal(utimensat(AT_FDCWD, o1.path, old, 0), 0);
    build hit = must_build(f, scale_source, "-O1");
    assert_true(hit.cached);
    struct stat st;
    assert_int_equal(stat(o1.path, &st), 0);
    assert_true(st.st_mtime > 1000);
    build o2 = must_build(f, scale_source, "-O2");
    assert_int_equal(access(o1.path, F_OK), -1);
    assert_int_equal(access(o2.path, F_OK), 0);
    build again = must_build(f, scale_source, "-O1");
    assert_false(again.cached);
    assert_int_equal(access(o2.path, F_OK), -1);
    build_free(&o1);
    build_free(&hit);
    build_free(&o2);
    build_free(&again);
}

static void tampered_key_is_a_miss(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    build first = must_build(f, scale_source, NULL);
    char key[PATH_MAX];
    key_path_of(first.path, key);
    FILE *fp = fopen(key, "r+");
    assert_non_null(fp);
    fputc('X', fp); /* same length, one byte changed */
    fclose(fp);

    build again = must_build(f, scale_source, NULL);
    assert_false(again.cached);
    assert_string_equal(again.path, first.path);
    build third = must_build(f, scale_source, NULL); /* the rebuild restored the entry */
    assert_true(third.cached);
    assert_int_equal(atomic_load(&builds_seen), 2);
    build_free(&first);
    build_free(&again);
    build_free(&third);
}

static void missing_key_is_a_miss(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    build first = must_build(f, scale_source, NULL);
    char key[PATH_MAX];
    key_path_of(first.path, key);
    assert_int_equal(unlink(key), 0);
    build again = must_build(f, scale_source, NULL);
    assert_false(again.cached);
    assert_int_equal(atomic_load(&builds_seen), 2);
    build_free(&first);
    build_free(&again);
}

static void leaves_no_fd_behind(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    size_t before = count_fds();
    build fresh = must_build(f, scale_source, NULL);
    assert_int_equal(count_fds(), before);
    build hit = must_build(f, scale_source, NULL);
    assert_true(hit.cached);
    assert_int_equal(count_fds(), before);
    build failed = do_build(f, broken_source, NULL);
    assert_int_equal(failed.rc, -ENOEXEC);
    assert_int_equal(count_fds(), before);
    build_free(&fresh);
    build_free(&hit);
    build_free(&failed);
}

static void compiler_gets_a_clean_environment_and_no_fds(void **state)
{
    fixture *f = *state;
    int leaked = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: a careless spawn would pass it on */
    assert_true(leaked >= 0);
    char body[512];
    snprintf(body, sizeof body,
             FAKE_VERSION "echo \"PATH=$PATH\"\necho \"LC_ALL=$LC_ALL\"\necho \"SECRET=${GT_TEST_SECRET-unset}\"\n"
                          "[ -e /proc/$$/fd/%d ] && echo \"fd %d leaked\"\nexit 1\n",
             leaked, leaked);
    make_builder(f, write_script(f, "env-cc", body), 0);
    setenv("GT_TEST_SECRET", "leak", 1);
    build r = do_build(f, scale_source, NULL);
    unsetenv("GT_TEST_SECRET");
    close(leaked);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_non_null(strstr(r.diagnostics, "PATH=" GT_BUILD_CHILD_PATH "\n"));
    assert_non_null(strstr(r.diagnostics, "LC_ALL=C\n"));
    assert_non_null(strstr(r.diagnostics, "SECRET=unset\n"));
    assert_null(strstr(r.diagnostics, "leaked"));
    build_free(&r);
}

/* The audit's case: a kernel that includes a file only the daemon's user may read, by its absolute
 * path or by a name a macro builds, fails to build, and the diagnostics do not quote the file. */
static void include_of_a_private_file_is_not_quoted(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    if (!confined_or_skip(f))
        return;
    const char *secret = write_secret(f);
    char direct[PATH_MAX + 64], options[PATH_MAX + 64];
    snprintf(direct, sizeof direct, "#include \"%s\"\nint x;\n", secret);
    snprintf(options, sizeof options, "-DSECRET=%s", secret);
    static const char by_macro[] = "#define QUOTE(x) #x\n#define NAME(x) QUOTE(x)\n#include NAME(SECRET)\nint x;\n";
    const char *sources[] = {direct, by_macro}, *option_sets[] = {NULL, options};
    for (size_t i = 0; i < 2; i++) {
        build r = do_build(f, sources[i], option_sets[i]);
        assert_int_equal(r.rc, -ENOEXEC);
        assert_non_null(r.diagnostics);
        if (strstr(r.diagnostics, SECRET_WORD) || strstr(f->err, SECRET_WORD))
            fail_msg("the diagnostics quote the private file:\n%s", r.diagnostics);
        assert_non_null(strstr(r.diagnostics, "Permission denied"));
        build_free(&r);
    }
}

/* The compiler runs in a private directory under the cache, which it alone may write, and which is
 * gone after the build; it can neither read the private file nor write beside it. */
static void compiler_is_confined_to_its_build_directory(void **state)
{
    fixture *f = *state;
    const char *secret = write_secret(f);
    char body[3 * PATH_MAX];
    snprintf(body, sizeof body,
             FAKE_VERSION "echo \"cwd=$(pwd)\"\necho \"TMPDIR=$TMPDIR\"\n"
                          "cat '%s' 2>/dev/null && echo 'read the private file'\n"
                          "echo x 2>/dev/null > '%s/outside' && echo 'wrote outside'\n"
                          "echo x 2>/dev/null > '%s/../beside' && echo 'wrote beside'\n"
                          "echo x > inside && echo 'wrote inside'\nexit 1\n",
             secret, f->dir, f->cache);
    make_builder(f, write_script(f, "probe-cc", body), 0);
    if (!confined_or_skip(f))
        return;
    build r = do_build(f, scale_source, NULL);
    assert_int_equal(r.rc, -ENOEXEC);
    char cwd[PATH_MAX + 16];
    snprintf(cwd, sizeof cwd, "cwd=%s/.tmp-", f->cache);
    if (!strstr(r.diagnostics, cwd) || !strstr(r.diagnostics, "wrote inside") ||
        strstr(r.diagnostics, "read the private file") || strstr(r.diagnostics, SECRET_WORD) ||
        strstr(r.diagnostics, "wrote outside") || strstr(r.diagnostics, "wrote beside"))
        fail_msg("the compiler was not confined to %s...:\n%s", cwd + strlen("cwd="), r.diagnostics);
    assert_null(strstr(r.diagnostics, "TMPDIR=\n"));
    char outside[PATH_MAX + 16];
    snprintf(outside, sizeof outside, "%s/outside", f->dir);
    assert_int_equal(access(outside, F_OK), -1);
    assert_false(cache_has(f, ".tmp-")); /* the build directory went with the build */
    build_free(&r);
}

static void says_what_confines_the_compiler(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    const char *how = gt_builder_confinement(f->b);
    assert_non_null(how);
    if (gt_builder_confined(f->b)) {
        assert_non_null(strstr(how, "Landlock"));
        assert_non_null(strstr(how, GT_TEST_INCLUDE_DIR));
    } else {
        assert_non_null(strstr(how, "any file the daemon's user can read"));
    }
}

typedef struct worker {
    fixture *f;
    const char *options;
    char err[ERR_MAX];
    int rc;
    char *path;
} worker;

static void *build_in_thread(void *arg)
{
    worker *w = arg;
    bool cached;
    char *diagnostics;
    w->rc = gt_builder_build(w->f->b, scale_source, w->options, &w->path, &cached, &diagnostics, w->err,
                             sizeof w->err);
    free(diagnostics);
    return NULL;
}

static void concurrent_builds_all_succeed(void **state)
{
    fixture *f = *state;
    make_builder(f, NULL, 0);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.f = f, .options = i % 2 ? "-O2" : "-O1"};
        assert_int_equal(pthread_create(&t[i], NULL, build_in_thread, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].rc)
            fail_msg("thread %d: %s", i, w[i].err);
        assert_string_equal(w[i].path, w[i % 2].path);
        gt_module *m;
        assert_int_equal(gt_module_open(w[i].path, &m, f->err, sizeof f->err), 0);
        gt_module_close(m);
    }
    assert_string_not_equal(w[0].path, w[1].path);
    for (int i = 0; i < THREADS; i++)
        free(w[i].path);
}

/* ---- the target: this CPU (-march=native) by default ---------------------------------------------- */

/* A compiler whose CPU is cpu (the native probe answers with it, from dir/cpu). With echo_args it
 * compiles nothing: it fails with its arguments as the diagnostics (a sandboxed compiler can
 * write nowhere the test could read); else it hands the build to the real cc. */
static const char *cpu_compiler(fixture *f, const char *cpu, bool echo_args)
{
    char path[PATH_MAX], body[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/cpu", f->dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "#define __%s__ 1\n", cpu);
    assert_int_equal(fclose(fp), 0);
    snprintf(body, sizeof body,
             "case \"$1\" in --version) echo \"fake-cc 1.0\"; exit 0;; esac\n"
             "if " IS_NATIVE_PROBE "; then cat '%s/cpu'; exit 0; fi\n" NOTE_BUILD "%s",
             f->dir, echo_args ? "echo \" $* \"; exit 1\n" : "exec cc \"$@\"\n");
    return write_script(f, echo_args ? "cpu-echo-cc" : "cpu-cc", body);
}

/* A new builder on f's cache with cc. */
static void rebuild_builder(fixture *f, const char *cc)
{
    gt_builder_destroy(f->b);
    f->b = NULL;
    make_builder(f, cc, 0);
}

/* A builder on f's cache whose compiler's CPU is cpu; its build of scale_source. */
static build build_on_cpu(fixture *f, const char *cpu, const char *options)
{
    rebuild_builder(f, cpu_compiler(f, cpu, false));
    return must_build(f, scale_source, options);
}

/* Whether a build with options, by a builder like f's on a CPU, passes `option` to the compiler. */
static bool compiler_gets(fixture *f, const char *options, const char *option)
{
    rebuild_builder(f, cpu_compiler(f, "cpu_a", true));
    build r = do_build(f, scale_source, options);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_non_null(r.diagnostics);
    char word[128];
    snprintf(word, sizeof word, " %s ", option);
    bool found = strstr(r.diagnostics, word) != NULL;
    build_free(&r);
    return found;
}

static void builds_for_this_cpu_and_the_cpu_keys_the_cache(void **state)
{
    fixture *f = *state;
    assert_true(compiler_gets(f, NULL, "-march=native"));
    assert_non_null(strstr(gt_builder_target(f->b), "-march=native"));
    atomic_store(&builds_seen, 0);
    build first = build_on_cpu(f, "cpu_a", NULL);
    build other = build_on_cpu(f, "cpu_b", NULL); /* the machine's CPU changed: a module of its own */
    assert_false(other.cached);
    assert_string_not_equal(other.path, first.path);
    build back = build_on_cpu(f, "cpu_a", NULL); /* and back: the first one serves again */
    assert_true(back.cached);
    assert_string_equal(back.path, first.path);
    assert_int_equal(atomic_load(&builds_seen), 2);
    build_free(&first);
    build_free(&other);
    build_free(&back);
}

static void portable_builds_are_for_the_default_target_whatever_the_cpu(void **state)
{
    fixture *f = *state;
    build native = build_on_cpu(f, "cpu_a", NULL);
    f->portable = true;
    assert_false(compiler_gets(f, NULL, "-march=native"));
    assert_non_null(strstr(gt_builder_target(f->b), "default target"));
    build portable = build_on_cpu(f, "cpu_a", NULL);
    assert_false(portable.cached);
    assert_string_not_equal(portable.path, native.path);
    build elsewhere = build_on_cpu(f, "cpu_b", NULL); /* portable code does not depend on the CPU */
    assert_true(elsewhere.cached);
    assert_string_equal(elsewhere.path, portable.path);
    build_free(&native);
    build_free(&portable);
    build_free(&elsewhere);
}

static void a_target_in_the_options_wins(void **state)
{
    fixture *f = *state;
    assert_true(compiler_gets(f, "-march=x86-64", "-march=x86-64"));
    assert_false(compiler_gets(f, "-march=x86-64", "-march=native"));
    build own = build_on_cpu(f, "cpu_a", "-march=x86-64");
    build elsewhere = build_on_cpu(f, "cpu_b", "-march=x86-64"); /* the client's target, not this CPU */
    assert_true(elsewhere.cached);
    assert_string_equal(elsewhere.path, own.path);
    build_free(&own);
    build_free(&elsewhere);
}

/* A compiler that cannot resolve -march=native makes builds portable, and says so. */
static void a_compiler_without_native_builds_for_its_default_target(void **state)
{
    fixture *f = *state;
    make_builder(f, write_script(f, "plain-cc", "case \"$1\" in --version) echo \"fake-cc 1.0\"; exit 0;; esac\n"
                                                "if " IS_NATIVE_PROBE "; then echo 'unknown option' >&2; exit 1; fi\n"
                                                "echo \" $* \"; exit 1\n"),
                 0);
    assert_non_null(strstr(gt_builder_target(f->b), "default target"));
    assert_non_null(strstr(gt_builder_target(f->b), "exited with status 1"));
    build r = do_build(f, scale_source, NULL);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_non_null(r.diagnostics);
    assert_null(strstr(r.diagnostics, "-march=native"));
    assert_non_null(strstr(r.diagnostics, " -std=c11 "));
    build_free(&r);
}

/* The audit's crash: a module built with -fsanitize=address made gridtuned exit when it was loaded.
 * The option is refused by name, and the daemon goes on building and loading kernels. */
static void daemon_refuses_a_sanitizer_and_keeps_serving(void **state)
{
    (void)state;
    daemon_fixture fx;
    daemon_fixture_start(&fx, NULL, NULL);
    gt_client *c = daemon_fixture_connect(&fx);
    gt_kernel *k = NULL;
    int rc = gt_kernel_build(c, scale_source, "scale", "-O2 -fsanitize=address", &k);
    assert_null(k);
    assert_api_error(&fx, c, rc, GT_ERR_BUILD, EINVAL, "option \"-fsanitize=address\" is not allowed");
    rc = gt_kernel_build(c, scale_source, "scale", "-O2", &k);
    if (rc)
        fail_msg("a good kernel did not build after the refusal: %s", gt_last_error(c));
    cJSON *status = daemon_fixture_status(c);
    assert_non_null(status);
    cJSON_Delete(status);
    assert_int_equal(gt_kernel_release(k), 0);
    gt_disconnect(c);
    assert_int_equal(daemon_fixture_stop(&fx), 0);
    daemon_fixture_clean_up(&fx);
}

/* Whether the log of fx's daemon has text anywhere. */
static bool log_mentions(const daemon_fixture *fx, const char *text)
{
    FILE *f = fopen(fx->log, "re");
    assert_non_null(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

/* gridtuned builds for the compiler's default target unless --native-builds asks for this CPU,
 * and says which. */
static void daemon_builds_native_only_when_asked(void **state)
{
    (void)state;
    daemon_fixture fx;
    daemon_fixture_start(&fx, NULL, NULL);
    static const char portable[] =
        "kernel builds are for the compiler's default target (the default; --native-builds builds for this CPU)";
    bool said = daemon_fixture_log_has_line(&fx, portable);
    assert_int_equal(daemon_fixture_stop(&fx), 0);
    daemon_fixture_clean_up(&fx);
    if (!said)
        fail_msg("the log of gridtuned has no line ending in \"%s\"", portable);
    daemon_fixture_start(&fx, NULL, (const char *const[]){"--native-builds", NULL});
    bool native = log_mentions(&fx, "kernel builds are for this CPU (-march=native, target");
    assert_int_equal(daemon_fixture_stop(&fx), 0);
    daemon_fixture_clean_up(&fx);
    if (!native)
        fail_msg("the log of gridtuned --native-builds does not say its builds are for this CPU");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(builds_a_module_that_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(names_the_compiler, setup, teardown),
        cmocka_unit_test_setup_teardown(creates_a_private_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_a_cache_others_can_write, setup, teardown),
        cmocka_unit_test_setup_teardown(second_build_is_cached_without_compiling, setup, teardown),
        cmocka_unit_test_setup_teardown(different_options_give_different_modules, setup, teardown),
        cmocka_unit_test_setup_teardown(same_options_spaced_differently_share_a_module, setup, teardown),
        cmocka_unit_test_setup_teardown(syntax_error_gives_diagnostics, setup, teardown),
        cmocka_unit_test_setup_teardown(a_sized_kernel_with_a_zero_size_does_not_compile, setup, teardown),
        cmocka_unit_test_setup_teardown(long_output_is_cut_with_a_note, setup, teardown),
        cmocka_unit_test_setup_teardown(slow_compiler_is_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_options_outside_the_list, setup, teardown),
        cmocka_unit_test_setup_teardown(allowed_options_reach_the_compiler, setup, teardown),
        cmocka_unit_test_setup_teardown(accepts_every_allowed_form, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_compiler_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_kernel_header_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_source_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(tampered_key_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(trim_removes_the_least_recently_used, setup, teardown),
        cmocka_unit_test_setup_teardown(builds_keep_the_cache_within_its_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_key_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(leaves_no_fd_behind, setup, teardown),
        cmocka_unit_test_setup_teardown(compiler_gets_a_clean_environment_and_no_fds, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_builds_all_succeed, setup, teardown),
        cmocka_unit_test_setup_teardown(include_of_a_private_file_is_not_quoted, setup, teardown),
        cmocka_unit_test_setup_teardown(compiler_is_confined_to_its_build_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(says_what_confines_the_compiler, setup, teardown),
        cmocka_unit_test_setup_teardown(builds_for_this_cpu_and_the_cpu_keys_the_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(portable_builds_are_for_the_default_target_whatever_the_cpu, setup, teardown),
        cmocka_unit_test_setup_teardown(a_target_in_the_options_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(a_compiler_without_native_builds_for_its_default_target, setup, teardown),
        cmocka_unit_test(daemon_refuses_a_sanitizer_and_keeps_serving),
        cmocka_unit_test(daemon_builds_native_only_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
