/* cli_bench.c: `gridtune bench`: the tuner's launches run through gridtuned, timed as an
 * application sees it (bench/tune_bench.c measures series of launches in-process). For each
 * seed benchmark, side by side in one run: the default schedule forced, a cold tuned launch
 * (retune: analysis decides, and the decision is remembered), a warm one straight after (a
 * wisdom hit) and, with --oracle, every candidate of the first cold launch forced on the whole
 * launch. While gridtuned refines a decision (--refine, on by default), a warm launch runs a
 * contender on a quarter of it, or resumes an analysis the cold launch's time limit cut short:
 * those warm launches are counted as refining or resumed, and the warm median is then not the
 * winner's alone (gridtune-tune-bench measures refinement itself).
 *
 * Method:
 * - A launch's time is the client's: the monotonic clock around gt_run (one request), so the
 *   socket, the queue, planning and the report are in it. The report's phases.total_ns (the
 *   workgroups' wall time inside the daemon) is kept beside it.
 * - Round 0 is an untimed warm-up: the default and one cold launch. It makes the daemon touch
 *   every page of the freshly shared buffers, which would otherwise bill the first timed
 *   contender, and the cold launch's report lists the oracle's candidates.
 * - Then --rounds timed rounds. Each runs every contender once (cold and warm as a pair); the
 *   order rotates by a 1/rounds share from round to round, so drift hits all alike.
 * - Every output is poisoned before its launch and checked against the reference after it.
 * - Figures are medians, ratios are of medians. Nothing is compared with a fixed target. */
#include "cli.h"

#include "kernels/seed_runs.h"
#include "kernels/seeds_client.h"
#include "tuner/report_read.h"
#include "tuner/schedule.h"
#include "tuner/stats.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROUNDS 3
#define MAX_SIZE 65536
#define SOURCE_MAX 16
#define REASON_MAX 256

typedef struct bench_options {
    const char *module; /* NULL: cli_seeds_module() */
    const char *json;   /* NULL: no JSON */
    unsigned rounds;
    size_t size; /* 0: each benchmark's default_n */
    bool oracle;
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} bench_options;

/* ---- command line ------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    size_t count, step = 1;
    const gt_seed_bench *all = gt_seed_benches(&count);
    for (size_t i = 0; i < count; i++)
        step = all[i].min_n > step ? all[i].min_n : step;
    fprintf(out,
            "usage: " PROG " bench [--bench NAME]... [--rounds N] [--size N] [--oracle] [--json FILE] [--module PATH]\n"
            "The tuner benchmark through the daemon. For each seed benchmark, in one run and in rotating\n"
            "rounds: the default schedule forced, a cold tuned launch (analysis decides), a warm one right\n"
            "after (from the wisdom) and, with --oracle, every candidate of the first cold launch forced.\n"
            "Times are the client's wall clock around gt_run (one request); every output is checked. While\n"
            "gridtuned refines a decision (--refine), a warm launch runs a contender on a quarter of it,\n"
            "or resumes an analysis the cold launch's time limit cut short: such warm launches are\n"
            "counted as refining or resumed and marked r.\n"
            "  --bench NAME    a benchmark to run; repeatable (default: all %zu)\n"
            "  --rounds N      timed rounds after an untimed warm-up round, 1 to %d (default %d)\n"
            "  --size N        the matrix side for every benchmark, a multiple of %zu up to %d\n"
            "                  (default: each one's own, about 0.2-2 s a launch on two cores)\n"
            "  --oracle        also time each candidate of the first cold launch on the whole launch (slow)\n"
            "  --json FILE     write every time, the medians, the ratios and the reports' decisions\n"
            "  --module PATH   the seed kernels' module (default: the one built or installed)\n"
            "The cold launches retune, so the daemon's wisdom keeps their decisions afterwards.\n"
            "benchmarks (default side):\n",
            count, GT_BENCH_MAX_REPS, DEFAULT_ROUNDS, step, MAX_SIZE);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "  %-14s %6zu  %s\n", all[i].name, all[i].default_n, all[i].summary);
}

static int parse_number(const char *flag, const char *text, unsigned long min, unsigned long max,
                        unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (*end || !*text || *text == '-' || v < min || v > max) {
        say("bench: %s \"%s\": expected a whole number from %lu to %lu", flag, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int add_bench(bench_options *o, const char *name)
{
    const gt_seed_bench *b = gt_seed_bench_find(name);
    if (!b) {
        say("bench: no benchmark \"%s\"; `" PROG " bench --help` lists them", name);
        return -1;
    }
    for (unsigned i = 0; i < o->nbenches; i++)
        if (o->benches[i] == b) {
            say("bench: --bench %s given twice", name);
            return -1;
        }
    o->benches[o->nbenches++] = b; /* ten benchmarks, no duplicates: always room */
    return 0;
}

/* Every chosen benchmark must take --size. */
static int check_size(const bench_options *o)
{
    for (unsigned i = 0; o->size && i < o->nbenches; i++)
        if (o->size % o->benches[i]->min_n) {
            say("bench: --size %zu: %s needs a multiple of %zu", o->size, o->benches[i]->name,
                o->benches[i]->min_n);
            return -1;
        }
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_flags(int argc, char **argv, bench_options *o)
{
    enum { OPT_BENCH = 256, OPT_ROUNDS, OPT_SIZE, OPT_ORACLE, OPT_JSON, OPT_MODULE };
    static const struct option longopts[] = {
        {"bench", required_argument, NULL, OPT_BENCH}, {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"size", required_argument, NULL, OPT_SIZE},   {"oracle", no_argument, NULL, OPT_ORACLE},
        {"json", required_argument, NULL, OPT_JSON},   {"module", required_argument, NULL, OPT_MODULE},
        {"help", no_argument, NULL, 'h'},              {0}};
    *o = (bench_options){.rounds = DEFAULT_ROUNDS};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        unsigned long v;
        switch (c) {
        case OPT_BENCH:
            if (add_bench(o, optarg))
                return EXIT_USAGE;
            break;
        case OPT_ROUNDS:
            if (parse_number("--rounds", optarg, 1, GT_BENCH_MAX_REPS, &v))
                return EXIT_USAGE;
            o->rounds = (unsigned)v;
            break;
        case OPT_SIZE:
            if (parse_number("--size", optarg, 16, MAX_SIZE, &v))
                return EXIT_USAGE;
            o->size = v;
            break;
        case OPT_ORACLE:
            o->oracle = true;
            break;
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_MODULE:
            o->module = optarg;
            break;
        case 'h':
            usage(stdout);
            return EXIT_OK;
        case ':':
            say("bench: %s needs a value; `" PROG " bench --help` shows the options", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            say("bench: unknown option \"%s\"; `" PROG " bench --help` shows the options", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        say("bench: unexpected argument \"%s\"; benchmarks are chosen with --bench NAME", argv[optind]);
        return EXIT_USAGE;
    }
    if (o->nbenches == 0)
        gt_bench_add_all(o->benches, &o->nbenches);
    return check_size(o) ? EXIT_USAGE : -1;
}

/* ---- what one benchmark measured ---------------------------------------------------------- */

/* One launch, from the client's clock and its report. */
typedef struct launch_note {
    uint64_t wall_ns, total_ns;
    double analysis_fraction;
    char source[SOURCE_MAX];
    char winner[GT_SCHEDULE_TEXT_MAX];
    char reason[REASON_MAX];
    bool resumed; /* an analysis that resumed the wisdom entry's */
} launch_note;

typedef struct contender {
    char schedule[GT_SCHEDULE_TEXT_MAX]; /* the forced one; "" for cold and warm */
    gt_bench_times wall, total;          /* the client's times and the reports' total_ns */
    launch_note notes[GT_BENCH_MAX_REPS];
} contender;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    bool completed;
    unsigned launches, verified;
    launch_note warmup_default, warmup_cold;
    contender def, cold, warm;
    gt_contest_oracle set; /* the candidates of the warm-up cold launch (--oracle) */
    contender *oracle;     /* the set's schedules, timed */
    size_t noracle, best;
    double analysis_fraction; /* median over the timed cold launches */
    unsigned wisdom_hits;     /* timed warm launches decided by the wisdom */
    unsigned refining;        /* of those, launches that ran a contender on a share */
    unsigned resumed;         /* timed warm launches that resumed the wisdom entry's analysis */
} bench_result;

static void note_report(const cJSON *r, uint64_t wall_ns, launch_note *note)
{
    gt_report_summary s;
    gt_report_read(r, &s);
    *note = (launch_note){.wall_ns = wall_ns, .total_ns = (uint64_t)s.total_ns, .analysis_fraction = s.analysis_fraction,
                          .resumed = s.resumed};
    snprintf(note->source, sizeof note->source, "%s", s.source);
    snprintf(note->winner, sizeof note->winner, "%s", s.winner);
    snprintf(note->reason, sizeof note->reason, "%s", s.reason);
}

static void contender_add(contender *c, const launch_note *note)
{
    unsigned k = c->wall.n;
    c->notes[k] = *note;
    c->wall.ns[c->wall.n++] = note->wall_ns;
    c->total.ns[c->total.n++] = note->total_ns;
}

/* The schedules in the candidates of a cold launch's report become the oracle's contenders. */
static int oracle_from(bench_result *br, const cJSON *report)
{
    char err[256];
    for (size_t i = 0, n = gt_report_ncandidates(report); i < n; i++) {
        const char *s = gt_report_candidate(report, i);
        int rc = s ? gt_contest_oracle_add_text(&br->set, s, err, sizeof err) : 0;
        if (rc) {
            say("bench: %s: %s", br->bench->name, rc == -ENOMEM ? "out of memory for the oracle's candidates" : err);
            return -1;
        }
    }
    size_t n = gt_contest_oracle_count(&br->set);
    if (n == 0)
        return 0;
    if (!(br->oracle = calloc(n, sizeof *br->oracle))) {
        say("bench: %s: out of memory for %zu oracle candidates", br->bench->name, n);
        return -1;
    }
    for (; br->noracle < n; br->noracle++)
        snprintf(br->oracle[br->noracle].schedule, GT_SCHEDULE_TEXT_MAX, "%s",
                 gt_contest_oracle_get(&br->set, br->noracle)->text);
    return 0;
}

/* ---- running one benchmark ---------------------------------------------------------------- */

typedef struct runner {
    const bench_options *o;
    cli_seed seed;
    bench_result *br;
} runner;

/* One checked launch; the parsed report goes to *report_out when it is not NULL. */
static int run_one(runner *r, const char *kind, unsigned round, const gt_launch_options *opts, launch_note *note,
                   cJSON **report_out)
{
    char what[128], *text = NULL;
    uint64_t wall_ns;
    snprintf(what, sizeof what, "bench: %s, round %u, %s", r->br->bench->name, round, kind);
    r->br->launches++;
    if (cli_seed_run(&r->seed, what, opts, &text, &wall_ns) != 0)
        return -1;
    r->br->verified++;
    cJSON *report = cJSON_Parse(text);
    free(text);
    if (!report) {
        say("%s: the daemon's report is not JSON", what);
        return -1;
    }
    note_report(report, wall_ns, note);
    if (report_out)
        *report_out = report;
    else
        cJSON_Delete(report);
    return 0;
}

static int run_forced(runner *r, const char *kind, unsigned round, const char *schedule, launch_note *note)
{
    gt_launch_options opts = gt_launch_options_default();
    opts.schedule = schedule;
    opts.tuning = GT_TUNING_OFF;
    return run_one(r, kind, round, &opts, note, NULL);
}

static int run_tuned(runner *r, const char *kind, unsigned round, gt_tuning tuning, launch_note *note,
                     cJSON **report)
{
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = tuning;
    return run_one(r, kind, round, &opts, note, report);
}

/* The tuner's default schedule in its text form, which the bench forces as "default". */
static const char *default_schedule(void)
{
    static char text[GT_SCHEDULE_TEXT_MAX];
    if (!text[0])
        gt_schedule_format(&gt_schedule_default, text, sizeof text);
    return text;
}

/* Round 0: the default and one cold launch, untimed; the cold one names the oracle's candidates. */
static int warm_up(runner *r)
{
    bench_result *br = r->br;
    cJSON *report = NULL;
    if (run_forced(r, "default", 0, default_schedule(), &br->warmup_default) ||
        run_tuned(r, "cold", 0, GT_TUNING_RETUNE, &br->warmup_cold, &report))
        return -1;
    int rc = r->o->oracle ? oracle_from(br, report) : 0;
    cJSON_Delete(report);
    char oracle[64] = "";
    if (r->o->oracle)
        snprintf(oracle, sizeof oracle, ", %zu oracle candidates", br->noracle);
    say("bench: %s  n=%zu  warm-up: default %.1f ms, cold %.1f ms (%s: %s)%s", br->bench->name, br->n,
        gt_bench_ms(br->warmup_default.wall_ns), gt_bench_ms(br->warmup_cold.wall_ns), br->warmup_cold.source,
        br->warmup_cold.winner, oracle);
    return rc;
}

/* The cold and warm pair; a warm launch the wisdom did not decide is said, and counted. */
static int run_pair(runner *r, unsigned round)
{
    bench_result *br = r->br;
    launch_note cold, warm;
    if (run_tuned(r, "cold", round, GT_TUNING_RETUNE, &cold, NULL) ||
        run_tuned(r, "warm", round, GT_TUNING_AUTO, &warm, NULL))
        return -1;
    contender_add(&br->cold, &cold);
    contender_add(&br->warm, &warm);
    if (strcmp(warm.source, "wisdom") == 0) {
        br->wisdom_hits++;
        br->refining += strncmp(warm.reason, "refining", strlen("refining")) == 0;
    } else if (warm.resumed) {
        br->resumed++;
    } else
        say("bench: %s, round %u: the warm launch was not a wisdom hit (source %s: %s); the cold launch before "
            "it: source %s: %s",
            br->bench->name, round, warm.source, warm.reason, cold.source, cold.reason);
    return 0;
}

/* Contender k of a round: 0 the default, 1 the cold and warm pair, 2 + i oracle candidate i. */
static int run_contender(runner *r, unsigned round, size_t k)
{
    bench_result *br = r->br;
    if (k == 1)
        return run_pair(r, round);
    contender *c = k == 0 ? &br->def : &br->oracle[k - 2];
    char kind[32] = "default";
    if (k > 0)
        snprintf(kind, sizeof kind, "oracle %zu/%zu", k - 1, br->noracle);
    launch_note note;
    if (run_forced(r, kind, round, c->schedule, &note))
        return -1;
    contender_add(c, &note);
    return 0;
}

static int timed_round(runner *r, unsigned round)
{
    bench_result *br = r->br;
    size_t count = 2 + br->noracle;
    for (size_t k = 0; k < count; k++)
        if (run_contender(r, round, gt_contest_turn(round, r->o->rounds, count, k)))
            return -1;
    unsigned last = br->cold.wall.n - 1;
    say("bench: %s  round %u/%u: default %.1f ms, cold %.1f ms, warm %.1f ms%s", br->bench->name, round,
        r->o->rounds, gt_bench_ms(br->def.wall.ns[last]), gt_bench_ms(br->cold.wall.ns[last]),
        gt_bench_ms(br->warm.wall.ns[last]), br->noracle ? " (and the oracle's candidates)" : "");
    return 0;
}

static void summarise(bench_result *br)
{
    contender *all[] = {&br->def, &br->cold, &br->warm};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        gt_bench_times_summarise(&all[i]->wall);
        gt_bench_times_summarise(&all[i]->total);
    }
    for (size_t i = 0; i < br->noracle; i++) {
        gt_bench_times_summarise(&br->oracle[i].wall);
        gt_bench_times_summarise(&br->oracle[i].total);
        if (br->oracle[i].wall.median_ns < br->oracle[br->best].wall.median_ns)
            br->best = i;
    }
    unsigned n = br->cold.wall.n;
    double f[GT_BENCH_MAX_REPS];
    for (unsigned i = 0; i < n; i++)
        f[i] = br->cold.notes[i].analysis_fraction;
    br->analysis_fraction = gt_stats_median(f, n);
}

static int run_bench(const bench_options *o, gt_client *c, const char *module, const gt_seed_bench *b,
                     bench_result *br)
{
    runner r = {.o = o, .br = br};
    *br = (bench_result){.bench = b, .n = o->size ? o->size : b->default_n};
    snprintf(br->def.schedule, sizeof br->def.schedule, "%s", default_schedule());
    int rc = cli_seed_open(c, module, b, br->n, &r.seed);
    if (rc == 0)
        rc = warm_up(&r);
    for (unsigned round = 1; rc == 0 && round <= o->rounds; round++)
        rc = timed_round(&r, round);
    cli_seed_close(&r.seed);
    br->completed = rc == 0;
    if (br->completed)
        summarise(br);
    return rc;
}

/* ---- the daemon ---------------------------------------------------------------------------- */

typedef struct daemon_info {
    char version[64], counters[32], socket[256];
    double pid, workers;
} daemon_info;

static const cJSON *item(const cJSON *obj, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
    return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

static void copy_string(char *dst, size_t len, const cJSON *v)
{
    snprintf(dst, len, "%s", cJSON_IsString(v) ? v->valuestring : "?");
}

static void daemon_describe(gt_client *c, daemon_info *d)
{
    char *text = NULL;
    *d = (daemon_info){0};
    cJSON *s = gt_status(c, &text) == 0 ? cJSON_Parse(text) : NULL;
    copy_string(d->version, sizeof d->version, item(s, "daemon", NULL));
    copy_string(d->counters, sizeof d->counters, item(s, "counters", "mode"));
    copy_string(d->socket, sizeof d->socket, item(s, "socket", NULL));
    const cJSON *pid = item(s, "pid", NULL), *workers = item(s, "workers", NULL);
    d->pid = cJSON_IsNumber(pid) ? pid->valuedouble : 0;
    d->workers = cJSON_IsNumber(workers) ? workers->valuedouble : 0;
    cJSON_Delete(s);
    free(text);
}

/* ---- printing ------------------------------------------------------------------------------ */

static double ratio(uint64_t a, uint64_t b)
{
    return a && b ? (double)a / (double)b : NAN;
}

static uint64_t oracle_best(const bench_result *br)
{
    return br->noracle ? br->oracle[br->best].wall.median_ns : 0;
}

static void print_ratio(double v, int width)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(" %*.2fx", width - 1, v);
}

/* How many other schedules than the last round's the warm launches ran. */
static unsigned other_winners(const contender *warm)
{
    unsigned others = 0, last = warm->wall.n - 1;
    for (unsigned i = 0; i < last; i++) {
        bool seen = strcmp(warm->notes[i].winner, warm->notes[last].winner) == 0;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = strcmp(warm->notes[i].winner, warm->notes[j].winner) == 0;
        others += !seen;
    }
    return others;
}

static void print_table(const bench_options *o, const bench_result *r, unsigned n)
{
    printf("\n%-14s %6s %11s %9s %9s", "benchmark", "side", "default ms", "cold ms", "warm ms");
    if (o->oracle)
        printf(" %10s", "oracle ms");
    printf(" %9s %9s", "def/warm", "cold/warm");
    if (o->oracle)
        printf(" %11s %11s", "warm/oracle", "cold/oracle");
    printf(" %8s   %s\n", "analysis", "warm winner (last round)");
    bool missed = false, shifted = false, refining = false;
    for (unsigned i = 0; i < n; i++) {
        const bench_result *br = &r[i];
        if (!br->completed) {
            printf("%-14s %6zu  failed (see above)\n", br->bench->name, br->n);
            continue;
        }
        bool hits = br->wisdom_hits + br->resumed == br->warm.wall.n;
        missed |= !hits;
        refining |= hits && (br->refining || br->resumed);
        printf("%-14s %6zu %11.1f %9.1f %8.1f%s", br->bench->name, br->n, gt_bench_ms(br->def.wall.median_ns),
               gt_bench_ms(br->cold.wall.median_ns), gt_bench_ms(br->warm.wall.median_ns),
               !hits ? "*" : br->refining || br->resumed ? "r" : " ");
        if (o->oracle && br->noracle)
            printf(" %10.1f", gt_bench_ms(oracle_best(br)));
        else if (o->oracle)
            printf(" %10s", "-");
        print_ratio(ratio(br->def.wall.median_ns, br->warm.wall.median_ns), 9);
        print_ratio(ratio(br->cold.wall.median_ns, br->warm.wall.median_ns), 9);
        if (o->oracle) {
            print_ratio(ratio(br->warm.wall.median_ns, oracle_best(br)), 11);
            print_ratio(ratio(br->cold.wall.median_ns, oracle_best(br)), 11);
        }
        unsigned others = other_winners(&br->warm);
        printf(" %7.1f%%   %s", br->analysis_fraction * 100, br->warm.notes[br->warm.wall.n - 1].winner);
        if (others)
            printf(" (+%u other%s)", others, others == 1 ? "" : "s");
        putchar('\n');
        shifted |= others > 0;
    }
    if (shifted)
        printf("(+N others): each round's cold launch decides anew; earlier rounds' warm launches ran N other "
               "schedules\n");
    if (missed)
        printf("* some warm launches were not wisdom hits (their reasons are above)\n");
    if (refining)
        printf("r some warm launches ran a contender on a quarter of the launch, or resumed an analysis the cold "
               "launch's time limit cut short (gridtuned was refining the decision)\n");
    if (o->oracle) {
        printf("\noracle best (of the first cold launch's candidates, each forced on the whole launch):\n");
        for (unsigned i = 0; i < n; i++)
            if (r[i].completed && r[i].noracle)
                printf("  %-14s %s (of %zu)\n", r[i].bench->name, r[i].oracle[r[i].best].schedule, r[i].noracle);
    }
}

/* The median of wall - report total over every timed default, cold and warm launch: what the
 * socket, the queue, planning and the report add to the workgroups' time. */
static double overhead_ms(const bench_result *r, unsigned n)
{
    size_t most = (size_t)n * 3 * GT_BENCH_MAX_REPS, k = 0;
    double *d = malloc(most * sizeof *d);
    if (!d)
        return NAN;
    for (unsigned i = 0; i < n; i++) {
        const contender *all[] = {&r[i].def, &r[i].cold, &r[i].warm};
        for (size_t c = 0; r[i].completed && c < 3; c++)
            for (unsigned j = 0; j < all[c]->wall.n; j++)
                d[k++] = (double)((int64_t)all[c]->notes[j].wall_ns - (int64_t)all[c]->notes[j].total_ns);
    }
    double v = gt_stats_median(d, k);
    free(d);
    return v / 1e6;
}

static void print_notes(const bench_options *o, const daemon_info *d, const bench_result *r, unsigned n)
{
    printf("\nms: medians of %u round%s of the client's wall clock around gt_run; ratios are of "
           "medians.\n",
           o->rounds, o->rounds == 1 ? "" : "s");
    printf("cold: retune (analysis included); warm: the same launch again, from the wisdom;\n"
           "default: %s forced.\n",
           default_schedule());
    printf("analysis: the median share of the workgroups the cold launches' analysis ran (their reports).\n");
    double overhead = overhead_ms(r, n);
    if (!isnan(overhead))
        printf("wall - report total_ns (socket, queue, planning, report), median over the launches: %.2f ms.\n",
               overhead);
    printf("These figures come from one run on this machine (%.0f workers, counters %s, a daemon any other\n"
           "client may share); compare them within this run only.\n",
           d->workers, d->counters);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void add_number(cJSON *obj, const char *key, double v)
{
    cJSON_AddItemToObject(obj, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *note_json(const launch_note *n)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "wall_ns", (double)n->wall_ns);
    cJSON_AddNumberToObject(j, "report_total_ns", (double)n->total_ns);
    cJSON_AddStringToObject(j, "source", n->source);
    cJSON_AddStringToObject(j, "winner", n->winner);
    cJSON_AddStringToObject(j, "reason", n->reason);
    cJSON_AddBoolToObject(j, "resumed", n->resumed);
    cJSON_AddNumberToObject(j, "analysis_fraction", n->analysis_fraction);
    return j;
}

/* A contender's times; its launches' decisions too when with_notes. */
static cJSON *contender_json(const contender *c, bool with_notes)
{
    cJSON *j = cJSON_CreateObject();
    if (*c->schedule)
        cJSON_AddStringToObject(j, "schedule", c->schedule);
    gt_bench_times_json(cJSON_AddObjectToObject(j, "wall"), &c->wall);
    gt_bench_times_json(cJSON_AddObjectToObject(j, "report_total"), &c->total);
    if (with_notes) {
        cJSON *list = cJSON_AddArrayToObject(j, "launches");
        for (unsigned i = 0; i < c->wall.n; i++)
            cJSON_AddItemToArray(list, note_json(&c->notes[i]));
    }
    return j;
}

static cJSON *oracle_json(const bench_result *br)
{
    cJSON *j = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(j, "candidates");
    for (size_t i = 0; i < br->noracle; i++)
        cJSON_AddItemToArray(list, contender_json(&br->oracle[i], false));
    if (br->noracle)
        cJSON_AddItemToObject(j, "best", contender_json(&br->oracle[br->best], false));
    return j;
}

static cJSON *bench_json(const bench_options *o, const bench_result *br)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "benchmark", br->bench->name);
    cJSON_AddNumberToObject(j, "n", (double)br->n);
    cJSON_AddBoolToObject(j, "completed", br->completed);
    cJSON_AddNumberToObject(j, "launches", br->launches);
    cJSON_AddNumberToObject(j, "verified", br->verified);
    if (!br->completed)
        return j;
    cJSON *warmup = cJSON_AddObjectToObject(j, "warmup");
    cJSON_AddItemToObject(warmup, "default", note_json(&br->warmup_default));
    cJSON_AddItemToObject(warmup, "cold", note_json(&br->warmup_cold));
    cJSON_AddItemToObject(j, "default", contender_json(&br->def, true));
    cJSON *cold = contender_json(&br->cold, true);
    add_number(cold, "analysis_fraction_median", br->analysis_fraction);
    cJSON_AddItemToObject(j, "cold", cold);
    cJSON *warm = contender_json(&br->warm, true);
    cJSON_AddNumberToObject(warm, "wisdom_hits", br->wisdom_hits);
    cJSON_AddNumberToObject(warm, "refining", br->refining);
    cJSON_AddNumberToObject(warm, "resumed", br->resumed);
    cJSON_AddItemToObject(j, "warm", warm);
    cJSON_AddItemToObject(j, "oracle", o->oracle ? oracle_json(br) : cJSON_CreateNull());
    cJSON *ratios = cJSON_AddObjectToObject(j, "ratios");
    add_number(ratios, "default_over_warm", ratio(br->def.wall.median_ns, br->warm.wall.median_ns));
    add_number(ratios, "cold_over_warm", ratio(br->cold.wall.median_ns, br->warm.wall.median_ns));
    add_number(ratios, "warm_over_oracle", ratio(br->warm.wall.median_ns, oracle_best(br)));
    add_number(ratios, "cold_over_oracle", ratio(br->cold.wall.median_ns, oracle_best(br)));
    return j;
}

static int write_json(const bench_options *o, const char *module, const daemon_info *d, const bench_result *r,
                      unsigned n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "gridtune-bench");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON *daemon = cJSON_AddObjectToObject(root, "daemon");
    cJSON_AddStringToObject(daemon, "version", d->version);
    cJSON_AddNumberToObject(daemon, "pid", d->pid);
    cJSON_AddNumberToObject(daemon, "workers", d->workers);
    cJSON_AddStringToObject(daemon, "counters", d->counters);
    cJSON_AddStringToObject(daemon, "socket", d->socket);
    cJSON_AddStringToObject(root, "module", module);
    cJSON_AddNumberToObject(root, "rounds", o->rounds);
    cJSON_AddBoolToObject(root, "oracle", o->oracle);
    cJSON_AddStringToObject(root, "default_schedule", default_schedule());
    cJSON_AddStringToObject(root, "times",
                            "wall: the client's monotonic clock around gt_run; report_total: the "
                            "report's phases.total_ns");
    cJSON_AddStringToObject(root, "note", "one run on this machine; compare within this run only");
    add_number(root, "overhead_median_ms", overhead_ms(r, n));
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(o, &r[i]));
    return gt_bench_json_write(root, o->json);
}

/* ---- the command ----------------------------------------------------------------------------- */

int cli_bench(const options *opt, int argc, char **argv)
{
    bench_options o;
    int rc = parse_flags(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *module = o.module ? o.module : cli_seeds_module();
    if (!module) {
        say("bench: the seed kernels' module was not found; give --module PATH");
        return EXIT_FAILED;
    }
    bench_result *results = calloc(o.nbenches, sizeof *results);
    if (!results) {
        say("bench: out of memory for %u benchmarks", o.nbenches);
        return EXIT_FAILED;
    }
    gt_client *c = cli_connect(opt);
    if (!c) {
        free(results);
        return EXIT_FAILED;
    }
    daemon_info d;
    daemon_describe(c, &d);
    printf(PROG " bench: %u benchmark%s, %u timed round%s after a warm-up round%s, through %s (pid %.0f, %.0f "
                "workers, counters %s)\nmodule: %s\n",
           o.nbenches, o.nbenches == 1 ? "" : "s", o.rounds, o.rounds == 1 ? "" : "s",
           o.oracle ? ", with the oracle" : "", d.version, d.pid, d.workers, d.counters, module);
    fflush(stdout);
    unsigned failures = 0;
    for (unsigned i = 0; i < o.nbenches; i++)
        failures += run_bench(&o, c, module, o.benches[i], &results[i]) != 0;
    gt_disconnect(c);
    print_table(&o, results, o.nbenches);
    print_notes(&o, &d, results, o.nbenches);
    bool written = !o.json || write_json(&o, module, &d, results, o.nbenches) == 0;
    for (unsigned i = 0; i < o.nbenches; i++) {
        gt_contest_oracle_free(&results[i].set);
        free(results[i].oracle);
    }
    free(results);
    if (failures)
        say("bench: %u of %u benchmarks failed", failures, o.nbenches);
    return failures || !written ? EXIT_FAILED : EXIT_OK;
}
