/* test_build.c: the online kernel compiler and its cache.
 * Builds run the system compiler where the module's contents matter, and fake compilers (small
 * shell scripts written into the test's temporary directory) where the point is how the compiler
 * is run: how often, for how long, with which environment and fds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/build.h"
#include "daemon/module.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ERR_MAX 1024
#define DIR_MAX 512 /* the temporary directory's path; room is left in PATH_MAX for names under it */
#define SLOW_TIMEOUT_MS 300
#define NFTW_FDS 16
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

/* Fake compilers answer --version like a real one; the identity run must succeed. */
#define FAKE_VERSION "case \"$1\" in --version) echo \"fake-cc 1.0\"; exit 0;; esac\n"

typedef struct fixture {
    char dir[DIR_MAX];    /* mkdtemp'd, removed in teardown */
    char cache[PATH_MAX]; /* dir/cache/modules: two levels the builder must create */
    gt_builder *b;
    char err[ERR_MAX];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/gt-test-build-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->cache, sizeof f->cache, "%s/cache/modules", f->dir);
    *state = f;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    fixture *f = *state;
    gt_builder_destroy(f->b);
    int rc = nftw(f->dir, remove_entry, NFTW_FDS, FTW_DEPTH | FTW_PHYS);
    free(f);
    return rc;
}

static int try_builder(fixture *f, const char *cc, unsigned timeout_ms)
{
    gt_build_config cfg = {.cc = cc, .cache_dir = f->cache, .include_dir = GT_TEST_INCLUDE_DIR,
                           .timeout_ms = timeout_ms};
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

/* A compiler that notes each build in dir/count and hands it to the real cc. */
static const char *counting_compiler(fixture *f)
{
    char body[PATH_MAX + 128];
    snprintf(body, sizeof body, FAKE_VERSION "echo build >> '%s/count'\nexec cc \"$@\"\n", f->dir);
    return write_script(f, "counting-cc", body);
}

static int count_lines(fixture *f, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    int lines = 0, c;
    while ((c = fgetc(fp)) != EOF)
        lines += c == '\n';
    fclose(fp);
    return lines;
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

/* Runs a two-parameter-buffer kernel over 8 items in two workgroups of 4. */
static void run_kernel(const gt_kernel_desc *k, float *dst, const float *src, void *extra)
{
    enum { N = 8, LOCAL = 4 };
    gt_group_ctx ctx = {.dims = 1, .global_size = {N, 1, 1}, .local_size = {LOCAL, 1, 1},
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
    assert_int_equal(count_lines(f, "count"), 1);
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
    build r = do_build(f, broken_source, NULL);
    assert_int_equal(r.rc, -ENOEXEC);
    assert_null(r.path);
    assert_non_null(r.diagnostics);
    assert_non_null(strstr(r.diagnostics, "<stdin>:3"));
    assert_non_null(strstr(r.diagnostics, "error"));
    assert_non_null(strstr(f->err, "did not compile"));
    assert_non_null(strstr(f->err, "exited with status 1"));
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
    char body[PATH_MAX + 128];
    snprintf(body, sizeof body, FAKE_VERSION "echo $$ > '%s/pid'\nsleep 30\n", f->dir);
    make_builder(f, write_script(f, "slow-cc", body), SLOW_TIMEOUT_MS);
    build r = do_build(f, scale_source, NULL);
    assert_int_equal(r.rc, -ETIME);
    assert_null(r.path);
    assert_null(r.diagnostics);
    assert_non_null(strstr(f->err, "ran longer than 300 ms and was killed"));

    char pid_path[PATH_MAX];
    snprintf(pid_path, sizeof pid_path, "%s/pid", f->dir);
    FILE *fp = fopen(pid_path, "r");
    assert_non_null(fp);
    long pid = 0;
    assert_int_equal(fscanf(fp, "%ld", &pid), 1);
    fclose(fp);
    assert_int_equal(kill((pid_t)pid, 0), -1); /* reaped: not even a zombie is left */
    assert_int_equal(errno, ESRCH);
    int status;
    assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void refuses_options_outside_the_list(void **state)
{
    fixture *f = *state;
    make_builder(f, counting_compiler(f), 0);
    static const struct {
        const char *options, *named;
    } refused[] = {
        {"-o /tmp/x", "-o"},         {"-O2 @file", "@file"},      {"-fplugin=x", "-fplugin=x"},
        {"-Wl,-rpath,/x", "-Wl,-rpath,/x"}, {"-I/etc", "-I/etc"},   {"-B/tmp", "-B/tmp"},
        {"--specs=x", "--specs=x"},  {"-specs=x", "-specs=x"},    {"-x c", "-x"},
        {"main.c", "main.c"},        {"-fdump-tree-all", "-fdump-tree-all"},
        {"-fprofile-generate", "-fprofile-generate"},         {"-fopt-info-vec=x", "-fopt-info-vec=x"},
        {"-save-temps", "-save-temps"}, {"-march=../../x", "-march=../../x"}, {"-D1X", "-D1X"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        build r = do_build(f, scale_source, refused[i].options);
        assert_int_equal(r.rc, -EINVAL);
        assert_null(r.path);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "option \"%s\" is not allowed", refused[i].named);
        if (!strstr(f->err, quoted))
            fail_msg("options \"%s\": %s", refused[i].options, f->err);
    }
    assert_int_equal(count_lines(f, "count"), 0);
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
    assert_int_equal(count_lines(f, "count"), 0);
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
    assert_int_equal(count_lines(f, "count"), 2);
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
    assert_int_equal(count_lines(f, "count"), 2);
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
        cmocka_unit_test_setup_teardown(long_output_is_cut_with_a_note, setup, teardown),
        cmocka_unit_test_setup_teardown(slow_compiler_is_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_options_outside_the_list, setup, teardown),
        cmocka_unit_test_setup_teardown(allowed_options_reach_the_compiler, setup, teardown),
        cmocka_unit_test_setup_teardown(accepts_every_allowed_form, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_compiler_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_kernel_header_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_source_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(tampered_key_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_key_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(leaves_no_fd_behind, setup, teardown),
        cmocka_unit_test_setup_teardown(compiler_gets_a_clean_environment_and_no_fds, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_builds_all_succeed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
