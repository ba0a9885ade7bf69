/* cold_bench.c: gridtune-cold-bench, a buffer's first launch with its pages mapped in by
 * gridtuned beforehand (the default) and without (--no-populate), side by side in one run.
 *
 * Two gridtuneds of this run's own, alike but for --no-populate. Per benchmark and round, each
 * daemon gets a fresh seed case: new shared buffers (created, then the inputs copied in), the
 * kernel loaded, and one cold launch (retune: analysis decides), its output checked against
 * the reference (kernels/seeds_client.c). Which daemon goes first alternates from round to
 * round, so drift hits both alike. Per launch: the page faults the workers took in the
 * analysis and in the remainder (the report's phases.page_faults, counted by the probes: root
 * and BPF), the analysis's time, the launch's time as the application sees it (gt_launch to
 * gt_wait: with populating, a launch that comes before its buffers are mapped in waits for
 * them), and the path from the case's creation (buffers made, inputs copied in) to the launch's
 * output: the case's opening plus the launch, leaving out the client's check of the output
 * (a serial reference, the same for both daemons, which would dilute the difference) and the
 * report's fetch. Figures are medians over the rounds; nothing is compared with a fixed target. */
#include "bench/bench_common.h"
#include "bench/private_daemon.h"
#include "kernels/seeds_client.h"
#include "tuner/clock.h"
#include "tuner/report_read.h"
#include "tuner/stats.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLD_PROG "gridtune-cold-bench"
#define DEFAULT_ROUNDS 5

/* The two daemons: buffers populated at creation (gridtuned's default) and not. */
enum daemon_kind { D_POPULATE, D_NO_POPULATE, NDAEMONS };
static const char *const daemon_flags[NDAEMONS][2] = {{NULL}, {"--no-populate", NULL}};
static const char *const daemon_labels[NDAEMONS] = {"populated", "--no-populate"};

/* What one cold launch measured, and its medians over the rounds. */
enum figure { F_ANALYSIS_FAULTS, F_REMAINDER_FAULTS, F_ANALYSIS_MS, F_LAUNCH_MS, F_PATH_MS, NFIGURES };
static const char *const figure_keys[NFIGURES] = {"analysis_page_faults", "remainder_page_faults", "analysis_ms",
                                                  "launch_ms", "case_to_output_ms"};

typedef struct cold_result {
    const gt_seed_bench *bench;
    unsigned rounds;
    double v[NDAEMONS][NFIGURES][GT_BENCH_MAX_REPS];
    double median[NDAEMONS][NFIGURES];
} cold_result;

typedef struct cold_options {
    gt_bench_flags flags;
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} cold_options;

const char *const say_prog = COLD_PROG;

static void usage(FILE *out)
{
    fprintf(out, "usage: " COLD_PROG " [OPTIONS] [BENCHMARK]...\n"
                 "A buffer's first launch, with gridtuned mapping new buffers' pages in before any launch\n"
                 "(its default) and with --no-populate, side by side: two gridtuneds of this run's own, each\n"
                 "round a fresh case (new buffers, inputs copied in) and one cold launch (retune) on each,\n"
                 "which one goes first alternating. Prints the medians of the page faults in the analysis and\n"
                 "the remainder, the analysis's time, the launch's time (gt_launch to gt_wait) and the path\n"
                 "from the case's creation to its output (the output is checked outside that time).\n"
                 "BENCHMARK: any of the ten (default: all; --list names them).\n\n");
    gt_bench_flags_help(out, "rounds, each one cold launch per daemon", DEFAULT_ROUNDS);
    fprintf(out, "  -l, --list            list the benchmarks and exit\n"
                 "  -h, --help            this text\n"
                 "environment: GRIDTUNE_DAEMON, the gridtuned to start (default: the build tree's, else the\n"
                 "installed one). The page faults are counted by gridtuned's probes (root, or CAP_BPF and\n"
                 "CAP_PERFMON); without them they show as -.\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, cold_options *o)
{
    static const struct option own[] = {{0}};
    *o = (cold_options){.flags = {.reps = DEFAULT_ROUNDS}};
    const gt_bench_cli cli = {.options = own, .usage = usage, .list = gt_bench_list};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc)
        return rc > 0 ? 0 : 2;
    return gt_bench_operands(argc, argv, o->flags.size, NULL, o->benches, &o->nbenches) ? 2 : -1;
}

/* One fresh case on daemon k and its cold launch, checked; its figures go to round `round`. */
static int cold_launch(gt_client *c, const char *module, const cold_options *o, cold_result *r, int k,
                       unsigned round)
{
    char what[128], *report = NULL;
    snprintf(what, sizeof what, "%s, round %u, %s", r->bench->name, round + 1, daemon_labels[k]);
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_RETUNE;
    cli_seed s;
    uint64_t start = gt_clock_ns(), launch_ns = 0;
    int rc = cli_seed_open(c, module, r->bench, o->flags.size, &s);
    uint64_t open_ns = gt_clock_ns() - start;
    if (rc == 0)
        rc = cli_seed_run(&s, what, &opts, &report, &launch_ns);
    uint64_t path_ns = open_ns + launch_ns;
    cli_seed_close(&s);
    if (rc != 0)
        return -1;
    gt_report_summary sum;
    gt_report_read_text(report, &sum);
    free(report);
    double *v[NFIGURES];
    for (int f = 0; f < NFIGURES; f++)
        v[f] = &r->v[k][f][round];
    *v[F_ANALYSIS_FAULTS] = sum.analysis_page_faults;
    *v[F_REMAINDER_FAULTS] = sum.remainder_page_faults;
    *v[F_ANALYSIS_MS] = sum.analysis_ns / 1e6;
    *v[F_LAUNCH_MS] = (double)launch_ns / 1e6;
    *v[F_PATH_MS] = (double)path_ns / 1e6;
    return 0;
}

static int run_bench(gt_client *c[NDAEMONS], const char *module, const cold_options *o, cold_result *r)
{
    for (unsigned round = 0; round < o->flags.reps; round++)
        for (int i = 0; i < NDAEMONS; i++) {
            int k = (int)((round + (unsigned)i) % NDAEMONS);
            if (cold_launch(c[k], module, o, r, k, round) != 0)
                return -1;
        }
    r->rounds = o->flags.reps;
    for (int k = 0; k < NDAEMONS; k++)
        for (int f = 0; f < NFIGURES; f++)
            r->median[k][f] = gt_stats_median(r->v[k][f], r->rounds); /* NaN when none was counted */
    return 0;
}

/* A median as the table shows it: - when it was not counted. */
static const char *shown(double v, int decimals, char *buf, size_t len)
{
    if (isnan(v))
        return "-";
    snprintf(buf, len, "%.*f", decimals, v);
    return buf;
}

static void print_results(const cold_result *r, unsigned n, unsigned workers)
{
    printf("\n%s: medians of %u rounds, %u workers, one run; populated = gridtuned's default, "
           "unpopulated = --no-populate\n",
           COLD_PROG, n ? r[0].rounds : 0, workers);
    printf("%-14s %21s %21s %21s %23s %23s\n", "", "analysis page faults", "remainder page faults",
           "analysis ms", "cold launch ms", "case to output ms");
    printf("%-14s %10s %10s %10s %10s %10s %10s %10s %10s %5s %10s %10s %5s\n", "benchmark", "populated", "unpop.",
           "populated", "unpop.", "populated", "unpop.", "populated", "unpop.", "ratio", "populated", "unpop.", "ratio");
    for (unsigned i = 0; i < n; i++) {
        const double(*m)[NFIGURES] = r[i].median;
        char b[10][32];
        printf("%-14s %10s %10s %10s %10s %10s %10s %10s %10s %5.2f %10s %10s %5.2f\n", r[i].bench->name,
               shown(m[D_POPULATE][F_ANALYSIS_FAULTS], 0, b[0], 32), shown(m[D_NO_POPULATE][F_ANALYSIS_FAULTS], 0, b[1], 32),
               shown(m[D_POPULATE][F_REMAINDER_FAULTS], 0, b[2], 32),
               shown(m[D_NO_POPULATE][F_REMAINDER_FAULTS], 0, b[3], 32),
               shown(m[D_POPULATE][F_ANALYSIS_MS], 1, b[4], 32), shown(m[D_NO_POPULATE][F_ANALYSIS_MS], 1, b[5], 32),
               shown(m[D_POPULATE][F_LAUNCH_MS], 1, b[6], 32), shown(m[D_NO_POPULATE][F_LAUNCH_MS], 1, b[7], 32),
               m[D_NO_POPULATE][F_LAUNCH_MS] / m[D_POPULATE][F_LAUNCH_MS], shown(m[D_POPULATE][F_PATH_MS], 1, b[8], 32),
               shown(m[D_NO_POPULATE][F_PATH_MS], 1, b[9], 32),
               m[D_NO_POPULATE][F_PATH_MS] / m[D_POPULATE][F_PATH_MS]);
    }
    printf("ratio: unpopulated / populated (above 1: populating made it faster)\n");
}

static int write_json(const cold_result *r, unsigned n, const char *path)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "benchmarks");
    cJSON_AddStringToObject(root, "note", "one run on this machine; compare within this run only");
    for (unsigned i = 0; i < n; i++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "benchmark", r[i].bench->name);
        cJSON_AddNumberToObject(b, "rounds", r[i].rounds);
        for (int k = 0; k < NDAEMONS; k++) {
            cJSON *d = cJSON_AddObjectToObject(b, k == D_POPULATE ? "populated" : "unpopulated");
            for (int f = 0; f < NFIGURES; f++)
                if (isnan(r[i].median[k][f]))
                    cJSON_AddNullToObject(d, figure_keys[f]);
                else
                    cJSON_AddNumberToObject(d, figure_keys[f], r[i].median[k][f]);
        }
        cJSON_AddItemToArray(list, b);
    }
    return gt_bench_json_write(root, path);
}

int main(int argc, char **argv)
{
    cold_options o;
    int status = parse(argc, argv, &o);
    if (status >= 0)
        return status;
    const char *module = o.flags.module;
    cold_result *results = calloc(o.nbenches, sizeof *results);
    gt_private_daemon d[NDAEMONS] = {0};
    gt_client *c[NDAEMONS] = {0};
    int rc = results ? 0 : -1;
    if (!results)
        say("no memory for the results of %u benchmarks", o.nbenches);
    for (int k = 0; rc == 0 && k < NDAEMONS; k++)
        rc = gt_private_daemon_start(gt_private_daemon_program(), o.flags.workers, false, daemon_flags[k], &d[k],
                                     &c[k]);
    unsigned done = 0;
    for (; rc == 0 && done < o.nbenches; done++) {
        results[done].bench = o.benches[done];
        rc = run_bench(c, module, &o, &results[done]);
    }
    if (rc == 0) {
        print_results(results, done, (unsigned)gt_private_daemon_status_number(c[D_POPULATE], "workers"));
        if (o.flags.json)
            rc = write_json(results, done, o.flags.json);
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
