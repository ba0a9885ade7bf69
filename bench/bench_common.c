/* bench_common.c: the pieces both benchmark drivers need, written once.
 * The module paths come from the build (GT_SEEDS_BUILD_PATH, GT_SEEDS_INSTALL_PATH), so a
 * driver run from the build tree finds the module it was built with. */
#include "bench_common.h"

#include "engine/pool.h"
#include "kernels/say.h"
#include "tuner/number.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *gt_bench_module_default(void)
{
    const char *env = getenv(GT_BENCH_MODULE_ENV);
    if (env && *env)
        return env;
    return access(GT_SEEDS_BUILD_PATH, R_OK) == 0 ? GT_SEEDS_BUILD_PATH : GT_SEEDS_INSTALL_PATH;
}

int gt_bench_number_parse(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    if (gt_parse_u32(text, strlen(text), min, max, out) == 0)
        return 0;
    say("%s \"%s\": expected a whole number from %u to %u", flag, text, min, max);
    return -1;
}

/* The shared flags: 0 taken, -1 a bad value (printed), 1 not one of them. */
static int shared_flag(int c, const char *arg, gt_bench_flags *f)
{
    uint32_t v;
    switch (c) {
    case 'm':
        f->module = arg;
        return 0;
    case 'j':
        f->json = arg;
        return 0;
    case 'w':
        return gt_bench_number_parse("--workers", arg, 1, GT_POOL_MAX_WORKERS, &f->workers);
    case 'r':
        return gt_bench_number_parse("--reps", arg, 1, GT_BENCH_MAX_REPS, &f->reps);
    case 'n':
        if (gt_bench_number_parse("--size", arg, 1, GT_BENCH_MAX_SIZE, &v))
            return -1;
        f->size = v;
        return 0;
    default:
        return 1;
    }
}

int gt_bench_cli_parse(const gt_bench_cli *cli, int argc, char **argv, gt_bench_flags *f, void *ctx)
{
    static const struct option shared[] = {
        {"module", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'w'},
        {"reps", required_argument, 0, 'r'},   {"size", required_argument, 0, 'n'},
        {"json", required_argument, 0, 'j'},   {"list", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},
    };
    struct option all[GT_BENCH_MAX_OPTIONS + 1];
    size_t n = 0;
    for (; n < sizeof shared / sizeof *shared; n++)
        all[n] = shared[n];
    for (const struct option *o = cli->options; o && o->name && n < GT_BENCH_MAX_OPTIONS; o++)
        all[n++] = *o;
    all[n] = (struct option){0};
    char letters[128];
    snprintf(letters, sizeof letters, "m:w:r:n:j:lh%s", cli->letters ? cli->letters : "");
    int c;
    while ((c = getopt_long(argc, argv, letters, all, NULL)) != -1) {
        if (c == 'h' || c == 'l') {
            (c == 'h' ? cli->usage : cli->list)(stdout);
            return 1;
        }
        if (c == '?') { /* getopt has said what was wrong */
            cli->usage(stderr);
            return -1;
        }
        int rc = shared_flag(c, optarg, f);
        if (rc == 1)
            rc = cli->flag(c, optarg, ctx);
        if (rc)
            return -1;
    }
    if (!f->module)
        f->module = gt_bench_module_default();
    return 0;
}

void gt_bench_flags_help(FILE *out, const char *reps_text, unsigned default_reps)
{
    fprintf(out,
            "  -m, --module PATH     seeds kernel module (default: $" GT_BENCH_MODULE_ENV ", else\n"
            "                        the build tree's, else %s)\n"
            "  -w, --workers N       worker threads (default: the CPUs this process may use)\n"
            "  -r, --reps N          %s (default %u)\n"
            "  -n, --size N          problem size for every benchmark (default: each one's own)\n"
            "  -j, --json FILE       also write the results as JSON\n",
            GT_SEEDS_INSTALL_PATH, reps_text, default_reps);
}

int gt_bench_add(const char *name, const gt_seed_bench **list, unsigned *n)
{
    const gt_seed_bench *b = gt_seed_bench_find(name);
    if (!b) {
        say("no benchmark \"%s\" (--list shows them)", name);
        return -1;
    }
    if (*n == GT_BENCH_MAX_BENCHES) {
        say("at most %d benchmarks at once", GT_BENCH_MAX_BENCHES);
        return -1;
    }
    list[(*n)++] = b;
    return 0;
}

int gt_bench_operands(int argc, char **argv, size_t size, const char *const *defaults, const gt_seed_bench **list,
                      unsigned *n)
{
    for (int i = optind; i < argc; i++)
        if (gt_bench_add(argv[i], list, n) != 0)
            return -1;
    if (!*n && !defaults)
        gt_bench_add_all(list, n);
    for (size_t i = 0; !*n && defaults && defaults[i]; i++)
        if (gt_bench_add(defaults[i], list, n) != 0)
            return -1;
    for (unsigned i = 0; size && i < *n; i++)
        if (size % list[i]->min_n) {
            say("--size %zu: %s needs a multiple of %zu", size, list[i]->name, list[i]->min_n);
            return -1;
        }
    return 0;
}

void gt_bench_list(FILE *out)
{
    size_t n;
    const gt_seed_bench *b = gt_seed_benches(&n);
    fprintf(out, "benchmarks:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-14s n=%-6zu %s\n", b[i].name, b[i].default_n, b[i].summary);
}

int gt_bench_case_prepare(const gt_module *m, const char *module_path, const gt_seed_bench *b, size_t n,
                          gt_bench_case *out)
{
    char err[512];
    *out = (gt_bench_case){.kernel = gt_module_find(m, b->kernel)};
    if (!out->kernel) {
        say("module %s has no kernel %s", module_path, b->kernel);
        return -1;
    }
    if (gt_seed_case_create(b, n, &out->seed, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    if (gt_seed_case_check(out->seed, m, out->kernel, err, sizeof err) != 0) {
        say("%s", err);
        gt_seed_case_destroy(out->seed);
        out->seed = NULL;
        return -1;
    }
    gt_args_bind(out->seed->args, out->seed->nargs, out->slots);
    return 0;
}

void gt_bench_case_destroy(gt_bench_case *bc)
{
    gt_seed_case_destroy(bc->seed);
    bc->seed = NULL;
}
