/* cli_demo.c: `gridtune demo`: the seed kernels from their module and one kernel built from
 * source, each launched twice through gridtuned: cold (analysis decides) and warm (the
 * wisdom remembers). Every output is checked against its reference, and a summary of the
 * reports is printed: the decision, the winner, the analysis share and the gain. */
#include "cli.h"

#include "kernels/seedbench.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GT_SEEDS_MODULE_PATHS
#define GT_SEEDS_MODULE_PATHS ""
#endif
#define DEMO_SIZE_DIVISOR 4 /* the demo runs each seed at a quarter of its benchmark side */
#define SOURCE_SIDE 2048

/* A kernel written the naive way: work-item (x, y) touches element x*n + y, so consecutive
 * items in x are n floats apart. gridtune should find an item order that walks y first. */
static const char source_kernel[] =
    "#include <gridtune/kernel.h>\n"
    "GT_KERNEL(scale_columns, float *, dst, const float *, src, float, k, int32_t, n)\n"
    "{\n"
    "    size_t x = gt_global_id(0), y = gt_global_id(1);\n"
    "    dst[x * (size_t)n + y] = src[x * (size_t)n + y] * k;\n"
    "}\n";

typedef struct demo {
    gt_client *c;
    const char *module;
    size_t size; /* 0: each seed's default side / DEMO_SIZE_DIVISOR */
    int failures;
} demo;

/* One launch's summary, from its report. */
typedef struct outcome {
    char source[16], winner[128];
    double analysis, gain, ms;
} outcome;

static void summarise(const char *json, outcome *out)
{
    cJSON *r = cJSON_Parse(json);
    const cJSON *decision = cJSON_GetObjectItemCaseSensitive(r, "decision"),
                *phases = cJSON_GetObjectItemCaseSensitive(r, "phases"),
                *gain = cJSON_GetObjectItemCaseSensitive(r, "estimated_gain");
    const cJSON *source = cJSON_GetObjectItemCaseSensitive(decision, "source"),
                *winner = cJSON_GetObjectItemCaseSensitive(decision, "winner"),
                *fraction = cJSON_GetObjectItemCaseSensitive(phases, "analysis_fraction"),
                *total = cJSON_GetObjectItemCaseSensitive(phases, "total_ns");
    snprintf(out->source, sizeof out->source, "%s", cJSON_IsString(source) ? source->valuestring : "?");
    snprintf(out->winner, sizeof out->winner, "%s", cJSON_IsString(winner) ? winner->valuestring : "?");
    out->analysis = cJSON_IsNumber(fraction) ? fraction->valuedouble : 0;
    out->gain = cJSON_IsNumber(gain) ? gain->valuedouble : NAN;
    out->ms = cJSON_IsNumber(total) ? total->valuedouble / 1e6 : 0;
    cJSON_Delete(r);
}

/* Launches, waits, and summarises the report. Returns 0 or prints why and returns -1. */
static int launch(demo *d, const char *what, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
                  gt_tuning tuning, outcome *out)
{
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    gt_event ev = 0;
    char *report = NULL;
    if (gt_launch(d->c, k, range, args, nargs, &opts, &ev) != 0 || gt_wait(d->c, ev) != 0 ||
        gt_report(d->c, ev, &report) != 0) {
        say("%s: %s", what, gt_last_error(d->c));
        if (ev)
            gt_event_release(d->c, ev);
        return -1;
    }
    summarise(report, out);
    free(report);
    gt_event_release(d->c, ev);
    return 0;
}

static void print_row(const char *name, size_t n, const outcome *cold, const outcome *warm)
{
    char gain[16] = "-";
    if (!isnan(cold->gain))
        snprintf(gain, sizeof gain, "%+.0f%%", cold->gain * 100);
    printf("%-14s %6zu  %-9s %8.1f%% %7s %9.1f   %-8s %9.1f   %s\n", name, n, cold->source, cold->analysis * 100, gain,
           cold->ms, warm->source, warm->ms, cold->winner);
    fflush(stdout);
}

/* Shared buffers holding copies of the case's buffers (the case's own are plain memory). */
static int share_buffers(demo *d, const gt_seed_case *sc, gt_buffer **gb)
{
    for (unsigned i = 0; i < sc->nbuffers; i++) {
        if (gt_buffer_create(d->c, sc->buffer_bytes[i], &gb[i]) != 0) {
            say("%s: %s", sc->bench->name, gt_last_error(d->c));
            return -1;
        }
        memcpy(gt_buffer_data(gb[i]), sc->buffers[i], sc->buffer_bytes[i]);
    }
    return 0;
}

/* The case's arguments as client arguments: buffers by identity, scalars by their bytes. */
static void case_args(const gt_seed_case *sc, gt_buffer **gb, gt_arg *args)
{
    for (unsigned i = 0; i < sc->nargs; i++) {
        const gt_arg_value *a = &sc->args[i];
        if (a->is_buffer) {
            for (unsigned b = 0; b < sc->nbuffers; b++)
                if (sc->buffers[b] == a->v.ptr)
                    args[i] = gt_arg_buffer(gb[b]);
        } else {
            args[i] = a->size == 4 ? gt_arg_u32(a->v.u32) : gt_arg_u64(a->v.u64);
        }
    }
}

/* Poisons the output, launches, copies the output back and checks it. */
static int run_checked(demo *d, gt_seed_case *sc, gt_buffer **gb, gt_kernel *k, const gt_arg *args, gt_tuning tuning,
                       outcome *out)
{
    char err[512], what[64];
    snprintf(what, sizeof what, "%s (%s)", sc->bench->name, tuning == GT_TUNING_RETUNE ? "cold" : "warm");
    gt_seed_case_poison_output(sc);
    memcpy(gt_buffer_data(gb[sc->output]), sc->buffers[sc->output], sc->buffer_bytes[sc->output]);
    if (launch(d, what, k, &sc->range, args, sc->nargs, tuning, out) != 0)
        return -1;
    memcpy(sc->buffers[sc->output], gt_buffer_data(gb[sc->output]), sc->buffer_bytes[sc->output]);
    if (gt_seed_case_verify(sc, err, sizeof err) != 0) {
        say("%s: wrong output: %s", what, err);
        return -1;
    }
    return 0;
}

static int run_seed(demo *d, const gt_seed_bench *b)
{
    size_t n = d->size ? d->size : b->default_n / DEMO_SIZE_DIVISOR / b->min_n * b->min_n;
    gt_seed_case *sc = NULL;
    gt_buffer *gb[GT_SEED_MAX_BUFFERS] = {0};
    gt_arg args[GT_SEED_MAX_ARGS];
    gt_kernel *k = NULL;
    outcome cold, warm;
    char err[512];
    int rc = -1;
    if (gt_seed_case_create(b, n, &sc, err, sizeof err) != 0)
        say("%s", err);
    else if (share_buffers(d, sc, gb) == 0 && gt_kernel_load(d->c, d->module, b->kernel, &k) != 0)
        say("%s: %s", b->name, gt_last_error(d->c));
    else if (k) {
        case_args(sc, gb, args);
        rc = run_checked(d, sc, gb, k, args, GT_TUNING_RETUNE, &cold);
        if (rc == 0)
            rc = run_checked(d, sc, gb, k, args, GT_TUNING_AUTO, &warm);
        if (rc == 0)
            print_row(b->name, n, &cold, &warm);
    }
    gt_kernel_release(k);
    for (unsigned i = 0; i < GT_SEED_MAX_BUFFERS; i++)
        if (gb[i])
            gt_buffer_release(gb[i]);
    if (sc)
        gt_seed_case_destroy(sc);
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

static const char *find_module(void)
{
    static char found[4096];
    char paths[] = GT_SEEDS_MODULE_PATHS, *save = NULL;
    for (char *p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save))
        if (access(p, R_OK) == 0) {
            snprintf(found, sizeof found, "%s", p);
            return found;
        }
    return NULL;
}

static int parse_demo_flags(int argc, char **argv, demo *d)
{
    static const struct option longopts[] = {
        {"module", required_argument, NULL, 'm'}, {"size", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'}, {0}};
    static const char usage[] = "demo [--module PATH] [--size N]\n"
                                "  --module PATH  the seed kernels' module (default: the one built or installed)\n"
                                "  --size N       the matrix side for every kernel (default: a quarter of each\n"
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
    if (!d.module && !(d.module = find_module())) {
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
