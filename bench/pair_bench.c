/* pair_bench.c: gridtune-pair-bench, what one setting of gridtuned costs or gains a launch:
 * two gridtuneds of this run's own, alike but for that setting, side by side in one run.
 *   --pair isolation (default): kernels in an executor process per user (the default) against
 *     gridtuned itself (--isolation none), both with memfd buffers, since --isolation none has
 *     no buffer store;
 *   --pair buffers: buffers on the users' tmpfs stores, with huge pages (the default), against
 *     memfds (--buffer-store memfd), both with executor processes.
 *
 * Both daemons have --refine off. Per benchmark, each daemon gets its own case; the first
 * daemon's first launch lets analysis decide, and both then run that winner, forced, so that
 * they run the same schedule. Each round
 * times one launch (gt_launch to gt_wait, its output checked outside that time) on each daemon,
 * which one goes first alternating. Then the empty launch's round trip (gt_run, answered on
 * completion), in blocks alternating between the daemons. Figures are medians; the ratio is
 * the second daemon's over the first's. Nothing is compared with a fixed target. */
#include "bench/bench_common.h"
#include "bench/private_daemon.h"
#include "bench/roundtrip.h"
#include "kernels/seeds_client.h"
#include "tuner/report_read.h"
#include "tuner/stats.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define ISO_PROG "gridtune-pair-bench"
#define DEFAULT_ROUNDS 10
#define TRIP_BLOCKS 20
#define TRIP_BLOCK_REPS 50

/* The first daemon is the baseline; ratios are the second's over the first's. */
enum { D_BASE, D_OTHER, NDAEMONS };
typedef struct pair {
    const char *name;
    const char *flags[NDAEMONS][5];
    const char *labels[NDAEMONS]; /* also the JSON keys */
    const char *ratio_note;
} pair;
static const pair pairs[] = {
    {"isolation",
     {{"--refine", "off", "--isolation", "none", NULL}, {"--refine", "off", "--buffer-store", "memfd", NULL}},
     {"in_process", "executor"},
     "executor / in-process (above 1: the executor process is slower)"},
    {"buffers",
     {{"--refine", "off", "--buffer-store", "memfd", NULL}, {"--refine", "off", NULL}},
     {"memfd", "tmpfs"},
     "tmpfs store / memfd (below 1: buffers on the store are faster)"},
};
static const pair *P = &pairs[0];

typedef struct iso_result {
    const gt_seed_bench *bench; /* NULL: the empty launch's round trip */
    char schedule[GT_SCHEDULE_TEXT_MAX]; /* the one both ran */
    unsigned n;
    double v[NDAEMONS][GT_BENCH_MAX_REPS * TRIP_BLOCK_REPS > TRIP_BLOCKS * TRIP_BLOCK_REPS
                           ? GT_BENCH_MAX_REPS * TRIP_BLOCK_REPS
                           : TRIP_BLOCKS * TRIP_BLOCK_REPS];
    double median[NDAEMONS];
} iso_result;

typedef struct iso_options {
    gt_bench_flags flags;
    bool only_trip; /* --only-overhead: no seed benchmarks */
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} iso_options;

const char *const say_prog = ISO_PROG;

static void usage(FILE *out)
{
    fprintf(out, "usage: " ISO_PROG " [OPTIONS] [BENCHMARK]...\n"
                 "What one setting of gridtuned costs or gains a launch: two gridtuneds alike but for it,\n"
                 "side by side in one run, both with --refine off. Each round times one warm launch\n"
                 "(gt_launch to gt_wait) of every benchmark on each daemon, which one first alternating, with\n"
                 "the schedule the first daemon's analysis chose; then the empty launch's round trip (gt_run)\n"
                 "in alternating blocks. Prints medians and the ratio second / first.\n"
                 "BENCHMARK: any of the ten (default: all; --list names them).\n\n");
    gt_bench_flags_help(out, "rounds of warm launches", DEFAULT_ROUNDS);
    fprintf(out, "      --pair PAIR       isolation (default): --isolation none, then executor processes, both\n"
                 "                        with --buffer-store memfd; buffers: --buffer-store memfd, then the\n"
                 "                        tmpfs stores, both with executor processes\n"
                 "      --only-overhead   measure only the empty launch's round trip, no seed benchmark\n"
                 "  -l, --list            list the benchmarks and exit\n"
                 "  -h, --help            this text\n"
                 "environment: GRIDTUNE_DAEMON, the gridtuned to start (default: the build tree's, else the\n"
                 "installed one).\n");
}

enum { OPT_ONLY_OVERHEAD = 256, OPT_PAIR };

static int flag(int c, const char *arg, void *ctx)
{
    iso_options *o = ctx;
    if (c == OPT_ONLY_OVERHEAD) {
        o->only_trip = true;
        return 0;
    }
    if (c != OPT_PAIR)
        return -1;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(arg, pairs[i].name) == 0) {
            P = &pairs[i];
            return 0;
        }
    say("--pair \"%s\": expected isolation or buffers", arg);
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, iso_options *o)
{
    static const struct option own[] = {{"only-overhead", no_argument, 0, OPT_ONLY_OVERHEAD},
                                        {"pair", required_argument, 0, OPT_PAIR}, {0}};
    *o = (iso_options){.flags = {.reps = DEFAULT_ROUNDS}};
    const gt_bench_cli cli = {.options = own, .flag = flag, .usage = usage, .list = gt_bench_list};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc)
        return rc > 0 ? 0 : 2;
    if (o->only_trip && optind < argc) {
        say("--only-overhead runs no benchmark, but %s was named", argv[optind]);
        return 2;
    }
    if (!o->only_trip && gt_bench_operands(argc, argv, o->flags.size, NULL, o->benches, &o->nbenches) != 0)
        return 2;
    return -1;
}

static void medians(iso_result *r)
{
    for (int k = 0; k < NDAEMONS; k++)
        r->median[k] = gt_stats_median(r->v[k], r->n);
}

/* One case per daemon. The first daemon's first launch (untimed) lets analysis decide;
 * then both run its winner, forced, so that the two paths run the same schedule: one untimed
 * launch each, then o->flags.reps rounds of one timed launch on each. */
static int run_bench(gt_client *c[NDAEMONS], const char *module, const iso_options *o, iso_result *r)
{
    cli_seed s[NDAEMONS];
    memset(s, 0, sizeof s);
    gt_launch_options opts = gt_launch_options_default();
    gt_report_summary sum = {0};
    int rc = 0;
    for (int k = 0; rc == 0 && k < NDAEMONS; k++) {
        char what[96];
        char *report = NULL;
        snprintf(what, sizeof what, "%s, first launch, %s", r->bench->name, P->labels[k]);
        rc = cli_seed_open(c[k], module, r->bench, o->flags.size, &s[k]);
        if (rc == 0 && k == D_BASE && (rc = cli_seed_run(&s[k], what, NULL, &report, NULL)) == 0) {
            gt_report_read_text(report, &sum);
            opts.schedule = sum.winner;
            snprintf(r->schedule, sizeof r->schedule, "%s", sum.winner);
        }
        free(report);
        report = NULL;
        if (rc == 0)
            rc = cli_seed_run(&s[k], what, &opts, &report, NULL);
        free(report);
    }
    for (unsigned round = 0; rc == 0 && round < o->flags.reps; round++)
        for (int i = 0; rc == 0 && i < NDAEMONS; i++) {
            int k = (int)((round + (unsigned)i) % NDAEMONS);
            char what[96];
            uint64_t ns = 0;
            char *report = NULL;
            snprintf(what, sizeof what, "%s, round %u, %s", r->bench->name, round + 1, P->labels[k]);
            rc = cli_seed_run(&s[k], what, &opts, &report, &ns);
            free(report);
            r->v[k][round] = (double)ns / 1e6;
        }
    for (int k = 0; k < NDAEMONS; k++)
        cli_seed_close(&s[k]);
    r->n = o->flags.reps;
    medians(r);
    return rc;
}

/* The empty kernel's round trip in one trip, TRIP_BLOCKS blocks per daemon, alternating. */
static int run_trips(gt_client *c[NDAEMONS], iso_result *r)
{
    gt_kernel *k[NDAEMONS] = {0};
    int rc = 0;
    for (int d = 0; rc == 0 && d < NDAEMONS; d++)
        if (gt_kernel_build(c[d], gt_rt_empty_source, "empty", "-O2", &k[d]) != 0) {
            say("building the empty kernel (%s): %s", P->labels[d], gt_last_error(c[d]));
            rc = -1;
        }
    uint64_t ns[TRIP_BLOCK_REPS];
    for (int d = 0; rc == 0 && d < NDAEMONS; d++) /* warm-up, untimed */
        rc = gt_rt_gridtuned(c[d], k[d], GT_RT_ONE_TRIP, TRIP_BLOCK_REPS, ns);
    for (unsigned b = 0; rc == 0 && b < TRIP_BLOCKS; b++)
        for (int i = 0; rc == 0 && i < NDAEMONS; i++) {
            int d = (int)((b + (unsigned)i) % NDAEMONS);
            rc = gt_rt_gridtuned(c[d], k[d], GT_RT_ONE_TRIP, TRIP_BLOCK_REPS, ns);
            for (unsigned j = 0; j < TRIP_BLOCK_REPS; j++)
                r->v[d][b * TRIP_BLOCK_REPS + j] = (double)ns[j] / 1e3;
        }
    for (int d = 0; d < NDAEMONS; d++)
        gt_kernel_release(k[d]);
    r->n = TRIP_BLOCKS * TRIP_BLOCK_REPS;
    medians(r);
    return rc;
}

static void print_results(const iso_result *r, unsigned n, const iso_result *trip, unsigned rounds)
{
    printf("\n%s: one run; warm launches (gt_launch to gt_wait), medians of %u rounds, ms\n", ISO_PROG, rounds);
    printf("%-14s %12s %12s %10s  %s\n", "benchmark", P->labels[D_BASE], P->labels[D_OTHER],
           "ratio", "schedule (both)");
    for (unsigned i = 0; i < n; i++)
        printf("%-14s %12.2f %12.2f %10.3f  %s\n", r[i].bench->name, r[i].median[D_BASE],
               r[i].median[D_OTHER], r[i].median[D_OTHER] / r[i].median[D_BASE], r[i].schedule);
    printf("empty launch round trip (gt_run), median of %u, us\n", trip->n);
    printf("%-14s %12.1f %12.1f %10.3f\n", "empty", trip->median[D_BASE], trip->median[D_OTHER],
           trip->median[D_OTHER] / trip->median[D_BASE]);
    printf("ratio: %s\n", P->ratio_note);
}

static void add_result(cJSON *o, const iso_result *r, const char *unit)
{
    cJSON_AddNumberToObject(o, "samples", r->n);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddNumberToObject(o, P->labels[D_BASE], r->median[D_BASE]);
    cJSON_AddNumberToObject(o, P->labels[D_OTHER], r->median[D_OTHER]);
    cJSON_AddNumberToObject(o, "ratio", r->median[D_OTHER] / r->median[D_BASE]);
}

static int write_json(const iso_result *r, unsigned n, const iso_result *trip, const char *path)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "benchmarks");
    cJSON_AddStringToObject(root, "note", "one run on this machine; compare within this run only");
    for (unsigned i = 0; i < n; i++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "benchmark", r[i].bench->name);
        cJSON_AddStringToObject(b, "schedule", r[i].schedule);
        add_result(b, &r[i], "ms");
        cJSON_AddItemToArray(list, b);
    }
    add_result(cJSON_AddObjectToObject(root, "empty_round_trip"), trip, "us");
    return gt_bench_json_write(root, path);
}

int main(int argc, char **argv)
{
    iso_options o;
    int status = parse(argc, argv, &o);
    if (status >= 0)
        return status;
    const char *module = o.flags.module;
    iso_result *results = calloc(o.nbenches + 1, sizeof *results);
    gt_private_daemon d[NDAEMONS] = {0};
    gt_client *c[NDAEMONS] = {0};
    int rc = results ? 0 : -1;
    if (!results)
        say("no memory for the results of %u benchmarks", o.nbenches);
    for (int k = 0; rc == 0 && k < NDAEMONS; k++)
        rc = gt_private_daemon_start(gt_private_daemon_program(), o.flags.workers, false, P->flags[k], &d[k],
                                     &c[k]);
    unsigned done = 0;
    for (; rc == 0 && done < o.nbenches; done++) {
        results[done].bench = o.benches[done];
        rc = run_bench(c, module, &o, &results[done]);
    }
    iso_result *trip = results ? &results[o.nbenches] : NULL;
    if (rc == 0)
        rc = run_trips(c, trip);
    if (rc == 0) {
        print_results(results, done, trip, o.flags.reps);
        if (o.flags.json)
            rc = write_json(results, done, trip, o.flags.json);
    }
    for (int k = 0; k < NDAEMONS; k++) {
        gt_disconnect(c[k]);
        if (d[k].pid && gt_private_daemon_stop(&d[k]) != 0)
            rc = -1;
        gt_private_daemon_remove(&d[k]);
    }
    free(results);
    return rc ? 1 : 0;
}
