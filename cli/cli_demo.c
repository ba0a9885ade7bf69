/* cli_demo.c: `gridtune demo`: the seed kernels from their module and one kernel built from
 * source, each launched twice through gridtuned: cold (analysis decides) and warm (the
 * wisdom remembers). Every output is checked against its reference, and a summary of the
 * reports is printed: the decision, the winner, the analysis share and the gain. */
#include "cli.h"

#include "kernels/seeds_client.h"
#include "tuner/report_read.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#define DEMO_SIZE_DIVISOR 2 /* the demo runs each seed at half its benchmark side */
#define SOURCE_SIDE 2048

/* A kernel written the naive way: work-item (x, y) touches element x*n + y, so consecutive
 * items in x are n floats apart. gridtune should find an item order that walks y first. */
static const char source_kernel[] =
    "#include <gridtune/kernel.h>\n"
    "GT_KERNEL(scale_columns, float *, dst, const float *, src, float, k, int32_t, n)\n"
    "{\n"
    "    size_t x = gt_global_id(0), y = gt_global_id(1);\n"
    "    dst[x * (size_t)n + y] = src[x * (size_t)n + y] * k;\n"
    "}\n"
    "GT_BUFFER_EXTENT(scale_columns, dst, sizeof(float));\n"
    "GT_BUFFER_EXTENT(scale_columns, src, sizeof(float));\n"
    "GT_REQUIRE(scale_columns, gt_work_dim() == 2);\n"
    "GT_REQUIRE(scale_columns, gt_param(n) > 0 && gt_global_size(0) == (size_t)gt_param(n) &&\n"
    "                          gt_global_size(1) == (size_t)gt_param(n));\n";

typedef struct demo {
    gt_client *c;
    const char *module;
    size_t size; /* 0: each seed's default side / DEMO_SIZE_DIVISOR */
    int failures;
} demo;

/* One launch's summary, from its report. */
typedef gt_report_summary outcome;

/* Launches, waits, and summarises the report. Returns 0 or prints why and returns -1. */
static int launch(demo *d, const char *what, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
                  gt_tuning tuning, outcome *out)
{
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    char *report = NULL;
    if (cli_launch(d->c, what, k, range, args, nargs, &opts, &report, NULL) != 0)
        return -1;
    gt_report_read_text(report, out);
    free(report);
    return 0;
}

static void print_row(const char *name, size_t n, const outcome *cold, const outcome *warm)
{
    char gain[16] = "-";
    if (!isnan(cold->estimated_gain))
        snprintf(gain, sizeof gain, "%+.0f%%", cold->estimated_gain * 100);
    printf("%-14s %6zu  %-9s %8.1f%% %7s %9.1f   %-8s %9.1f   %s\n", name, n, cold->source,
           cold->analysis_fraction * 100, gain, cold->total_ns / 1e6, warm->source, warm->total_ns / 1e6, cold->winner);
    fflush(stdout);
}

/* One checked launch of the seed, summarised. */
static int run_checked(cli_seed *seed, gt_tuning tuning, outcome *out)
{
    char what[64];
    snprintf(what, sizeof what, "%s (%s)", seed->sc->bench->name, tuning == GT_TUNING_RETUNE ? "cold" : "warm");
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    char *report = NULL;
    if (cli_seed_run(seed, what, &opts, &report, NULL) != 0)
        return -1;
    gt_report_read_text(report, out);
    free(report);
    return 0;
}

static int run_seed(demo *d, const gt_seed_bench *b)
{
    size_t n = d->size ? d->size : b->default_n / DEMO_SIZE_DIVISOR / b->min_n * b->min_n;
    cli_seed seed;
    outcome cold, warm;
    int rc = cli_seed_open(d->c, d->module, b, n, &seed);
    if (rc == 0)
        rc = run_checked(&seed, GT_TUNING_RETUNE, &cold);
    if (rc == 0)
        rc = run_checked(&seed, GT_TUNING_AUTO, &warm);
    if (rc == 0)
        print_row(b->name, n, &cold, &warm);
    cli_seed_close(&seed);
    return rc;
}

static int check_scaled(const float *dst, const float *src, size_t count, float k)
{
    for (size_t i = 0; i < count; i++)
        if (dst[i] != src[i] * k) {
            say("scale_columns: wrong output at element %zu: %g, expected %g", i, dst[i], src[i] * k);
            return -1;
        }
    return 0;
}

static int run_source(demo *d)
{
    size_t n = d->size ? d->size : SOURCE_SIDE, count = n * n;
    const float k = 3.0f;
    gt_kernel *kernel = NULL;
    gt_buffer *dst = NULL, *src = NULL;
    outcome cold, warm;
    int rc = -1;
    if (gt_kernel_build(d->c, source_kernel, "scale_columns", "-O3", &kernel) != 0 ||
        gt_buffer_create(d->c, count * sizeof(float), &dst) != 0 ||
        gt_buffer_create(d->c, count * sizeof(float), &src) != 0) {
        say("scale_columns: %s", gt_last_error(d->c));
    } else {
        float *in = gt_buffer_data(src);
        for (size_t i = 0; i < count; i++)
            in[i] = (float)(i % 1000) * 0.25f;
        gt_range range = {.dims = 2, .global = {n, n, 1}, .local = {16, 16, 1}};
        gt_arg args[] = {gt_arg_buffer(dst), gt_arg_buffer(src), gt_arg_f32(k), gt_arg_i32((int32_t)n)};
        rc = launch(d, "scale_columns (cold)", kernel, &range, args, 4, GT_TUNING_RETUNE, &cold);
        if (rc == 0)
            rc = check_scaled(gt_buffer_data(dst), in, count, k);
        if (rc == 0) {
            memset(gt_buffer_data(dst), 0, count * sizeof(float));
            rc = launch(d, "scale_columns (warm)", kernel, &range, args, 4, GT_TUNING_AUTO, &warm);
        }
        if (rc == 0)
            rc = check_scaled(gt_buffer_data(dst), in, count, k);
        if (rc == 0)
            print_row("scale_columns*", n, &cold, &warm);
    }
    gt_buffer_release(dst);
    gt_buffer_release(src);
    gt_kernel_release(kernel);
    return rc;
}

static int parse_demo_flags(int argc, char **argv, demo *d)
{
    static const struct option longopts[] = {
        {"module", required_argument, NULL, 'm'}, {"size", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'}, {0}};
    static const char usage[] = "demo [--module PATH] [--size N]\n"
                                "  --module PATH  the seed kernels' module (default: the one built or installed)\n"
                                "  --size N       the matrix side for every kernel (default: half of each\n"
                                "                 benchmark's side, 2048 for the kernel built from source)\n";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        char *end;
        if (c == 'm') {
            d->module = optarg;
        } else if (c == 's') {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || !*optarg || v < 64 || v > 65536 || v % 64) {
                say("demo: --size takes a multiple of 64 from 64 to 65536");
                return EXIT_USAGE;
            }
            d->size = v;
        } else if (c == 'h') {
            printf("usage: " PROG " %s", usage);
            return EXIT_OK;
        } else {
            say("demo: unknown option or missing value \"%s\"; usage: " PROG " %s", argv[optind - 1], usage);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        say("demo: unexpected argument \"%s\"", argv[optind]);
        return EXIT_USAGE;
    }
    return -1;
}

int cli_demo(const options *o, int argc, char **argv)
{
    demo d = {0};
    int rc = parse_demo_flags(argc, argv, &d);
    if (rc >= 0)
        return rc;
    if (!d.module && !(d.module = cli_seeds_module())) {
        say("demo: the seed kernels' module was not found; give --module PATH");
        return EXIT_FAILED;
    }
    if (!(d.c = cli_connect(o)))
        return EXIT_FAILED;
    size_t count;
    const gt_seed_bench *benches = gt_seed_benches(&count);
    printf("gridtune demo: %zu seed kernels from %s and one built from source (*), each launched cold "
           "(analysis) and warm (wisdom)\n\n", count, d.module);
    printf("%-14s %6s  %-9s %9s %7s %9s   %-8s %9s   %s\n", "kernel", "side", "cold", "analysis", "gain", "ms", "warm",
           "ms", "winner");
    for (size_t i = 0; i < count; i++)
        d.failures += run_seed(&d, &benches[i]) != 0;
    d.failures += run_source(&d) != 0;
    gt_disconnect(d.c);
    printf("\ncold: the schedule was chosen by analysis on a minority of the workgroups, whose share is shown;\n"
           "\"default\" there means no candidate beat the default by the minimum gain, or the launch was too\n"
           "small to analyse. warm: the same launch again, decided by the wisdom. gain: the winner's estimated\n"
           "speed-up over the default schedule. `" PROG " reports` lists these reports with the reasons;\n"
           "`" PROG " reports --json` gives them whole.\n");
    if (d.failures)
        say("demo: %d of %zu kernels failed", d.failures, count + 1);
    return d.failures ? EXIT_FAILED : EXIT_OK;
}
