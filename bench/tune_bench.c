/* tune_bench.c: gridtune-tune-bench, the evidence for the tuner.
 * For each seed benchmark it measures in one run, side by side: the oracle (every candidate
 * schedule the tuner considered, each run on the whole launch), the cold tuned launch
 * (analysis included), the warm tuned launch (from wisdom) and the default schedule, and
 * reports tuned/oracle, default/tuned and the analysis fraction of workgroups.
 *
 * Method:
 * - One pool, with counters, serves the whole run. The wisdom lives in a temporary file
 *   (mkdtemp under /tmp, removed at exit) unless --wisdom names one, so the user's own wisdom
 *   is never touched by default.
 * - Round 0 of a benchmark warms up and discovers: a default run, then --oracle-runs cold tuned
 *   runs, each with the wisdom cleared first and its output poisoned before and checked against
 *   the reference after. That proves the tuner's analysis plus remainder runs every workgroup
 *   exactly once on real kernels. The union of the candidates those cold runs considered, and
 *   of their winners, without repeats, is the oracle's candidate set. Several runs, because
 *   the analysis is noisy and a later cold run may pick a winner one run alone never tried.
 * - Then --reps timed rounds. In each, every contender runs once: the default, the cold and
 *   warm pair, and each oracle candidate. Cold clears the wisdom and tunes (mode auto); warm
 *   tunes again straight after and must be a wisdom hit, else the run fails. The order of the
 *   contenders rotates by a 1/reps share each round, so each runs early, midway and late, and
 *   drift hits all alike. The default and the oracle's candidates are forced schedules through
 *   gt_tune_run, so every contender takes the same path, and each is timed end to end around
 *   gt_tune_run: analysis, planning and remainder included.
 * - Figures are medians (and minima) per contender. The oracle best is the candidate with the
 *   lowest median, and the ratios are of medians. The analysis fraction is groups_analysis /
 *   groups_total of the timed cold runs, their median. Targets are printed beside the figures
 *   and never change the measurement. */
#include "bench_common.h"
#include "engine/counters.h"
#include "engine/module.h"
#include "engine/pool.h"
#include "engine/pool_executor.h"
#include "kernels/say.h"
#include "kernels/seedbench.h"
#include "tuner/clock.h"
#include "tuner/machine.h"
#include "tuner/report.h"
#include "tuner/space.h"
#include "tuner/stats.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "gridtune-tune-bench"

const char *const say_prog = PROG;

#define DEFAULT_REPS 3
#define DEFAULT_ORACLE_RUNS 3
#define MAX_ORACLE_RUNS 100
#define MAX_SAMPLE_US 10000000u /* 10 s, the most gt_tune_config_check takes */
#define TMPDIR_TEMPLATE "/tmp/gridtune-tune-bench.XXXXXX"
#define WISDOM_FILE "wisdom.json"

/* What the tuner is aiming for; printed next to the figures, never fed back into them. */
#define TARGET_COLD_OVER_ORACLE 1.10
#define TARGET_WARM_OVER_ORACLE 1.03
#define TARGET_ANALYSIS_FRACTION 0.10

/* ---- options ------------------------------------------------------------------------------ */

typedef struct options {
    gt_bench_flags flags;
    const char *wisdom;  /* NULL: a temporary file */
    const char *reports; /* NULL: no reports */
    gt_tune_config cfg;
    unsigned oracle_runs; /* round 0's cold runs, whose candidates are the oracle's */
    unsigned nevents; /* 0: the counters' default events */
    const char *events[GT_COUNTERS_MAX];
    char events_text[GT_COUNTERS_MAX * GT_COUNTER_NAME_MAX];
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} options;

enum long_only {
    OPT_BUDGET = 256,
    OPT_STRATEGY,
    OPT_METRIC,
    OPT_SAMPLE_US,
    OPT_STYLES,
    OPT_SERIES,
    OPT_EVENTS,
    OPT_WISDOM,
    OPT_REPORTS,
    OPT_ORACLE_RUNS,
};

static void usage(FILE *out)
{
    gt_tune_config d = gt_tune_config_default();
    fprintf(out,
            "usage: " PROG " [OPTIONS]\n"
            "Measures the tuner against the oracle on the seed benchmarks, all in one run: every\n"
            "candidate schedule the tuner considered in the warm-up round's cold runs, and their\n"
            "winners (the oracle), the cold tuned launch (analysis included), the warm tuned launch\n"
            "(from wisdom) and the default schedule. Prints each benchmark's medians and the ratios\n"
            "tuned/oracle and default/tuned, with the targets cold <= %.2fx oracle best,\n"
            "warm <= %.2fx, analysis <= %.0f%% of the workgroups.\n"
            "\n",
            TARGET_COLD_OVER_ORACLE, TARGET_WARM_OVER_ORACLE, TARGET_ANALYSIS_FRACTION * 100);
    gt_bench_flags_help(out, "timed rounds after the checked warm-up round", DEFAULT_REPS);
    fprintf(out,
            "  -b, --bench NAME      a benchmark to run; repeatable (default: all seven)\n"
            "      --oracle-runs N   cold runs in the warm-up round, 1 to %u; the oracle is the union of\n"
            "                        their candidates and winners (default %u)\n"
            "      --budget F        analysis budget, a fraction of the workgroups (default %g)\n"
            "      --strategy S      racing or nested (default %s)\n"
            "      --metric M        time, ipc, l1, l2 or energy (default %s)\n"
            "      --sample-us N     length of one analysis sample in microseconds (default %llu)\n"
            "      --styles TEXT     candidate styles, e.g. group=linear+tiled,item=linear,assign=block+dynamic;\n"
            "                        span= leaves spans out, span=series puts them back\n"
            "                        (default: every style of the tuner's space)\n"
            "      --series S:R:L    parameter series start:ratio:limit, limit 0 = the grid (default %u:%u:%u)\n"
            "      --events LIST     comma-separated PAPI event names (default:",
            MAX_ORACLE_RUNS, DEFAULT_ORACLE_RUNS, d.budget, gt_strategy_name(d.strategy), gt_metric_name(d.metric),
            (unsigned long long)(d.sample_ns / 1000), d.space.series.start, d.space.series.ratio,
            d.space.series.limit);
    for (unsigned i = 0; i < gt_counters_default_nevents; i++)
        fprintf(out, "%s%s", i ? "," : " ", gt_counters_default_events[i]);
    fprintf(out,
            ")\n"
            "      --wisdom PATH     keep the wisdom in PATH instead of a temporary file; every cold run\n"
            "                        clears it, and after each benchmark PATH holds this run's decisions\n"
            "      --reports DIR     write the report of every cold and warm launch as\n"
            "                        DIR/<bench>-<round>-<cold|warm>.json; the warm-up round's cold\n"
            "                        runs after its first as DIR/<bench>-0-cold-<k>.json, k from 2\n"
            "  -l, --list            list the benchmarks and exit\n"
            "  -h, --help            this text\n"
            "Exit status: 0 done, 1 a failure (printed), 2 bad usage.\n");
}

static int parse_budget(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v)) {
        say("--budget \"%s\": expected a fraction of the workgroups, such as 0.1", text);
        return -1;
    }
    *out = v;
    return 0;
}

/* Splits a copy of text at commas into o->events; gt_counters_create checks the names. */
static int parse_events(const char *text, options *o)
{
    size_t len = strlen(text);
    if (len >= sizeof o->events_text) {
        say("--events: a list of %zu characters; at most %zu", len, sizeof o->events_text - 1);
        return -1;
    }
    memcpy(o->events_text, text, len + 1);
    o->nevents = 0;
    for (char *p = o->events_text;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p) {
            say("--events \"%s\": an empty name; expected names such as PAPI_TOT_CYC,PAPI_L1_DCM",
                text);
            return -1;
        }
        if (o->nevents == GT_COUNTERS_MAX) {
            say("--events \"%s\": at most %d events", text, GT_COUNTERS_MAX);
            return -1;
        }
        o->events[o->nevents++] = p;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static int bad_value(const char *flag, const char *text, const char *why)
{
    say("%s \"%s\": %s", flag, text, why);
    return -1;
}

static int parse_flag(int c, const char *arg, void *ctx)
{
    options *o = ctx;
    uint32_t v;
    char err[256];
    switch (c) {
    case 'b':
        return gt_bench_add(arg, o->benches, &o->nbenches);
    case OPT_BUDGET:
        return parse_budget(arg, &o->cfg.budget);
    case OPT_SAMPLE_US:
        if (gt_bench_number_parse("--sample-us", arg, 1, MAX_SAMPLE_US, &v))
            return -1;
        o->cfg.sample_ns = (uint64_t)v * 1000;
        return 0;
    case OPT_STRATEGY:
        return gt_strategy_parse(arg, &o->cfg.strategy) ? bad_value("--strategy", arg, "expected racing or nested") : 0;
    case OPT_METRIC:
        return gt_metric_parse(arg, &o->cfg.metric) ? bad_value("--metric", arg, "expected time, ipc, l1, l2 or energy")
                                                     : 0;
    case OPT_STYLES:
        return gt_space_styles_parse(arg, &o->cfg.space, err, sizeof err) ? bad_value("--styles", arg, err) : 0;
    case OPT_SERIES:
        return gt_series_parse(arg, &o->cfg.space.series, err, sizeof err) ? bad_value("--series", arg, err) : 0;
    case OPT_EVENTS:
        return parse_events(arg, o);
    case OPT_WISDOM:
        o->wisdom = arg;
        return 0;
    case OPT_REPORTS:
        o->reports = arg;
        return 0;
    case OPT_ORACLE_RUNS:
        if (gt_bench_number_parse("--oracle-runs", arg, 1, MAX_ORACLE_RUNS, &v))
            return -1;
        o->oracle_runs = v;
        return 0;
    default:
        say("option %d has no handler", c);
        return -1;
    }
}

static const struct option own_options[] = {
    {"bench", required_argument, 0, 'b'},
    {"budget", required_argument, 0, OPT_BUDGET},
    {"strategy", required_argument, 0, OPT_STRATEGY},
    {"metric", required_argument, 0, OPT_METRIC},
    {"sample-us", required_argument, 0, OPT_SAMPLE_US},
    {"styles", required_argument, 0, OPT_STYLES},
    {"series", required_argument, 0, OPT_SERIES},
    {"events", required_argument, 0, OPT_EVENTS},
    {"wisdom", required_argument, 0, OPT_WISDOM},
    {"reports", required_argument, 0, OPT_REPORTS},
    {"oracle-runs", required_argument, 0, OPT_ORACLE_RUNS},
    {0, 0, 0, 0},
};

/* Returns 0, 1 when --help or --list was printed, -1 on bad usage. */
static int parse_options(int argc, char **argv, options *o)
{
    const gt_bench_cli cli = {.letters = "b:",
                              .options = own_options,
                              .flag = parse_flag,
                              .usage = usage,
                              .list = gt_bench_list};
    *o = (options){.flags.reps = DEFAULT_REPS, .cfg = gt_tune_config_default(), .oracle_runs = DEFAULT_ORACLE_RUNS};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc != 0)
        return rc;
    if (optind < argc) {
        say("unexpected argument \"%s\"; benchmarks are chosen with --bench NAME", argv[optind]);
        return -1;
    }
    char err[256];
    if (gt_tune_config_check(&o->cfg, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    if (o->nbenches == 0)
        gt_bench_add_all(o->benches, &o->nbenches);
    return 0;
}

/* ---- stopping early ------------------------------------------------------------------------ */

/* A run takes minutes: a signal stops it between two launches, so that the temporary wisdom
 * is still removed. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void catch_signals(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        sigaction(signals[i], &sa, NULL);
}

/* -1 after saying so when a signal asked the run to stop. */
static int stopped(void)
{
    if (!stop_signal)
        return 0;
    say("stopped by %s", strsignal(stop_signal));
    return -1;
}

/* ---- the session: what the whole run shares ---------------------------------------------- */

typedef struct session {
    const options *o;
    gt_module *module;
    gt_counters *counters;
    const gt_counter_status *status;
    gt_pool *pool;
    unsigned workers;
    gt_wisdom *wisdom;
    char tmpdir[sizeof TMPDIR_TEMPLATE]; /* "" when --wisdom names the file */
    char machine[GT_HASH_TEXT_MAX];
    char machine_desc[256];
    /* Every benchmark's decision so far, put back into the wisdom after each cold run
       cleared it, so the saved file holds them all. */
    unsigned ndecisions;
    gt_wisdom_key decision_key[GT_BENCH_MAX_BENCHES];
    gt_wisdom_entry decision[GT_BENCH_MAX_BENCHES];
} session;

/* The workers the pool will have, known before it exists so the counters get a slot each. */
static unsigned pool_workers(unsigned asked)
{
    cpu_set_t set;
    if (asked)
        return asked;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 1)
        return 1;
    return (unsigned)CPU_COUNT(&set);
}

static int open_wisdom(session *s, char *err, size_t errlen)
{
    char path[sizeof TMPDIR_TEMPLATE + sizeof WISDOM_FILE];
    const char *file = s->o->wisdom;
    if (!file) {
        memcpy(s->tmpdir, TMPDIR_TEMPLATE, sizeof TMPDIR_TEMPLATE);
        if (!mkdtemp(s->tmpdir)) {
            snprintf(err, errlen, "cannot make a temporary directory for the wisdom (%s): %s", TMPDIR_TEMPLATE,
                     strerror(errno));
            s->tmpdir[0] = '\0';
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s", s->tmpdir, WISDOM_FILE);
        file = path;
    }
    if (gt_wisdom_open(file, &s->wisdom, err, errlen) != 0)
        return -1;
    if (*gt_wisdom_warning(s->wisdom))
        say("%s", gt_wisdom_warning(s->wisdom));
    return 0;
}

/* Returns 0, -1 after printing why, or -2 when the --events list was refused (bad usage). */
static int session_open(session *s, const options *o)
{
    char err[512];
    *s = (session){.o = o, .workers = pool_workers(o->flags.workers)};
    gt_machine_signature(s->machine, s->machine_desc, sizeof s->machine_desc);
    int counted = gt_counters_create(o->nevents ? o->events : NULL, o->nevents, s->workers, &s->counters, err,
                                     sizeof err);
    if (counted == -EINVAL && o->nevents) {
        say("--events: %s", err);
        return -2;
    }
    if (counted != 0 || gt_module_open(o->flags.module, &s->module, err, sizeof err) != 0 ||
        gt_pool_create(&(gt_pool_config){.workers = s->workers, .counters = s->counters}, &s->pool, err,
                       sizeof err) ||
        open_wisdom(s, err, sizeof err)) {
        say("%s", err);
        return -1;
    }
    s->status = gt_counters_status(s->counters);
    s->workers = gt_pool_workers(s->pool);
    if (o->reports && mkdir(o->reports, 0777) != 0 && errno != EEXIST) {
        say("--reports %s: cannot make the directory: %s", o->reports, strerror(errno));
        return -1;
    }
    return 0;
}

static void session_close(session *s)
{
    const char *path = s->wisdom ? gt_wisdom_path(s->wisdom) : NULL;
    if (s->tmpdir[0] && path && unlink(path) != 0 && errno != ENOENT)
        say("cannot remove %s: %s", path, strerror(errno));
    if (s->tmpdir[0] && rmdir(s->tmpdir) != 0)
        say("cannot remove %s: %s", s->tmpdir, strerror(errno));
    gt_wisdom_close(s->wisdom);
    if (s->pool)
        gt_pool_destroy(s->pool);
    if (s->counters)
        gt_counters_destroy(s->counters);
    if (s->module)
        gt_module_close(s->module);
}

/* ---- one benchmark's launch --------------------------------------------------------------- */

typedef struct launch {
    session *s;
    const gt_seed_bench *bench;
    gt_bench_case bc;
    gt_pool_executor pe;
    gt_executor exec;
    char kernel_hash[GT_HASH_TEXT_MAX];
    gt_tune_launch tl;
} launch;

static int launch_open(session *s, const gt_seed_bench *b, launch *l)
{
    char err[512];
    *l = (launch){.s = s, .bench = b};
    if (gt_bench_case_prepare(s->module, s->o->flags.module, b, s->o->flags.size, &l->bc))
        return -1;
    if (gt_kernel_identity(s->o->flags.module, b->kernel, l->kernel_hash, err, sizeof err) != 0) {
        say("%s", err);
        gt_bench_case_destroy(&l->bc);
        return -1;
    }
    gt_pool_executor_init(&l->pe, s->pool, s->counters, NULL, l->bc.kernel, l->bc.slots, &l->bc.seed->range, &l->exec);
    l->tl = (gt_tune_launch){
        .kernel = b->kernel, .kernel_hash = l->kernel_hash, .machine = s->machine, .range = l->bc.seed->range};
    return 0;
}

/* The wisdom's key for this launch, as the tuner files it. */
static gt_wisdom_key launch_key(const launch *l)
{
    gt_wisdom_key key = {.range = l->tl.range, .workers = l->exec.workers};
    snprintf(key.kernel, sizeof key.kernel, "%s", l->tl.kernel);
    snprintf(key.kernel_hash, sizeof key.kernel_hash, "%s", l->tl.kernel_hash);
    snprintf(key.machine, sizeof key.machine, "%s", l->tl.machine);
    return key;
}

/* One launch through the tuner, timed around the whole call. The caller frees *r, also after a
 * failure, which is printed here. */
static int tune_timed(launch *l, const gt_tune_config *cfg, gt_tune_result *r, uint64_t *ns, int64_t *started)
{
    char err[512];
    *started = gt_clock_unix_ms();
    uint64_t t0 = gt_clock_ns();
    int rc = gt_tune_run(cfg, &l->tl, &l->exec, l->s->wisdom, r, err, sizeof err);
    *ns = gt_clock_ns() - t0;
    if (rc != 0)
        say("%s: the launch failed: %s", l->bench->name, err);
    return rc;
}

static void poison(launch *l, bool check)
{
    if (check)
        gt_seed_case_poison_output(l->bc.seed);
}

static int verify(launch *l, bool check, const char *what)
{
    char err[512];
    if (!check || gt_seed_case_verify(l->bc.seed, err, sizeof err) == 0)
        return 0;
    say("%s, %s: wrong output: %s", l->bench->name, what, err);
    return -1;
}

static int write_report(launch *l, const gt_tune_result *r, unsigned round, const char *kind, int64_t started)
{
    const options *o = l->s->o;
    if (!o->reports)
        return 0;
    char id[128], path[4096];
    snprintf(id, sizeof id, "%s-%u-%s", l->bench->name, round, kind);
    if ((size_t)snprintf(path, sizeof path, "%s/%s.json", o->reports, id) >= sizeof path) {
        say("--reports %s: the path is too long", o->reports);
        return -1;
    }
    gt_report_input in = {.config = &o->cfg, .launch = &l->tl, .result = r, .counters = l->s->status,
                          .workers = l->exec.workers, .id = id, .started = started};
    cJSON *report = gt_report_build(&in);
    if (!report) {
        say("out of memory building the report %s", id);
        return -1;
    }
    return gt_bench_json_write(report, path);
}

/* The default or an oracle candidate: a forced schedule on the whole launch. */
static int run_forced(launch *l, const gt_schedule *schedule, bool check, uint64_t *ns)
{
    gt_tune_config cfg = l->s->o->cfg;
    cfg.forced = true;
    cfg.schedule = *schedule;
    gt_tune_result r;
    int64_t started;
    poison(l, check);
    int rc = tune_timed(l, &cfg, &r, ns, &started);
    gt_tune_result_free(&r);
    return rc ? rc : verify(l, check, "forced schedule");
}

/* A cold tuned launch: the wisdom cleared, then analysis. kind names its report. The caller
 * frees *r. */
static int run_cold(launch *l, unsigned round, const char *kind, bool check, gt_tune_result *r, uint64_t *ns)
{
    int64_t started;
    gt_wisdom_clear(l->s->wisdom);
    poison(l, check);
    int rc = tune_timed(l, &l->s->o->cfg, r, ns, &started);
    if (rc == 0)
        rc = verify(l, check, "cold tuned launch");
    return rc ? rc : write_report(l, r, round, kind, started);
}

/* A warm tuned launch, straight after the cold one: it must come from the wisdom. */
static int run_warm(launch *l, unsigned round, const gt_tune_result *cold, gt_tune_result *r, uint64_t *ns)
{
    int64_t started;
    int rc = tune_timed(l, &l->s->o->cfg, r, ns, &started);
    if (rc == 0 && r->source != GT_SOURCE_WISDOM) {
        say("%s, round %u: the warm launch was not a wisdom hit (source %s: %s); the cold launch "
            "before it: source %s: %s",
            l->bench->name, round, gt_decision_source_name(r->source), r->reason,
            gt_decision_source_name(cold->source), cold->reason);
        rc = -1;
    }
    return rc ? rc : write_report(l, r, round, "warm", started);
}

/* ---- one benchmark's measurement ---------------------------------------------------------- */

typedef struct contender {
    gt_schedule schedule; /* the default's and the oracle candidates' */
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_bench_times times;
} contender;

typedef struct cold_run {
    gt_schedule winner;
    gt_decision_source source;
    double analysis_fraction;
    char reason[256];
} cold_run;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    uint64_t work_items;
    uint64_t groups_total;
    contender def, cold, warm;
    gt_contest_oracle set; /* the candidates of round 0's cold runs, and their winners */
    contender *oracle;     /* the set's schedules, timed, once round 0 is over */
    size_t noracle;
    size_t best, worst; /* into oracle, by median */
    unsigned ndiscovery; /* round 0's cold runs */
    cold_run discovery[MAX_ORACLE_RUNS];
    char metric_note[160];
    cold_run cold_runs[GT_BENCH_MAX_REPS];
    gt_schedule warm_winners[GT_BENCH_MAX_REPS];
    double analysis_fraction; /* median over cold_runs */
} bench_result;

static void contender_set(contender *c, const gt_schedule *s)
{
    c->schedule = *s;
    gt_schedule_format(s, c->text, sizeof c->text);
}

static bool in_oracle(const bench_result *br, const gt_schedule *s)
{
    return gt_contest_oracle_find(&br->set, s) >= 0;
}

/* Adds to the oracle's set the candidates a cold run considered, and its winner (a launch too
 * small to analyse has no candidates, but still a schedule). */
static int oracle_add(bench_result *br, const gt_tune_result *r)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->ncandidates; i++)
        rc = gt_contest_oracle_add(&br->set, &r->candidates[i].schedule);
    if (rc == 0)
        rc = gt_contest_oracle_add(&br->set, &r->winner);
    if (rc) {
        say("out of memory for %zu oracle candidates", gt_contest_oracle_count(&br->set) + 1);
        return -1;
    }
    return 0;
}

/* The oracle's contenders, one per schedule of the set, for the timed rounds. */
static int oracle_contenders(bench_result *br)
{
    size_t n = gt_contest_oracle_count(&br->set);
    if (!(br->oracle = calloc(n, sizeof *br->oracle))) {
        say("out of memory for %zu oracle candidates", n);
        return -1;
    }
    for (br->noracle = 0; br->noracle < n; br->noracle++)
        contender_set(&br->oracle[br->noracle], &gt_contest_oracle_get(&br->set, br->noracle)->schedule);
    return 0;
}

static cold_run cold_run_of(const gt_tune_result *r)
{
    cold_run c = {.winner = r->winner,
                  .source = r->source,
                  .analysis_fraction = r->groups_total ? (double)r->groups_analysis / (double)r->groups_total : 0};
    snprintf(c.reason, sizeof c.reason, "%s", r->reason);
    return c;
}

/* Prints each distinct winner of runs once, with how often it won and the source of its first
 * win, one a line under label or after one another behind sep; flags those outside the
 * oracle. */
static void print_winners(FILE *out, const bench_result *br, const char *label, const cold_run *runs, unsigned n,
                          const char *sep)
{
    for (unsigned i = 0, printed = 0; i < n; i++) {
        unsigned count = 0, first = n;
        for (unsigned j = 0; j < n; j++)
            if (gt_schedule_equal(&runs[j].winner, &runs[i].winner)) {
                count++;
                first = j < first ? j : first;
            }
        if (first != i)
            continue;
        char text[GT_SCHEDULE_TEXT_MAX];
        gt_schedule_format(&runs[i].winner, text, sizeof text);
        if (label)
            fprintf(out, "  %-13s ", printed ? "" : label);
        else if (printed)
            fputs(sep, out);
        fprintf(out, "%ux %s (%s)%s%s", count, text, gt_decision_source_name(runs[i].source),
                in_oracle(br, &runs[i].winner) ? "" : "  not an oracle candidate", label ? "\n" : "");
        printed++;
    }
}

/* Round 0's cold run k, checked: what it considered joins the oracle's candidates, and it must
 * leave a decision in the wisdom, or no warm run can follow. The first run's report is the
 * round's cold one, the others are numbered from 2. */
static int discover_cold(launch *l, bench_result *br, unsigned k)
{
    uint64_t ns;
    gt_tune_result r;
    char kind[32] = "cold";
    if (k)
        snprintf(kind, sizeof kind, "cold-%u", k + 1);
    int rc = run_cold(l, 0, kind, true, &r, &ns);
    if (rc == 0) {
        br->discovery[k] = cold_run_of(&r);
        br->ndiscovery = k + 1;
        br->groups_total = r.groups_total;
        if (!*br->metric_note)
            snprintf(br->metric_note, sizeof br->metric_note, "%s", r.metric_note);
        rc = oracle_add(br, &r);
    }
    gt_wisdom_key key = launch_key(l);
    if (rc == 0 && !gt_wisdom_lookup(l->s->wisdom, &key, NULL)) {
        say("%s: the cold launch left no decision in the wisdom, so no warm launch can follow "
            "(source %s: %s); a larger --size gives the analysis room",
            l->bench->name, gt_decision_source_name(r.source), r.reason);
        rc = -1;
    }
    gt_tune_result_free(&r);
    return rc;
}

/* Round 0: a checked default run, then --oracle-runs checked cold runs, each with the wisdom
 * cleared first; the union of what they considered is the oracle's candidates. */
static int discover(launch *l, bench_result *br)
{
    uint64_t ns;
    unsigned runs = l->s->o->oracle_runs;
    if (run_forced(l, &gt_schedule_default, true, &ns))
        return -1;
    for (unsigned k = 0; k < runs; k++)
        if (stopped() || discover_cold(l, br, k))
            return -1;
    if (oracle_contenders(br))
        return -1;
    fprintf(stderr, PROG ": %s  round 0: %u cold run%s, %zu oracle candidates, winners ", l->bench->name, runs,
            runs == 1 ? "" : "s", br->noracle);
    print_winners(stderr, br, NULL, br->discovery, br->ndiscovery, "; ");
    fputc('\n', stderr);
    return 0;
}

/* The cold and warm pair of one timed round. */
static int run_tuned_pair(launch *l, bench_result *br, unsigned round)
{
    gt_tune_result cold, warm;
    uint64_t ns;
    int rc = run_cold(l, round, "cold", false, &cold, &ns);
    if (rc == 0) {
        br->cold.times.ns[br->cold.times.n++] = ns;
        br->cold_runs[round - 1] = cold_run_of(&cold);
        rc = run_warm(l, round, &cold, &warm, &ns);
        if (rc == 0) {
            br->warm.times.ns[br->warm.times.n++] = ns;
            br->warm_winners[round - 1] = warm.winner;
        }
        gt_tune_result_free(&warm);
    }
    gt_tune_result_free(&cold);
    return rc;
}

/* Contender k of a round: 0 the default, 1 the cold and warm pair, 2 + i oracle candidate i. */
static int run_contender(launch *l, bench_result *br, unsigned round, size_t k)
{
    uint64_t ns;
    if (k == 1)
        return run_tuned_pair(l, br, round);
    contender *c = k == 0 ? &br->def : &br->oracle[k - 2];
    if (run_forced(l, &c->schedule, false, &ns))
        return -1;
    c->times.ns[c->times.n++] = ns;
    return 0;
}

static int timed_round(launch *l, bench_result *br, unsigned round)
{
    size_t count = 2 + br->noracle;
    say("%s  round %u/%u: %zu contenders", br->bench->name, round, l->s->o->flags.reps, count);
    for (size_t k = 0; k < count; k++)
        if (stopped() || run_contender(l, br, round, gt_contest_turn(round, l->s->o->flags.reps, count, k)))
            return -1;
    return 0;
}

static void summarise(bench_result *br, unsigned reps)
{
    gt_bench_times_summarise(&br->def.times);
    gt_bench_times_summarise(&br->cold.times);
    gt_bench_times_summarise(&br->warm.times);
    gt_bench_times_rank(&br->oracle[0].times, sizeof br->oracle[0], br->noracle, &br->best, &br->worst);
    double f[GT_BENCH_MAX_REPS];
    for (unsigned i = 0; i < reps; i++)
        f[i] = br->cold_runs[i].analysis_fraction;
    br->analysis_fraction = gt_stats_median(f, reps);
}

/* Puts every benchmark's decision back into the wisdom (the cold runs cleared it) and saves
 * it, so the file holds all of them after each benchmark. */
static int keep_decision(session *s, launch *l)
{
    char err[512];
    gt_wisdom_key key = launch_key(l);
    if (s->ndecisions < GT_BENCH_MAX_BENCHES && gt_wisdom_lookup(s->wisdom, &key, &s->decision[s->ndecisions]))
        s->decision_key[s->ndecisions++] = key;
    gt_wisdom_clear(s->wisdom);
    for (unsigned i = 0; i < s->ndecisions; i++)
        if (gt_wisdom_store(s->wisdom, &s->decision_key[i], &s->decision[i], err, sizeof err) != 0) {
            say("cannot keep the decision for %s in the wisdom: %s", s->decision_key[i].kernel,
                err);
            return -1;
        }
    if (gt_wisdom_save(s->wisdom, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    return 0;
}

static int run_bench(session *s, const gt_seed_bench *b, bench_result *br)
{
    launch l;
    if (launch_open(s, b, &l))
        return -1;
    *br = (bench_result){.bench = b, .n = l.bc.seed->n, .work_items = l.bc.seed->work_items};
    contender_set(&br->def, &gt_schedule_default);
    say("%s  n=%zu  round 0: checked default and %u cold run%s", b->name, br->n,
        s->o->oracle_runs, s->o->oracle_runs == 1 ? "" : "s");
    int rc = discover(&l, br);
    for (unsigned round = 1; round <= s->o->flags.reps && rc == 0; round++)
        rc = timed_round(&l, br, round);
    if (rc == 0)
        rc = keep_decision(s, &l);
    gt_bench_case_destroy(&l.bc);
    if (rc == 0)
        summarise(br, s->o->flags.reps);
    return rc;
}

/* ---- printing ------------------------------------------------------------------------------ */

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : NAN;
}

static const char *mark(bool met)
{
    return met ? "met" : "MISSED";
}

static void print_header(const session *s)
{
    const options *o = s->o;
    const gt_counter_status *cs = s->status;
    printf(PROG ": %u benchmark%s, %u workers, %u timed round%s after a checked warm-up round of %u cold run%s\n",
           o->nbenches, o->nbenches == 1 ? "" : "s", s->workers, o->flags.reps, o->flags.reps == 1 ? "" : "s",
           o->oracle_runs, o->oracle_runs == 1 ? "" : "s");
    printf("machine:  %s (signature %s)\n", s->machine_desc, s->machine);
    printf("counters: %s (", gt_counter_mode_name(cs->mode));
    for (unsigned i = 0; i < cs->nused; i++)
        printf("%s%s", i ? ", " : "", cs->used[i]);
    printf("%s)%s%s\n", cs->nused ? "" : "none", *cs->note ? ": " : "", cs->note);
    for (unsigned i = 0; i < cs->nunavailable; i++)
        printf("          not counted: %s (%s)\n", cs->unavailable[i].name, cs->unavailable[i].reason);
    printf("tuner:    strategy %s, metric %s, budget %.0f%%, minimum gain %.0f%%, samples of %.0f us\n",
           gt_strategy_name(o->cfg.strategy), gt_metric_name(o->cfg.metric), o->cfg.budget * 100,
           o->cfg.min_gain * 100, (double)o->cfg.sample_ns / 1e3);
    printf("wisdom:   %s%s\n", gt_wisdom_path(s->wisdom), s->tmpdir[0] ? " (temporary)" : "");
    printf("targets:  cold <= %.2fx oracle best, warm <= %.2fx oracle best, analysis <= %.0f%% of the workgroups\n",
           TARGET_COLD_OVER_ORACLE, TARGET_WARM_OVER_ORACLE, TARGET_ANALYSIS_FRACTION * 100);
}

static void print_row(const char *label, const char *what, const gt_bench_times *t, uint64_t best)
{
    printf("  %-13s %-52s %10.2f %10.2f %8.2fx\n", label, what, gt_bench_ms(t->median_ns), gt_bench_ms(t->min_ns),
           ratio(t->median_ns, best));
}

static void print_bench(const options *o, const bench_result *br)
{
    const contender *best = &br->oracle[br->best], *worst = &br->oracle[br->worst];
    uint64_t b = best->times.median_ns;
    char warm[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&br->warm_winners[o->flags.reps - 1], warm, sizeof warm);
    printf("\n%s  n=%zu  (%s)  %llu workgroups\n", br->bench->name, br->n, br->bench->summary,
           (unsigned long long)br->groups_total);
    printf("  %-13s %-52s %10s %10s %9s\n", "contender", "schedule", "median ms", "min ms", "vs oracle");
    print_row("default", br->def.text, &br->def.times, b);
    print_row("cold tuned", "wisdom cleared, analysis included", &br->cold.times, b);
    print_row("warm tuned", "from the wisdom", &br->warm.times, b);
    print_row("oracle best", best->text, &best->times, b);
    print_row("oracle worst", worst->text, &worst->times, b);
    printf("  %-13s %zu candidates, the union of the %u warm-up cold run%s of round 0, which picked:\n", "oracle",
           br->noracle, br->ndiscovery, br->ndiscovery == 1 ? "" : "s");
    print_winners(stdout, br, "", br->discovery, br->ndiscovery, NULL);
    print_winners(stdout, br, "cold winners", br->cold_runs, o->flags.reps, NULL);
    printf("  %-13s %s (last round)\n", "warm winner", warm);
    if (*br->metric_note)
        printf("  %-13s %s\n", "metric", br->metric_note);
    double cold = ratio(br->cold.times.median_ns, b), hot = ratio(br->warm.times.median_ns, b);
    printf("  cold/oracle %.2fx (target <= %.2fx: %s), warm/oracle %.2fx (target <= %.2fx: %s), "
           "analysis %.1f%% (target <= %.0f%%: %s)\n",
           cold, TARGET_COLD_OVER_ORACLE, mark(cold <= TARGET_COLD_OVER_ORACLE), hot, TARGET_WARM_OVER_ORACLE,
           mark(hot <= TARGET_WARM_OVER_ORACLE), br->analysis_fraction * 100, TARGET_ANALYSIS_FRACTION * 100,
           mark(br->analysis_fraction <= TARGET_ANALYSIS_FRACTION));
    printf("  default/cold %.2fx, default/warm %.2fx, default/oracle best %.2fx, oracle worst/best %.2fx\n",
           ratio(br->def.times.median_ns, br->cold.times.median_ns),
           ratio(br->def.times.median_ns, br->warm.times.median_ns), ratio(br->def.times.median_ns, b),
           ratio(worst->times.median_ns, b));
}

static void print_summary(const session *s, const bench_result *r, unsigned n)
{
    unsigned met_cold = 0, met_warm = 0, met_analysis = 0;
    printf("\nsummary: medians of %u timed round%s, %u workers; targets cold <= %.2fx, warm <= %.2fx oracle best, "
           "analysis <= %.0f%%\n",
           s->o->flags.reps, s->o->flags.reps == 1 ? "" : "s", s->workers, TARGET_COLD_OVER_ORACLE,
           TARGET_WARM_OVER_ORACLE, TARGET_ANALYSIS_FRACTION * 100);
    printf("  %-14s %10s %10s %10s %10s %12s %12s %9s %9s %10s\n", "benchmark", "default ms", "oracle ms", "cold ms",
           "warm ms", "cold/oracle", "warm/oracle", "def/cold", "def/warm", "analysis");
    for (unsigned i = 0; i < n; i++) {
        const bench_result *br = &r[i];
        uint64_t b = br->oracle[br->best].times.median_ns;
        double cold = ratio(br->cold.times.median_ns, b), hot = ratio(br->warm.times.median_ns, b);
        bool ok_cold = cold <= TARGET_COLD_OVER_ORACLE, ok_warm = hot <= TARGET_WARM_OVER_ORACLE,
             ok_analysis = br->analysis_fraction <= TARGET_ANALYSIS_FRACTION;
        met_cold += ok_cold;
        met_warm += ok_warm;
        met_analysis += ok_analysis;
        printf("  %-14s %10.2f %10.2f %10.2f %10.2f %7.2fx %-4s %7.2fx %-4s %8.2fx %8.2fx %5.1f%% %s\n",
               br->bench->name, gt_bench_ms(br->def.times.median_ns), gt_bench_ms(b),
               gt_bench_ms(br->cold.times.median_ns), gt_bench_ms(br->warm.times.median_ns), cold,
               ok_cold ? "ok" : "MISS", hot, ok_warm ? "ok" : "MISS",
               ratio(br->def.times.median_ns, br->cold.times.median_ns),
               ratio(br->def.times.median_ns, br->warm.times.median_ns), br->analysis_fraction * 100,
               ok_analysis ? "ok" : "MISS");
    }
    printf("  targets met: cold %u/%u, warm %u/%u, analysis %u/%u\n", met_cold, n, met_warm, n, met_analysis, n);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void add_ratio(cJSON *obj, const char *key, double v)
{
    cJSON_AddItemToObject(obj, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *contender_json(const char *key, const char *schedule, const gt_bench_times *t)
{
    cJSON *j = cJSON_CreateObject();
    if (schedule)
        cJSON_AddStringToObject(j, key, schedule);
    gt_bench_times_json(j, t);
    return j;
}

static void add_schedule(cJSON *list, const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    cJSON_AddItemToArray(list, cJSON_CreateString(text));
}

/* Cold runs into j, one entry each in every list, in the order they ran. */
static void add_runs_json(cJSON *j, const bench_result *br, const cold_run *runs, unsigned n)
{
    cJSON *winners = cJSON_AddArrayToObject(j, "winners"), *sources = cJSON_AddArrayToObject(j, "sources"),
          *reasons = cJSON_AddArrayToObject(j, "reasons"),
          *fractions = cJSON_AddArrayToObject(j, "analysis_fractions"),
          *outside = cJSON_AddArrayToObject(j, "winners_not_in_oracle");
    for (unsigned i = 0; i < n; i++) {
        add_schedule(winners, &runs[i].winner);
        cJSON_AddItemToArray(sources, cJSON_CreateString(gt_decision_source_name(runs[i].source)));
        cJSON_AddItemToArray(reasons, cJSON_CreateString(runs[i].reason));
        cJSON_AddItemToArray(fractions, cJSON_CreateNumber(runs[i].analysis_fraction));
        if (!in_oracle(br, &runs[i].winner))
            add_schedule(outside, &runs[i].winner);
    }
}

static cJSON *cold_json(const bench_result *br, unsigned reps)
{
    cJSON *j = contender_json(NULL, NULL, &br->cold.times);
    add_runs_json(j, br, br->cold_runs, reps);
    cJSON_AddNumberToObject(j, "analysis_fraction_median", br->analysis_fraction);
    return j;
}

static cJSON *oracle_json(const bench_result *br)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *discovery = cJSON_AddObjectToObject(j, "discovery");
    add_runs_json(discovery, br, br->discovery, br->ndiscovery);
    /* The candidates are the union of what these warm-up cold runs considered, and their winners. */
    cJSON_AddNumberToObject(j, "oracle_runs", br->ndiscovery);
    cJSON *list = cJSON_AddArrayToObject(j, "candidates");
    for (size_t i = 0; i < br->noracle; i++)
        cJSON_AddItemToArray(list, contender_json("schedule", br->oracle[i].text, &br->oracle[i].times));
    const contender *best = &br->oracle[br->best], *worst = &br->oracle[br->worst];
    cJSON_AddItemToObject(j, "best", contender_json("schedule", best->text, &best->times));
    cJSON_AddItemToObject(j, "worst", contender_json("schedule", worst->text, &worst->times));
    return j;
}

static cJSON *bench_json(const bench_result *br, unsigned reps)
{
    cJSON *j = cJSON_CreateObject();
    uint64_t b = br->oracle[br->best].times.median_ns;
    double cold = ratio(br->cold.times.median_ns, b), hot = ratio(br->warm.times.median_ns, b);
    cJSON_AddStringToObject(j, "benchmark", br->bench->name);
    cJSON_AddNumberToObject(j, "n", (double)br->n);
    cJSON_AddNumberToObject(j, "work_items", (double)br->work_items);
    cJSON_AddNumberToObject(j, "groups_total", (double)br->groups_total);
    cJSON_AddItemToObject(j, "default", contender_json("schedule", br->def.text, &br->def.times));
    cJSON_AddItemToObject(j, "cold", cold_json(br, reps));
    cJSON *warm = contender_json(NULL, NULL, &br->warm.times), *winners = cJSON_AddArrayToObject(warm, "winners");
    for (unsigned i = 0; i < reps; i++)
        add_schedule(winners, &br->warm_winners[i]);
    cJSON_AddItemToObject(j, "warm", warm);
    cJSON_AddItemToObject(j, "oracle", oracle_json(br));
    cJSON *ratios = cJSON_AddObjectToObject(j, "ratios");
    add_ratio(ratios, "cold_over_oracle_best", cold);
    add_ratio(ratios, "warm_over_oracle_best", hot);
    add_ratio(ratios, "default_over_cold", ratio(br->def.times.median_ns, br->cold.times.median_ns));
    add_ratio(ratios, "default_over_warm", ratio(br->def.times.median_ns, br->warm.times.median_ns));
    add_ratio(ratios, "default_over_oracle_best", ratio(br->def.times.median_ns, b));
    add_ratio(ratios, "oracle_worst_over_best", ratio(br->oracle[br->worst].times.median_ns, b));
    add_ratio(ratios, "analysis_fraction", br->analysis_fraction);
    cJSON *met = cJSON_AddObjectToObject(j, "targets_met");
    cJSON_AddBoolToObject(met, "cold", cold <= TARGET_COLD_OVER_ORACLE);
    cJSON_AddBoolToObject(met, "warm", hot <= TARGET_WARM_OVER_ORACLE);
    cJSON_AddBoolToObject(met, "analysis_fraction", br->analysis_fraction <= TARGET_ANALYSIS_FRACTION);
    return j;
}

static cJSON *setup_json(const session *s)
{
    const options *o = s->o;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "workers", s->workers);
    cJSON_AddNumberToObject(root, "reps", o->flags.reps);
    cJSON *m = cJSON_AddObjectToObject(root, "machine");
    cJSON_AddStringToObject(m, "signature", s->machine);
    cJSON_AddStringToObject(m, "description", s->machine_desc);
    cJSON *c = cJSON_AddObjectToObject(root, "counters");
    cJSON_AddStringToObject(c, "mode", gt_counter_mode_name(s->status->mode));
    cJSON_AddStringToObject(c, "note", s->status->note);
    cJSON *used = cJSON_AddArrayToObject(c, "used");
    for (unsigned i = 0; i < s->status->nused; i++)
        cJSON_AddItemToArray(used, cJSON_CreateString(s->status->used[i]));
    cJSON *unavailable = cJSON_AddArrayToObject(c, "unavailable");
    for (unsigned i = 0; i < s->status->nunavailable; i++) {
        cJSON *u = cJSON_CreateObject();
        cJSON_AddStringToObject(u, "name", s->status->unavailable[i].name);
        cJSON_AddStringToObject(u, "reason", s->status->unavailable[i].reason);
        cJSON_AddItemToArray(unavailable, u);
    }
    cJSON *t = cJSON_AddObjectToObject(root, "tuning");
    cJSON_AddStringToObject(t, "strategy", gt_strategy_name(o->cfg.strategy));
    cJSON_AddStringToObject(t, "metric", gt_metric_name(o->cfg.metric));
    cJSON_AddNumberToObject(t, "budget", o->cfg.budget);
    cJSON_AddNumberToObject(t, "min_gain", o->cfg.min_gain);
    cJSON_AddNumberToObject(t, "sample_ns", (double)o->cfg.sample_ns);
    cJSON *targets = cJSON_AddObjectToObject(root, "targets");
    cJSON_AddNumberToObject(targets, "cold_over_oracle_best", TARGET_COLD_OVER_ORACLE);
    cJSON_AddNumberToObject(targets, "warm_over_oracle_best", TARGET_WARM_OVER_ORACLE);
    cJSON_AddNumberToObject(targets, "analysis_fraction", TARGET_ANALYSIS_FRACTION);
    return root;
}

static int write_json(const session *s, const bench_result *r, unsigned n)
{
    cJSON *root = setup_json(s);
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(&r[i], s->o->flags.reps));
    return gt_bench_json_write(root, s->o->flags.json);
}

/* The header, each benchmark's block as soon as it is measured, the summary and the JSON. */
static int run_all(session *s, bench_result *results)
{
    const options *o = s->o;
    print_header(s);
    fflush(stdout);
    for (unsigned i = 0; i < o->nbenches; i++) {
        if (run_bench(s, o->benches[i], &results[i]) != 0)
            return -1;
        print_bench(o, &results[i]);
        fflush(stdout);
    }
    print_summary(s, results, o->nbenches);
    return o->flags.json ? write_json(s, results, o->nbenches) : 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed)
        return parsed > 0 ? 0 : 2;
    session s;
    static bench_result results[GT_BENCH_MAX_BENCHES];
    catch_signals();
    int rc = session_open(&s, &o);
    if (rc == 0)
        rc = run_all(&s, results);
    for (unsigned i = 0; i < o.nbenches; i++) {
        gt_contest_oracle_free(&results[i].set);
        free(results[i].oracle);
    }
    session_close(&s);
    return rc == -2 ? 2 : rc ? 1 : 0;
}
