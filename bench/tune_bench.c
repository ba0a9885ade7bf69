/* tune_bench.c: gridtune-tune-bench, the evidence for the tuner over repeated launches.
 * A kernel launched again and again (time steps, frames) is decided by its first launch, from
 * a minority of its workgroups, and the launches after it go on with the wisdom. For each seed
 * benchmark this measures, in one run, how close to the oracle's best the first launch, the
 * later ones and the whole series come, and how alike the picks of separate first launches are.
 *
 * Method:
 * - One pool, with counters and (unless --no-probes, and where BPF is permitted) the probes
 *   that tell the tuner which samples other tasks disturbed, as gridtuned's executors have,
 *   serves the whole run. The wisdom lives in a temporary file
 *   (mkdtemp under /tmp, removed at exit) unless --wisdom names one, so the user's own wisdom
 *   is never touched by default.
 * - A benchmark starts with one untimed launch of the default schedule, which touches every
 *   page of the case.
 * - A series: the wisdom cleared, then --launches N launches in a row through gt_tune_run in
 *   mode auto with the wisdom. Launch 1 is cold (the wisdom is empty); how the later ones
 *   decide is the tuner's business, and each one's decision is kept: source, winner, reason,
 *   workgroups analysed of the total. --series K series run back to back, with nothing else
 *   between them, so K cold launches come out of them.
 * - Every launch, tuned or forced, is timed whole around gt_tune_run (planning, analysis and
 *   remainder), and its output is poisoned before and checked against the reference after,
 *   outside its time: analysis plus remainder must run every workgroup exactly once.
 * - The reference (unless --no-reference): right after each launch of a series, the series' cold
 *   pick (launch 1's winner) is forced on the whole launch, outside the series' decisions (a
 *   forced launch neither reads nor writes the wisdom). This VM runs the same schedule on the
 *   same buffers 1.5-3x slower for seconds at a time (its phases), and the oracle is timed
 *   minutes after the series: the reference is the series' own measure of the phase.
 * - The oracle (oracle.c): the default schedule, every schedule a launch of any series picked,
 *   and every candidate the cold launches' analyses considered. Beyond --oracle-max M
 *   schedules the candidates with the highest analysis medians are left out (a candidate's
 *   analysis median is the lowest of its medians over the cold analyses, an unmeasured one
 *   goes first); the default and the picked schedules always stay. Each is then forced on the
 *   whole launch --reps times, once per round, the order rotating by a 1/reps share each
 *   round so that drift hits all alike. The oracle best is the lowest median. The lowest of
 *   many noisy medians is lower than its schedule's cost, so the three lowest and every kept
 *   schedule then run --reps rounds more the same way, and their oracle medians are those of
 *   the new runs (GT_BENCH_ORACLE_RETIMED, oracle.h); the best stays the one the first rounds
 *   chose.
 * - The figures are over the oracle best's median. cold: the median over the series of launch
 *   1's time; launch k: the same of launch k (5, 10 and N are printed, every k is in the
 *   JSON); total: the median over the series of the N launches' summed time, over N times the
 *   oracle best; analysis: the median over the series of launch 1's workgroups analysed over
 *   its total. default/tuned is the default's oracle median over a tuned launch's average, the
 *   total's median over N.
 * - Phase-adjusted figures, beside the plain ones: launch k's time over its reference's, times
 *   the reference's oracle median over the oracle best, which reads launch k against the
 *   oracle best as if both had run in the same phase; cold, launch k and total take the same
 *   medians as above. A launch's phase is its reference's time over that schedule's oracle
 *   median (1: the oracle's phase; 1.5: 50% slower). The targets are printed for both; the
 *   plain figures are the measurement, the adjusted ones say how much of a miss the phase
 *   explains. Same schedule: every launch that ran its series' cold pick alone (from the
 *   wisdom, nothing analysed, no contender's share) over its reference, which ran that very
 *   schedule right after it; their median and 10th and 90th percentiles (nearest rank: the
 *   sorted ratios' element round(p (n - 1))) say how far two runs of one schedule, back to
 *   back, differ on this machine, the resolution a single launch's figure has.
 * - Same pick: how alike the K cold picks are, judged by the oracle. Cold pick i has m_i, the
 *   oracle median of its schedule. The group of pick a is every cold pick j with
 *   m_a <= m_j <= 1.03 m_a, and same pick is the size of the largest group: the most cold
 *   picks within 3% of the best among them. Picks of one schedule are always in one group.
 * - Targets are printed beside the figures and never change the measurement: cold <= 1.10x,
 *   launch 10 <= 1.03x, total <= 1.05x, analysis <= 10% of the workgroups, same pick at
 *   least 4 in 5 of the series, and the wisdom entry settled (the winner alone runs its
 *   launches) after launch 10 in most series. */
#include "bench_common.h"
#include "engine/counters.h"
#include "engine/module.h"
#include "engine/pool.h"
#include "engine/pool_executor.h"
#include "kernels/say.h"
#include "kernels/seedbench.h"
#include "oracle.h"
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
#include <unistd.h>

#define PROG "gridtune-tune-bench"

const char *const say_prog = PROG;

#define DEFAULT_REPS 5 /* the oracle's forced runs per schedule */
#define DEFAULT_LAUNCHES 20
#define MAX_LAUNCHES 1000
#define DEFAULT_SERIES 5
#define MAX_SERIES GT_BENCH_MAX_REPS
#define DEFAULT_ORACLE_MAX 40
#define MAX_ORACLE_MAX 1000
#define MAX_SAMPLE_US 10000000u /* 10 s, the most gt_tune_config_check takes */
#define TMPDIR_TEMPLATE "/tmp/gridtune-tune-bench.XXXXXX"
#define WISDOM_FILE "wisdom.json"

/* The launch printed beside launch 10 and N, to show the way there. */
#define LAUNCH_EARLY 5
/* Cold picks whose oracle medians are within this share of the best of them count as the same. */
#define SAME_PICK_WITHIN 0.03

/* What the tuner is aiming for; printed next to the figures, never fed back into them. */
#define TARGET_COLD 1.10     /* launch 1 over the oracle best */
#define TARGET_LAUNCH 10     /* the launch by which ... */
#define TARGET_LAUNCH_AT 1.03 /* ... the series is this close to the oracle best */
#define TARGET_TOTAL 1.05    /* the N launches over N times the oracle best */
#define TARGET_ANALYSIS 0.10 /* launch 1's workgroups analysed */
#define TARGET_SAME_OF 4     /* same pick in at least 4 ... */
#define TARGET_SAME_IN 5     /* ... in 5 of the series */

/* ---- options ------------------------------------------------------------------------------ */

typedef struct options {
    gt_bench_flags flags; /* flags.reps: the oracle's forced runs of each schedule */
    const char *wisdom;   /* NULL: a temporary file */
    const char *reports;  /* NULL: no reports */
    bool reports_of_defaults; /* only the launches whose analysis kept the default */
    bool no_probes;
    bool no_reference;
    gt_tune_config cfg;
    unsigned launches;   /* per series */
    unsigned series;     /* per benchmark */
    unsigned oracle_max; /* schedules the oracle times, beyond the kept ones */
    unsigned nevents;    /* 0: the counters' default events */
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
    OPT_PARAM_SERIES,
    OPT_EVENTS,
    OPT_WISDOM,
    OPT_REPORTS,
    OPT_REPORTS_OF,
    OPT_LAUNCHES,
    OPT_SERIES,
    OPT_ORACLE_MAX,
    OPT_NO_PROBES,
    OPT_NO_REFERENCE,
};

static void usage(FILE *out)
{
    gt_tune_config d = gt_tune_config_default();
    fprintf(out,
            "usage: " PROG " [OPTIONS]\n"
            "Measures the tuner over repeated launches of each seed benchmark against the oracle, all\n"
            "in one run. A series clears the wisdom and launches the benchmark N times in a row (mode\n"
            "auto, with the wisdom), so its first launch is cold; after each launch the series' cold\n"
            "pick runs again, forced, as the reference for the machine's phase. The oracle then times\n"
            "the default, every schedule a launch picked and the best-analysed candidates of the cold\n"
            "launches, each forced on the whole launch; then the three fastest and the kept ones\n"
            "again: the medians of those runs, which chose nothing, are their costs (the oracle best's\n"
            "is the figures' denominator). Every launch's output is checked. Prints each\n"
            "benchmark's figures over the oracle best, plain and phase-adjusted (each launch over its\n"
            "reference, times the reference's oracle median), with the targets cold <= %.2fx, launch\n"
            "%u <= %.2fx, the N launches' total <= %.2fx, analysis <= %.0f%% of the workgroups, and the\n"
            "same pick (within %.0f%% in the oracle) in at least %u in %u cold launches, and the wisdom\n"
            "entry settled after launch %u in most series; then a summary.\n"
            "\n",
            TARGET_COLD, TARGET_LAUNCH, TARGET_LAUNCH_AT, TARGET_TOTAL, TARGET_ANALYSIS * 100,
            SAME_PICK_WITHIN * 100, TARGET_SAME_OF, TARGET_SAME_IN, TARGET_LAUNCH);
    gt_bench_flags_help(out, "forced runs of each oracle schedule", DEFAULT_REPS);
    fprintf(out,
            "  -b, --bench NAME      a benchmark to run; repeatable (default: all ten)\n"
            "      --launches N      launches per series, 1 to %u (default %u)\n"
            "      --series K        series per benchmark, 1 to %u; each one's first launch is cold\n"
            "                        (default %u)\n"
            "      --oracle-max M    the most schedules the oracle times, 1 to %u (default %u); the\n"
            "                        default and every picked schedule are timed even beyond it\n"
            "      --budget F        analysis budget, a fraction of the workgroups and of the time (default %g)\n"
            "      --strategy S      racing or nested (default %s)\n"
            "      --metric M        time, ipc, l1, l2 or energy (default %s)\n"
            "      --sample-us N     length of one analysis sample in microseconds (default %llu)\n"
            "      --styles TEXT     candidate styles, e.g. group=linear+tiled,item=linear,assign=block+dynamic;\n"
            "                        span= leaves spans out, span=series puts them back\n"
            "                        (default: every style of the tuner's space)\n"
            "      --param-series S:R:L  the parameters' series start:ratio:limit, limit 0 = the grid\n"
            "                        (default %u:%u:%u)\n"
            "      --events LIST     comma-separated PAPI event names (default:",
            MAX_LAUNCHES, DEFAULT_LAUNCHES, MAX_SERIES, DEFAULT_SERIES, MAX_ORACLE_MAX, DEFAULT_ORACLE_MAX,
            d.budget, gt_strategy_name(d.strategy), gt_metric_name(d.metric),
            (unsigned long long)(d.sample_ns / 1000), d.space.series.start, d.space.series.ratio,
            d.space.series.limit);
    for (unsigned i = 0; i < gt_counters_default_nevents; i++)
        fprintf(out, "%s%s", i ? "," : " ", gt_counters_default_events[i]);
    fprintf(out,
            ")\n"
            "      --wisdom PATH     keep the wisdom in PATH instead of a temporary file; every series\n"
            "                        clears it, and after each benchmark PATH holds this run's decisions\n"
            "      --reports DIR     write the report of every launch of every series as\n"
            "                        DIR/<bench>-<series>-<launch>.json, both counted from 1\n"
            "      --reports-of WHICH\n"
            "                        with --reports: the reports of all launches (default), or of\n"
            "                        defaults, the launches whose analysis ran and kept the default\n"
            "      --no-probes       leave out the eBPF probes that tell the tuner which samples other\n"
            "                        tasks disturbed (on by default where permitted, as in gridtuned)\n"
            "      --no-reference    leave out the reference run after each launch (the series' cold\n"
            "                        pick, forced), and with it the phase-adjusted figures\n"
            "  -l, --list            list the benchmarks and exit\n"
            "  -h, --help            this text\n"
            "Progress goes to stderr. Exit status: 0 done, 1 a failure (printed), 2 bad usage.\n");
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
    case OPT_LAUNCHES:
        return gt_bench_number_parse("--launches", arg, 1, MAX_LAUNCHES, &o->launches);
    case OPT_SERIES:
        if (strchr(arg, ':'))
            return bad_value("--series", arg, "expected a number of series; the parameters' series is --param-series");
        return gt_bench_number_parse("--series", arg, 1, MAX_SERIES, &o->series);
    case OPT_ORACLE_MAX:
        return gt_bench_number_parse("--oracle-max", arg, 1, MAX_ORACLE_MAX, &o->oracle_max);
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
    case OPT_PARAM_SERIES:
        return gt_series_parse(arg, &o->cfg.space.series, err, sizeof err) ? bad_value("--param-series", arg, err)
                                                                            : 0;
    case OPT_EVENTS:
        return parse_events(arg, o);
    case OPT_WISDOM:
        o->wisdom = arg;
        return 0;
    case OPT_REPORTS:
        o->reports = arg;
        return 0;
    case OPT_REPORTS_OF:
        if (strcmp(arg, "all") != 0 && strcmp(arg, "defaults") != 0)
            return bad_value("--reports-of", arg, "expected all or defaults");
        o->reports_of_defaults = strcmp(arg, "defaults") == 0;
        return 0;
    case OPT_NO_PROBES:
        o->no_probes = true;
        return 0;
    case OPT_NO_REFERENCE:
        o->no_reference = true;
        return 0;
    default:
        say("option %d has no handler", c);
        return -1;
    }
}

static const struct option own_options[] = {
    {"bench", required_argument, 0, 'b'},
    {"launches", required_argument, 0, OPT_LAUNCHES},
    {"series", required_argument, 0, OPT_SERIES},
    {"oracle-max", required_argument, 0, OPT_ORACLE_MAX},
    {"budget", required_argument, 0, OPT_BUDGET},
    {"strategy", required_argument, 0, OPT_STRATEGY},
    {"metric", required_argument, 0, OPT_METRIC},
    {"sample-us", required_argument, 0, OPT_SAMPLE_US},
    {"styles", required_argument, 0, OPT_STYLES},
    {"param-series", required_argument, 0, OPT_PARAM_SERIES},
    {"events", required_argument, 0, OPT_EVENTS},
    {"wisdom", required_argument, 0, OPT_WISDOM},
    {"reports", required_argument, 0, OPT_REPORTS},
    {"reports-of", required_argument, 0, OPT_REPORTS_OF},
    {"no-probes", no_argument, 0, OPT_NO_PROBES},
    {"no-reference", no_argument, 0, OPT_NO_REFERENCE},
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
    *o = (options){.flags.reps = DEFAULT_REPS,
                   .cfg = gt_tune_config_default(),
                   .launches = DEFAULT_LAUNCHES,
                   .series = DEFAULT_SERIES,
                   .oracle_max = DEFAULT_ORACLE_MAX};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc != 0)
        return rc;
    if (optind < argc) {
        say("unexpected argument \"%s\"; benchmarks are chosen with --bench NAME", argv[optind]);
        return -1;
    }
    if (o->reports_of_defaults && !o->reports) {
        say("--reports-of defaults: needs --reports DIR, where the reports go");
        return -1;
    }
    char err[256];
    if (gt_tune_config_check(&o->cfg, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    o->cfg.mode = GT_TUNE_AUTO;
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
    gt_probes *probes;           /* NULL: none */
    gt_probe_status probe_status;
    gt_pool *pool;
    unsigned workers;
    gt_wisdom *wisdom;
    char tmpdir[sizeof TMPDIR_TEMPLATE]; /* "" when --wisdom names the file */
    char machine[GT_HASH_TEXT_MAX];
    char machine_desc[256];
    bool tty;           /* stderr is a terminal: the progress line is rewritten at every launch */
    bool progress_open; /* and that line has no newline yet */
    /* Every benchmark's decision so far, put back into the wisdom after its series cleared
       it, so the saved file holds them all. */
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
    *s = (session){.o = o, .workers = pool_workers(o->flags.workers), .tty = isatty(STDERR_FILENO)};
    gt_machine_signature(s->machine, s->machine_desc, sizeof s->machine_desc);
    int counted = gt_counters_create(o->nevents ? o->events : NULL, o->nevents, s->workers, &s->counters, err,
                                     sizeof err);
    if (counted == -EINVAL && o->nevents) {
        say("--events: %s", err);
        return -2;
    }
    gt_probes_start(o->no_probes, &s->probes, &s->probe_status);
    if (counted != 0 || gt_module_open(o->flags.module, &s->module, err, sizeof err) != 0 ||
        gt_pool_create(&(gt_pool_config){.workers = s->workers, .counters = s->counters, .probes = s->probes,
                                         .spin_us = GT_POOL_DEFAULT_SPIN_US},
                       &s->pool, err, sizeof err) ||
        open_wisdom(s, err, sizeof err)) {
        say("%s", err);
        return -1;
    }
    gt_pool_probe_status(s->pool, &s->probe_status);
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
    gt_probes_close(s->probes);
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
    gt_pool_executor_init(&l->pe, s->pool, s->counters, &s->probe_status, l->bc.kernel, l->bc.slots,
                          &l->bc.seed->range, &l->exec);
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

/* Ends the progress line on a terminal, so that what follows starts a line of its own. */
static void progress_break(session *s)
{
    if (s->progress_open)
        fputc('\n', stderr);
    s->progress_open = false;
}

/* Which benchmark, series and launch: on a terminal one line, rewritten at every launch and
 * left standing at the end of the series; in a log, a line at the start of each series. */
static void progress(launch *l, unsigned series, unsigned k)
{
    const options *o = l->s->o;
    if (!l->s->tty) {
        if (k == 1)
            say("%s  series %u/%u: %u launch%s", l->bench->name, series, o->series, o->launches,
                o->launches == 1 ? "" : "es");
        return;
    }
    fprintf(stderr, "\r%s: %s  series %u/%u  launch %u/%u", PROG, l->bench->name, series, o->series, k, o->launches);
    l->s->progress_open = true;
    if (k == o->launches)
        progress_break(l->s);
}

/* One launch, checked: the output poisoned, gt_tune_run timed whole (planning, analysis and
 * remainder), the output verified against the reference outside the time. what names the
 * launch in a failure's sentence. The caller frees *r, also after a failure. */
static int launch_checked(launch *l, const gt_tune_config *cfg, const char *what, gt_tune_result *r, uint64_t *ns,
                          int64_t *started)
{
    char err[512];
    gt_seed_case_poison_output(l->bc.seed);
    *started = gt_clock_unix_ms();
    uint64_t t0 = gt_clock_ns();
    int rc = gt_tune_run(cfg, &l->tl, &l->exec, l->s->wisdom, r, err, sizeof err);
    *ns = gt_clock_ns() - t0;
    if (rc != 0) {
        progress_break(l->s);
        say("%s, %s: the launch failed: %s", l->bench->name, what, err);
        return -1;
    }
    if (gt_seed_case_verify(l->bc.seed, err, sizeof err) != 0) {
        progress_break(l->s);
        say("%s, %s: wrong output: %s", l->bench->name, what, err);
        return -1;
    }
    return 0;
}

/* A forced schedule on the whole launch, checked like every launch. */
static int launch_forced(launch *l, const gt_schedule *schedule, const char *what, uint64_t *ns)
{
    gt_tune_config cfg = l->s->o->cfg;
    cfg.forced = true;
    cfg.schedule = *schedule;
    gt_tune_result r;
    int64_t started;
    int rc = launch_checked(l, &cfg, what, &r, ns, &started);
    gt_tune_result_free(&r);
    return rc;
}

/* The launch's analysis measured candidates (a sample used, not calibration's alone: a launch
   too small to pay for analysis calibrates first) and kept the default. */
static bool analysis_kept_default(const gt_tune_result *r)
{
    return r->source == GT_SOURCE_DEFAULT && gt_tune_samples_used(r) > 0;
}

/* DIR/<bench>-<series>-<launch>.json, with --reports. */
static int write_report(launch *l, const gt_tune_result *r, unsigned series, unsigned k, int64_t started)
{
    const options *o = l->s->o;
    if (!o->reports || (o->reports_of_defaults && !analysis_kept_default(r)))
        return 0;
    char id[128], path[4096];
    snprintf(id, sizeof id, "%s-%u-%u", l->bench->name, series, k);
    if ((size_t)snprintf(path, sizeof path, "%s/%s.json", o->reports, id) >= sizeof path) {
        progress_break(l->s);
        say("--reports %s: the path is too long", o->reports);
        return -1;
    }
    gt_tune_config cfg = gt_tune_config_for(&o->cfg, &l->exec);
    gt_report_input in = {.config = &cfg, .launch = &l->tl, .result = r, .counters = l->s->status,
                          .probes = &l->s->probe_status, .workers = l->exec.workers, .id = id, .started = started};
    cJSON *report = gt_report_build(&in);
    if (!report) {
        progress_break(l->s);
        say("out of memory building the report %s", id);
        return -1;
    }
    return gt_bench_json_write(report, path);
}

/* ---- one benchmark's measurement ---------------------------------------------------------- */

/* One launch of a series and its decision. */
typedef struct launch_record {
    uint64_t ns;
    uint64_t reference_ns; /* the series' cold pick forced right after; 0 with --no-reference */
    gt_decision_source source;
    gt_schedule winner;
    uint64_t groups_analysis, groups_total;
    bool settled; /* the wisdom entry was settled after this launch */
    char reason[sizeof ((gt_tune_result *)0)->reason];
} launch_record;

/* The targets, in the order they are printed and counted. */
enum target { T_COLD, T_LAUNCH, T_TOTAL, T_ANALYSIS, T_SAME_PICK, T_SETTLED, NTARGETS };
static const char *const target_label[NTARGETS] = {"cold", "launch", "total", "analysis", "same pick", "settled"};
static const char *const target_key[NTARGETS] = {"cold", "launch", "total", "analysis", "same_pick", "settled"};

/* met[] of a target: */
enum { MISSED, MET, NOT_MEASURED };

/* The figures a launch's time makes over the oracle best, plain or phase-adjusted. */
typedef struct launch_figures {
    double cold, early, at_target, last, total; /* launch 1, LAUNCH_EARLY, TARGET_LAUNCH, N; NaN past N */
} launch_figures;

/* A launch over its reference where both ran one schedule and nothing else: how far two runs
   of the same schedule, back to back, differ on this machine. */
typedef struct spread {
    size_t pairs;
    double median, p10, p90; /* NaN without pairs; the percentiles by nearest rank */
} spread;

/* A benchmark's figures; ratios are over the oracle best's median. */
typedef struct figures {
    uint64_t best_ns, default_ns;
    launch_figures plain, adjusted; /* adjusted: all NaN without references */
    double phase_min, phase_median, phase_max; /* the references over their oracle medians */
    spread same;                               /* launch over reference, the same schedule */
    double tuned_ns;       /* a launch of a series on average: the median over the series of total / N */
    double analysis;       /* launch 1's workgroups analysed over its total, median over the series */
    unsigned same_pick;    /* of the series' cold picks */
    unsigned settled;      /* series whose entry was settled after launch TARGET_LAUNCH */
    int met[NTARGETS], met_adjusted[NTARGETS]; /* analysis, same pick and settled are the same in both */
} figures;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    uint64_t work_items;
    uint64_t groups_total;
    unsigned nseries, nlaunches;
    bool referenced;         /* every launch has its reference run */
    launch_record *launches; /* series after series, nlaunches each */
    gt_bench_oracle oracle;
    size_t def;              /* the default schedule, in the oracle */
    char metric_note[160];   /* the first cold launch's */
    figures f;
} bench_result;

/* Launch k (from 1) of series s (from 1). */
static launch_record *record_at(const bench_result *br, unsigned s, unsigned k)
{
    return &br->launches[(size_t)(s - 1) * br->nlaunches + (k - 1)];
}

/* What a launch adds to the oracle: its winner, which stays, and for a cold launch every
 * candidate its analysis considered, with its analysis median. */
static int oracle_note(bench_result *br, const gt_tune_result *r, bool cold)
{
    for (size_t i = 0; cold && i < r->ncandidates; i++)
        if (gt_bench_oracle_add(&br->oracle, &r->candidates[i].schedule, false, r->candidates[i].median))
            return -1;
    return gt_bench_oracle_add(&br->oracle, &r->winner, true, NAN);
}

/* Launch k of a series: through the tuner in mode auto with the wisdom, checked and kept. */
static int series_launch(launch *l, bench_result *br, unsigned series, unsigned k)
{
    char what[64];
    snprintf(what, sizeof what, "series %u, launch %u", series, k);
    gt_tune_result r;
    uint64_t ns;
    int64_t started;
    int rc = launch_checked(l, &l->s->o->cfg, what, &r, &ns, &started);
    if (rc == 0) {
        launch_record *rec = record_at(br, series, k);
        *rec = (launch_record){.ns = ns,
                               .source = r.source,
                               .winner = r.winner,
                               .groups_analysis = r.groups_analysis,
                               .groups_total = r.groups_total,
                               .settled = r.refine.ran && r.refine.state == GT_REFINE_SETTLED};
        snprintf(rec->reason, sizeof rec->reason, "%s", r.reason);
        br->groups_total = r.groups_total;
        if (series == 1 && k == 1)
            snprintf(br->metric_note, sizeof br->metric_note, "%s", r.metric_note);
        rc = oracle_note(br, &r, k == 1);
    }
    if (rc == 0)
        rc = write_report(l, &r, series, k, started);
    gt_tune_result_free(&r);
    return rc;
}

/* The series' cold pick forced on the whole launch right after launch k: the phase's measure. */
static int reference_launch(launch *l, bench_result *br, unsigned series, unsigned k)
{
    char what[64];
    snprintf(what, sizeof what, "series %u, the reference after launch %u", series, k);
    return launch_forced(l, &record_at(br, series, 1)->winner, what, &record_at(br, series, k)->reference_ns);
}

/* A series: the wisdom cleared, then --launches launches in a row, each with its reference. */
static int run_series(launch *l, bench_result *br, unsigned series)
{
    gt_wisdom_clear(l->s->wisdom);
    for (unsigned k = 1; k <= br->nlaunches; k++) {
        progress(l, series, k);
        if (stop_signal)
            progress_break(l->s);
        if (stopped() || series_launch(l, br, series, k))
            return -1;
        if (br->referenced && (stopped() || reference_launch(l, br, series, k)))
            return -1;
    }
    return 0;
}

/* Runs oracle schedule i for gt_bench_oracle_time. */
static int oracle_run(void *ctx, const gt_bench_oracle *o, size_t i, uint64_t *ns)
{
    launch *l = ctx;
    const char *text = gt_bench_oracle_text(o, i);
    char what[GT_SCHEDULE_TEXT_MAX + 32];
    snprintf(what, sizeof what, "oracle, %s", text);
    return stopped() ? -1 : launch_forced(l, &gt_contest_oracle_get(&o->set, i)->schedule, what, ns);
}

/* The oracle: the default, the picks and the cold candidates of the series, capped at
 * --oracle-max, then timed. */
static int run_oracle(launch *l, bench_result *br)
{
    if (gt_bench_oracle_cap(&br->oracle, l->s->o->oracle_max) != 0)
        return -1;
    long def = gt_bench_oracle_find(&br->oracle, &gt_schedule_default);
    if (def < 0) {
        say("%s: the default schedule fell out of the oracle", br->bench->name);
        return -1;
    }
    br->def = (size_t)def;
    return gt_bench_oracle_time(&br->oracle, l->s->o->flags.reps, br->bench->name, oracle_run, l);
}

/* ---- one benchmark's figures -------------------------------------------------------------- */

static double over(double a, double b)
{
    return b > 0 ? a / b : NAN;
}

/* The oracle median of schedule s; NaN when the oracle did not time it. */
static double oracle_median_ns(const bench_result *br, const gt_schedule *s)
{
    long i = gt_bench_oracle_find(&br->oracle, s);
    return i < 0 ? NAN : (double)gt_bench_oracle_median_ns(&br->oracle, (size_t)i);
}

/* Launch k's phase in series s: its reference's time over the reference schedule's oracle
 * median (1.5: the machine ran it 50% slower than in the oracle); NaN without references. */
static double phase(const bench_result *br, unsigned s, unsigned k)
{
    const launch_record *r = record_at(br, s, k);
    if (!br->referenced)
        return NAN;
    return (double)r->reference_ns / oracle_median_ns(br, &record_at(br, s, 1)->winner);
}

/* Launch k of series s over the oracle best; adjusted, over its phase too. */
static double launch_over_best(const bench_result *br, unsigned s, unsigned k, bool adjusted)
{
    double v = over((double)record_at(br, s, k)->ns, (double)br->f.best_ns);
    return adjusted ? v / phase(br, s, k) : v;
}

/* The median over the series of launch k over the oracle best; NaN past the last launch, and
 * adjusted without references. */
static double launch_median(const bench_result *br, unsigned k, bool adjusted)
{
    double v[MAX_SERIES];
    if (k < 1 || k > br->nlaunches || (adjusted && !br->referenced))
        return NAN;
    for (unsigned s = 1; s <= br->nseries; s++)
        v[s - 1] = launch_over_best(br, s, k, adjusted);
    return gt_stats_median(v, br->nseries);
}

/* The same in milliseconds (plain). */
static double launch_median_ms(const bench_result *br, unsigned k)
{
    return launch_median(br, k, false) * gt_bench_ms(br->f.best_ns);
}

/* The largest group of cold picks whose oracle medians are within SAME_PICK_WITHIN of the
 * group's best (the header comment says it exactly). */
static unsigned same_pick(const bench_result *br)
{
    double m[MAX_SERIES];
    unsigned most = 0;
    for (unsigned s = 1; s <= br->nseries; s++)
        m[s - 1] = oracle_median_ns(br, &record_at(br, s, 1)->winner);
    for (unsigned a = 0; a < br->nseries; a++) {
        unsigned group = 0;
        for (unsigned j = 0; j < br->nseries; j++)
            group += m[a] <= m[j] && m[j] <= m[a] * (1 + SAME_PICK_WITHIN);
        most = group > most ? group : most;
    }
    return most;
}

/* The same pick the target asks of n series: TARGET_SAME_OF in TARGET_SAME_IN, rounded up. */
static unsigned same_pick_needed(unsigned n)
{
    return (TARGET_SAME_OF * n + TARGET_SAME_IN - 1) / TARGET_SAME_IN;
}

/* Series whose wisdom entry was settled after launch TARGET_LAUNCH; 0 with fewer launches. The
   target asks for more than half of them. */
static unsigned settled_series(const bench_result *br)
{
    unsigned n = 0;
    for (unsigned s = 1; br->nlaunches >= TARGET_LAUNCH && s <= br->nseries; s++)
        n += record_at(br, s, TARGET_LAUNCH)->settled;
    return n;
}

static int at_most(double value, double limit)
{
    return isnan(value) ? NOT_MEASURED : value <= limit ? MET : MISSED;
}

/* The median over the series of the N launches' mean over the oracle best. */
static double total_median(const bench_result *br, bool adjusted)
{
    double mean[MAX_SERIES];
    if (adjusted && !br->referenced)
        return NAN;
    for (unsigned s = 1; s <= br->nseries; s++) {
        double sum = 0;
        for (unsigned k = 1; k <= br->nlaunches; k++)
            sum += launch_over_best(br, s, k, adjusted);
        mean[s - 1] = sum / br->nlaunches;
    }
    return gt_stats_median(mean, br->nseries);
}

/* The launch figures, plain or adjusted, and their targets' marks in met[]. */
static void launch_figures_of(const bench_result *br, bool adjusted, launch_figures *lf, int *met)
{
    lf->cold = launch_median(br, 1, adjusted);
    lf->early = launch_median(br, LAUNCH_EARLY, adjusted);
    lf->at_target = launch_median(br, TARGET_LAUNCH, adjusted);
    lf->last = launch_median(br, br->nlaunches, adjusted);
    lf->total = total_median(br, adjusted);
    met[T_COLD] = at_most(lf->cold, TARGET_COLD);
    met[T_LAUNCH] = at_most(lf->at_target, TARGET_LAUNCH_AT);
    met[T_TOTAL] = at_most(lf->total, TARGET_TOTAL);
}

/* The lowest, median and highest phase over every launch of every series. */
static void phase_range(const bench_result *br, figures *f)
{
    size_t n = (size_t)br->nseries * br->nlaunches;
    double *v = br->referenced ? malloc(n * sizeof *v) : NULL;
    gt_stats st = {.median = NAN, .min = NAN, .max = NAN};
    for (unsigned s = 1; v && s <= br->nseries; s++)
        for (unsigned k = 1; k <= br->nlaunches; k++)
            v[(size_t)(s - 1) * br->nlaunches + (k - 1)] = phase(br, s, k);
    if (v)
        gt_stats_compute(v, n, &st);
    f->phase_min = st.min;
    f->phase_median = st.median;
    f->phase_max = st.max;
    free(v);
}

/* The launches that ran their series' cold pick alone (from the wisdom, nothing analysed and
   no contender's share), each over its reference, which ran the same schedule right after. */
static void same_schedule_spread(const bench_result *br, spread *out)
{
    size_t n = 0;
    double *v = br->referenced ? malloc((size_t)br->nseries * br->nlaunches * sizeof *v) : NULL;
    *out = (spread){.median = NAN, .p10 = NAN, .p90 = NAN};
    for (unsigned s = 1; v && s <= br->nseries; s++)
        for (unsigned k = 2; k <= br->nlaunches; k++) {
            const launch_record *r = record_at(br, s, k);
            if (r->source == GT_SOURCE_WISDOM && r->groups_analysis == 0 && r->reference_ns &&
                gt_schedule_equal(&r->winner, &record_at(br, s, 1)->winner))
                v[n++] = (double)r->ns / (double)r->reference_ns;
        }
    if (n)
        *out = (spread){.pairs = n,
                        .median = gt_stats_median(v, n),
                        .p10 = gt_stats_quantile(v, n, 0.1),
                        .p90 = gt_stats_quantile(v, n, 0.9)};
    free(v);
}

static void summarise(bench_result *br)
{
    figures *f = &br->f;
    const gt_bench_oracle *o = &br->oracle;
    double analysis[MAX_SERIES];
    for (unsigned s = 1; s <= br->nseries; s++) {
        const launch_record *cold = record_at(br, s, 1);
        analysis[s - 1] = cold->groups_total ? (double)cold->groups_analysis / (double)cold->groups_total : 0;
    }
    f->best_ns = gt_bench_oracle_median_ns(o, o->best);
    f->default_ns = gt_bench_oracle_median_ns(o, br->def);
    launch_figures_of(br, false, &f->plain, f->met);
    launch_figures_of(br, true, &f->adjusted, f->met_adjusted);
    phase_range(br, f);
    same_schedule_spread(br, &f->same);
    f->tuned_ns = f->plain.total * (double)f->best_ns;
    f->analysis = gt_stats_median(analysis, br->nseries);
    f->same_pick = same_pick(br);
    f->met[T_ANALYSIS] = f->met_adjusted[T_ANALYSIS] = at_most(f->analysis, TARGET_ANALYSIS);
    f->met[T_SAME_PICK] = f->met_adjusted[T_SAME_PICK] = f->same_pick >= same_pick_needed(br->nseries) ? MET : MISSED;
    f->settled = settled_series(br);
    f->met[T_SETTLED] = f->met_adjusted[T_SETTLED] = br->nlaunches < TARGET_LAUNCH ? NOT_MEASURED
                                                     : 2 * f->settled > br->nseries ? MET
                                                                                      : MISSED;
}

/* Puts every benchmark's decision back into the wisdom (each series cleared it) and saves it,
 * so the file holds all of them after each benchmark. */
static int keep_decision(session *s, launch *l)
{
    char err[512];
    gt_wisdom_key key = launch_key(l);
    if (s->ndecisions < GT_BENCH_MAX_BENCHES && gt_wisdom_lookup(s->wisdom, &key, &s->decision[s->ndecisions]))
        s->decision_key[s->ndecisions++] = key;
    gt_wisdom_clear(s->wisdom);
    for (unsigned i = 0; i < s->ndecisions; i++)
        if (gt_wisdom_store(s->wisdom, &s->decision_key[i], &s->decision[i], err, sizeof err) != 0) {
            say("cannot keep the decision for %s in the wisdom: %s", s->decision_key[i].kernel, err);
            return -1;
        }
    if (gt_wisdom_save(s->wisdom, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    return 0;
}

/* An untimed checked launch of the default (it touches every page), the series, the oracle. */
static int run_bench(session *s, const gt_seed_bench *b, bench_result *br)
{
    const options *o = s->o;
    launch l;
    uint64_t ns;
    *br = (bench_result){.bench = b, .nseries = o->series, .nlaunches = o->launches, .referenced = !o->no_reference};
    if (launch_open(s, b, &l))
        return -1;
    br->n = l.bc.seed->n;
    br->work_items = l.bc.seed->work_items;
    int rc = 0;
    if (!(br->launches = calloc((size_t)o->series * o->launches, sizeof *br->launches))) {
        say("out of memory for %u series of %u launches", o->series, o->launches);
        rc = -1;
    }
    if (rc == 0)
        rc = gt_bench_oracle_add(&br->oracle, &gt_schedule_default, true, NAN);
    if (rc == 0) {
        say("%s  n=%zu: %u series of %u launch%s, then the oracle", b->name, br->n, o->series, o->launches,
            o->launches == 1 ? "" : "es");
        rc = launch_forced(&l, &gt_schedule_default, "warm-up", &ns);
    }
    for (unsigned series = 1; rc == 0 && series <= o->series; series++)
        rc = run_series(&l, br, series);
    if (rc == 0)
        rc = run_oracle(&l, br);
    if (rc == 0)
        rc = keep_decision(s, &l);
    gt_bench_case_destroy(&l.bc);
    if (rc == 0)
        summarise(br);
    return rc;
}

static void bench_result_free(bench_result *br)
{
    free(br->launches);
    gt_bench_oracle_free(&br->oracle);
}

/* ---- printing ------------------------------------------------------------------------------ */

static const char *mark(int met)
{
    return met == MET ? "met" : met == MISSED ? "MISSED" : "n/a";
}

static const char *short_mark(int met)
{
    return met == MET ? "ok" : met == MISSED ? "MISS" : "";
}

/* "1.07x", or "n/a" for a figure not measured. */
static const char *ratio_text(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.2fx", v);
    return buf;
}

static void print_header(const session *s)
{
    const options *o = s->o;
    const gt_counter_status *cs = s->status;
    printf(PROG ": %u benchmark%s, %u workers; each %u series of %u launch%s, then an oracle of at most %u "
           "schedules forced %u time%s each\n",
           o->nbenches, o->nbenches == 1 ? "" : "s", s->workers, o->series, o->launches, o->launches == 1 ? "" : "es",
           o->oracle_max, o->flags.reps, o->flags.reps == 1 ? "" : "s");
    printf("machine:  %s (signature %s)\n", s->machine_desc, s->machine);
    printf("counters: %s (", gt_counter_mode_name(cs->mode));
    for (unsigned i = 0; i < cs->nused; i++)
        printf("%s%s", i ? ", " : "", cs->used[i]);
    printf("%s)%s%s\n", cs->nused ? "" : "none", *cs->note ? ": " : "", cs->note);
    for (unsigned i = 0; i < cs->nunavailable; i++)
        printf("          not counted: %s (%s)\n", cs->unavailable[i].name, cs->unavailable[i].reason);
    printf("probes:   %s (%s)\n", gt_probe_state_name(s->probe_status.state), s->probe_status.reason);
    printf("tuner:    strategy %s, metric %s, budget %.0f%%, minimum gain %.0f%%, samples of %.0f us\n",
           gt_strategy_name(o->cfg.strategy), gt_metric_name(o->cfg.metric), o->cfg.budget * 100,
           o->cfg.min_gain * 100, (double)o->cfg.sample_ns / 1e3);
    printf("wisdom:   %s%s\n", gt_wisdom_path(s->wisdom), s->tmpdir[0] ? " (temporary)" : "");
    printf("targets:  over the oracle best, cold <= %.2fx, launch %u <= %.2fx, total <= %.2fx; analysis <= %.0f%% "
           "of the workgroups; same pick (within %.0f%%) in >= %u of %u series; settled after launch %u in most\n",
           TARGET_COLD, TARGET_LAUNCH, TARGET_LAUNCH_AT, TARGET_TOTAL, TARGET_ANALYSIS * 100,
           SAME_PICK_WITHIN * 100, TARGET_SAME_OF, TARGET_SAME_IN, TARGET_LAUNCH);
}

/* One figure: its value, its target and whether it is met (target NULL: none), a note. */
static void print_figure(const char *label, const char *value, const char *target, int met, const char *note)
{
    printf("  %-12s %8s  %-9s %-6s  %s\n", label, value, target ? target : "", target ? mark(met) : "", note);
}

/* The figure of launch k, unless k is past the last launch or printed already. */
static void print_launch_figure(const bench_result *br, unsigned k, double v, int met)
{
    char label[32], value[16], limit[16];
    if (k <= 1 || k > br->nlaunches)
        return;
    snprintf(label, sizeof label, "launch %u", k);
    snprintf(limit, sizeof limit, "<= %.2fx", TARGET_LAUNCH_AT);
    print_figure(label, ratio_text(v, value, sizeof value), k == TARGET_LAUNCH ? limit : NULL, met,
                 "median over the series");
}

/* Cold, launch 5, 10 and N, and the total, plain or adjusted; notes[0] for cold, [1] the total. */
static void print_launch_figures(const bench_result *br, const launch_figures *lf, const int *met,
                                 const char *const notes[2])
{
    char value[16], limit[16];
    snprintf(limit, sizeof limit, "<= %.2fx", TARGET_COLD);
    print_figure("cold", ratio_text(lf->cold, value, sizeof value), limit, met[T_COLD], notes[0]);
    print_launch_figure(br, LAUNCH_EARLY, lf->early, met[T_LAUNCH]);
    print_launch_figure(br, TARGET_LAUNCH, lf->at_target, met[T_LAUNCH]);
    if (br->nlaunches != LAUNCH_EARLY && br->nlaunches != TARGET_LAUNCH)
        print_launch_figure(br, br->nlaunches, lf->last, met[T_LAUNCH]);
    snprintf(limit, sizeof limit, "<= %.2fx", TARGET_TOTAL);
    print_figure("total", ratio_text(lf->total, value, sizeof value), limit, met[T_TOTAL], notes[1]);
}

/* Each distinct cold pick once: how many series picked it, its oracle median over the best. */
static void print_cold_picks(const bench_result *br)
{
    for (unsigned s = 1, printed = 0; s <= br->nseries; s++) {
        const gt_schedule *w = &record_at(br, s, 1)->winner;
        unsigned count = 0, first = s;
        for (unsigned j = br->nseries; j >= 1; j--)
            if (gt_schedule_equal(&record_at(br, j, 1)->winner, w)) {
                count++;
                first = j;
            }
        if (first != s)
            continue;
        char text[GT_SCHEDULE_TEXT_MAX], r[16];
        gt_schedule_format(w, text, sizeof text);
        printf("  %-12s %3ux %6s  %s\n", printed++ ? "" : "cold picks", count,
               ratio_text(over(oracle_median_ns(br, w), (double)br->f.best_ns), r, sizeof r), text);
    }
}

/* The decisions of series 1, a line per launch; a schedule like the one before is not repeated.
 * With references, each launch's phase and its adjusted figure too. */
static void print_history(const bench_result *br)
{
    printf("  %-12s %6s %10s %8s %7s %8s  %-9s %8s  %s\n", "series 1", "launch", "ms", "vs best", "phase", "adjusted",
           "source", "analysed", "schedule");
    for (unsigned k = 1; k <= br->nlaunches; k++) {
        const launch_record *r = record_at(br, 1, k);
        char text[GT_SCHEDULE_TEXT_MAX] = "(same)", v[16], ph[16], adj[16];
        if (k == 1 || !gt_schedule_equal(&r->winner, &record_at(br, 1, k - 1)->winner))
            gt_schedule_format(&r->winner, text, sizeof text);
        printf("  %-12s %6u %10.2f %8s %7s %8s  %-9s %7.1f%%  %s\n", "", k, gt_bench_ms(r->ns),
               ratio_text(launch_over_best(br, 1, k, false), v, sizeof v), ratio_text(phase(br, 1, k), ph, sizeof ph),
               ratio_text(launch_over_best(br, 1, k, true), adj, sizeof adj), gt_decision_source_name(r->source),
               r->groups_total ? 100.0 * (double)r->groups_analysis / (double)r->groups_total : 0.0, text);
    }
}

static void print_bench(const bench_result *br)
{
    const figures *f = &br->f;
    const gt_bench_oracle *o = &br->oracle;
    size_t n = gt_bench_oracle_count(o), kept = 0;
    for (size_t i = 0; i < n; i++)
        kept += o->entries[i].keep;
    char value[32], limit[32], note[128], r1[16], r2[16], r3[16];
    printf("\n%s  n=%zu  (%s)  %llu workgroups\n", br->bench->name, br->n, br->bench->summary,
           (unsigned long long)br->groups_total);
    size_t again = 0;
    for (size_t i = 0; i < n; i++)
        again += o->entries[i].retimed.n > 0;
    printf("  %-12s %zu schedules forced %u time%s each: %zu kept (the default and every pick), %zu best-analysed "
           "candidates; %zu left out; %zu again (the %d lowest medians and the kept), whose costs those runs are\n",
           "oracle", n, o->entries[0].times.n, o->entries[0].times.n == 1 ? "" : "s", kept, n - kept, o->dropped,
           again, GT_BENCH_ORACLE_RETIMED);
    printf("  %-12s %8.2f ms  %s  (worst %s)\n", "oracle best", gt_bench_ms(f->best_ns),
           gt_bench_oracle_text(o, o->best),
           ratio_text(over((double)o->entries[o->worst].times.median_ns, (double)f->best_ns), r1, sizeof r1));
    if (o->entries[o->best].retimed.n)
        printf("  %-12s %8.2f ms  its median in the rounds that chose it, %s the one above from %u rounds after them\n",
               "chosen at", gt_bench_ms(o->entries[o->best].times.median_ns),
               ratio_text(over((double)o->entries[o->best].times.median_ns, (double)f->best_ns), r1, sizeof r1),
               o->entries[o->best].retimed.n);
    printf("  %-12s %8.2f ms  %s the oracle best; default/cold %s, default/tuned %s\n", "default",
           gt_bench_ms(f->default_ns), ratio_text(over((double)f->default_ns, (double)f->best_ns), r1, sizeof r1),
           ratio_text(over(gt_bench_ms(f->default_ns), launch_median_ms(br, 1)), r2, sizeof r2),
           ratio_text(over((double)f->default_ns, f->tuned_ns), r3, sizeof r3));
    char cold_note[128], total_note[128];
    snprintf(cold_note, sizeof cold_note, "launch 1, median over %u series: %.2f ms", br->nseries,
             launch_median_ms(br, 1));
    snprintf(total_note, sizeof total_note, "the %u launches over %u x the oracle best; a launch %.2f ms on average",
             br->nlaunches, br->nlaunches, gt_bench_ms((uint64_t)f->tuned_ns));
    print_launch_figures(br, &f->plain, f->met, (const char *const[2]){cold_note, total_note});
    if (br->referenced) {
        printf("  phase-adjusted: each launch over its reference (the series' cold pick, forced right after it),\n"
               "  times the reference's oracle median; the references ran at %.2f-%.2fx their oracle medians\n"
               "  (median %.2fx)\n",
               f->phase_min, f->phase_max, f->phase_median);
        print_launch_figures(br, &f->adjusted, f->met_adjusted,
                             (const char *const[2]){"launch 1, adjusted, median over the series",
                                                    "the launches' adjusted mean, median over the series"});
        if (f->same.pairs)
            printf("  same schedule: a launch that ran the cold pick alone over its reference, median %.2fx,\n"
                   "  10-90%% %.2f-%.2fx (%zu pairs): two runs of one schedule back to back differ this much\n",
                   f->same.median, f->same.p10, f->same.p90, f->same.pairs);
    }
    snprintf(value, sizeof value, "%.1f%%", f->analysis * 100);
    snprintf(limit, sizeof limit, "<= %.0f%%", TARGET_ANALYSIS * 100);
    print_figure("analysis", value, limit, f->met[T_ANALYSIS], "of launch 1's workgroups, median over the series");
    snprintf(value, sizeof value, "%u/%u", f->same_pick, br->nseries);
    snprintf(limit, sizeof limit, ">= %u/%u", same_pick_needed(br->nseries), br->nseries);
    snprintf(note, sizeof note, "cold picks within %.0f%% of the best of them in the oracle", SAME_PICK_WITHIN * 100);
    print_figure("same pick", value, limit, f->met[T_SAME_PICK], note);
    if (br->nlaunches >= TARGET_LAUNCH) {
        snprintf(value, sizeof value, "%u/%u", f->settled, br->nseries);
        snprintf(limit, sizeof limit, "> %u/%u", br->nseries / 2, br->nseries);
        snprintf(note, sizeof note, "series whose entry was settled after launch %u", TARGET_LAUNCH);
        print_figure("settled", value, limit, f->met[T_SETTLED], note);
    }
    print_cold_picks(br);
    if (*br->metric_note)
        printf("  %-12s %s\n", "metric", br->metric_note);
    print_history(br);
}

/* The summary's table, plain or adjusted, and the count of benchmarks meeting each target. */
static void print_summary_table(const bench_result *r, unsigned n, bool adjusted, const char *at)
{
    unsigned met[NTARGETS] = {0};
    char v[NTARGETS][16];
    printf("  %-14s %10s %10s %9s %12s %12s %12s %11s %11s %11s\n", "benchmark", "best ms", "default ms", "def/best",
           "cold", at, "total", "analysis", "same pick", "settled");
    for (unsigned i = 0; i < n; i++) {
        const figures *f = &r[i].f;
        const launch_figures *lf = adjusted ? &f->adjusted : &f->plain;
        const int *m = adjusted ? f->met_adjusted : f->met;
        for (int t = 0; t < NTARGETS; t++)
            met[t] += m[t] == MET;
        ratio_text(lf->cold, v[T_COLD], sizeof v[T_COLD]);
        ratio_text(lf->at_target, v[T_LAUNCH], sizeof v[T_LAUNCH]);
        ratio_text(lf->total, v[T_TOTAL], sizeof v[T_TOTAL]);
        snprintf(v[T_ANALYSIS], sizeof v[T_ANALYSIS], "%.1f%%", f->analysis * 100);
        snprintf(v[T_SAME_PICK], sizeof v[T_SAME_PICK], "%u/%u", f->same_pick, r[i].nseries);
        if (m[T_SETTLED] == NOT_MEASURED)
            snprintf(v[T_SETTLED], sizeof v[T_SETTLED], "-");
        else
            snprintf(v[T_SETTLED], sizeof v[T_SETTLED], "%u/%u", f->settled, r[i].nseries);
        printf("  %-14s %10.2f %10.2f %8.2fx", r[i].bench->name, gt_bench_ms(f->best_ns), gt_bench_ms(f->default_ns),
               over((double)f->default_ns, (double)f->best_ns));
        for (int t = 0; t < NTARGETS; t++)
            printf(" %*s %-4s", t >= T_ANALYSIS ? 6 : 7, v[t], short_mark(m[t]));
        printf("\n");
    }
    printf("  targets met%s:", adjusted ? " (phase-adjusted)" : "");
    for (int t = 0; t < NTARGETS; t++)
        printf("%s %s %u/%u", t ? "," : "", t == T_LAUNCH ? at : target_label[t], met[t], n);
    printf("\n");
}

static void print_summary(const session *s, const bench_result *r, unsigned n)
{
    const options *o = s->o;
    char at[16];
    snprintf(at, sizeof at, "launch %u", TARGET_LAUNCH);
    printf("\nsummary: %u series of %u launch%s per benchmark, the oracle's medians of %u forced run%s, %u workers\n",
           o->series, o->launches, o->launches == 1 ? "" : "es", o->flags.reps, o->flags.reps == 1 ? "" : "s",
           s->workers);
    print_summary_table(r, n, false, at);
    if (o->launches < TARGET_LAUNCH)
        printf("  (%s needs --launches %u or more)\n", at, TARGET_LAUNCH);
    if (!o->no_reference) {
        printf("phase-adjusted (each launch over its reference, times the reference's oracle median):\n");
        print_summary_table(r, n, true, at);
    }
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void add_number(cJSON *obj, const char *key, double v)
{
    cJSON_AddItemToObject(obj, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void add_schedule(cJSON *obj, const char *key, const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(s, text, sizeof text);
    cJSON_AddStringToObject(obj, key, text);
}

static cJSON *series_json(const bench_result *br, unsigned s)
{
    cJSON *list = cJSON_CreateArray();
    for (unsigned k = 1; k <= br->nlaunches; k++) {
        const launch_record *r = record_at(br, s, k);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "launch", k);
        cJSON_AddNumberToObject(j, "ns", (double)r->ns);
        add_number(j, "reference_ns", br->referenced ? (double)r->reference_ns : NAN);
        add_number(j, "phase", phase(br, s, k));
        cJSON_AddStringToObject(j, "source", gt_decision_source_name(r->source));
        add_schedule(j, "schedule", &r->winner);
        cJSON_AddStringToObject(j, "reason", r->reason);
        cJSON_AddNumberToObject(j, "groups_analysis", (double)r->groups_analysis);
        cJSON_AddNumberToObject(j, "groups_total", (double)r->groups_total);
        cJSON_AddBoolToObject(j, "settled", r->settled);
        cJSON_AddItemToArray(list, j);
    }
    return list;
}

static cJSON *oracle_json(const bench_result *br)
{
    const gt_bench_oracle *o = &br->oracle;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "best", gt_bench_oracle_text(o, o->best));
    cJSON_AddNumberToObject(j, "best_median_ns", (double)br->f.best_ns);
    cJSON_AddNumberToObject(j, "best_chosen_median_ns", (double)o->entries[o->best].times.median_ns);
    cJSON_AddStringToObject(j, "default", gt_bench_oracle_text(o, br->def));
    cJSON_AddNumberToObject(j, "default_median_ns", (double)br->f.default_ns);
    cJSON_AddNumberToObject(j, "left_out", (double)o->dropped);
    cJSON *list = cJSON_AddArrayToObject(j, "schedules");
    for (size_t i = 0; i < gt_bench_oracle_count(o); i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "schedule", gt_bench_oracle_text(o, i));
        cJSON_AddBoolToObject(e, "kept", o->entries[i].keep);
        add_number(e, "analysis_median", o->entries[i].analysis);
        gt_bench_times_json(e, &o->entries[i].times);
        if (o->entries[i].retimed.n)
            gt_bench_times_json(cJSON_AddObjectToObject(e, "retimed"), &o->entries[i].retimed);
        cJSON_AddItemToArray(list, e);
    }
    return j;
}

/* Cold, every launch and the total over the oracle best, plain or adjusted, into j. */
static void launch_figures_json(cJSON *j, const bench_result *br, const launch_figures *lf, bool adjusted)
{
    add_number(j, "cold_over_oracle_best", lf->cold);
    cJSON *curve = cJSON_AddArrayToObject(j, "launch_over_oracle_best"); /* [k - 1]: launch k */
    for (unsigned k = 1; k <= br->nlaunches; k++) {
        double v = launch_median(br, k, adjusted);
        cJSON_AddItemToArray(curve, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
    }
    add_number(j, "total_over_oracle_best", lf->total);
}

static cJSON *figures_json(const bench_result *br)
{
    const figures *f = &br->f;
    double best = (double)f->best_ns;
    cJSON *j = cJSON_CreateObject();
    launch_figures_json(j, br, &f->plain, false);
    if (br->referenced) {
        cJSON *adj = cJSON_AddObjectToObject(j, "phase_adjusted");
        launch_figures_json(adj, br, &f->adjusted, true);
        cJSON *ph = cJSON_AddObjectToObject(adj, "phase");
        add_number(ph, "min", f->phase_min);
        add_number(ph, "median", f->phase_median);
        add_number(ph, "max", f->phase_max);
        cJSON *same = cJSON_AddObjectToObject(adj, "same_schedule");
        cJSON_AddNumberToObject(same, "pairs", (double)f->same.pairs);
        add_number(same, "median", f->same.median);
        add_number(same, "p10", f->same.p10);
        add_number(same, "p90", f->same.p90);
    }
    add_number(j, "tuned_mean_ns", f->tuned_ns);
    add_number(j, "analysis_fraction", f->analysis);
    cJSON_AddNumberToObject(j, "same_pick", f->same_pick);
    cJSON_AddNumberToObject(j, "settled_series", f->settled);
    add_number(j, "default_over_oracle_best", over((double)f->default_ns, best));
    add_number(j, "default_over_cold", over(gt_bench_ms(f->default_ns), launch_median_ms(br, 1)));
    add_number(j, "default_over_tuned", over((double)f->default_ns, f->tuned_ns));
    add_number(j, "oracle_worst_over_best",
               over((double)br->oracle.entries[br->oracle.worst].times.median_ns, best));
    return j;
}

static void targets_json(cJSON *parent, const char *key, const int *met)
{
    cJSON *j = cJSON_AddObjectToObject(parent, key);
    for (int t = 0; t < NTARGETS; t++)
        cJSON_AddItemToObject(j, target_key[t], met[t] == NOT_MEASURED ? cJSON_CreateNull() : cJSON_CreateBool(met[t] == MET));
}

static cJSON *bench_json(const bench_result *br)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "benchmark", br->bench->name);
    cJSON_AddNumberToObject(j, "n", (double)br->n);
    cJSON_AddNumberToObject(j, "work_items", (double)br->work_items);
    cJSON_AddNumberToObject(j, "groups_total", (double)br->groups_total);
    cJSON_AddStringToObject(j, "metric_note", br->metric_note);
    cJSON *series = cJSON_AddArrayToObject(j, "series");
    for (unsigned s = 1; s <= br->nseries; s++)
        cJSON_AddItemToArray(series, series_json(br, s));
    cJSON_AddItemToObject(j, "oracle", oracle_json(br));
    cJSON_AddItemToObject(j, "figures", figures_json(br));
    targets_json(j, "targets_met", br->f.met);
    if (br->referenced)
        targets_json(j, "targets_met_phase_adjusted", br->f.met_adjusted);
    return j;
}

static cJSON *setup_json(const session *s)
{
    const options *o = s->o;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", PROG);
    cJSON_AddNumberToObject(root, "version", 2);
    cJSON_AddNumberToObject(root, "workers", s->workers);
    cJSON_AddNumberToObject(root, "launches", o->launches);
    cJSON_AddNumberToObject(root, "series", o->series);
    cJSON_AddNumberToObject(root, "reps", o->flags.reps);
    cJSON_AddNumberToObject(root, "oracle_max", o->oracle_max);
    cJSON_AddBoolToObject(root, "reference", !o->no_reference);
    cJSON *m = cJSON_AddObjectToObject(root, "machine");
    cJSON_AddStringToObject(m, "signature", s->machine);
    cJSON_AddStringToObject(m, "description", s->machine_desc);
    cJSON *p = cJSON_AddObjectToObject(root, "probes");
    cJSON_AddStringToObject(p, "state", gt_probe_state_name(s->probe_status.state));
    cJSON_AddStringToObject(p, "reason", s->probe_status.reason);
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
    cJSON_AddNumberToObject(targets, "cold_over_oracle_best", TARGET_COLD);
    cJSON_AddNumberToObject(targets, "launch", TARGET_LAUNCH);
    cJSON_AddNumberToObject(targets, "launch_over_oracle_best", TARGET_LAUNCH_AT);
    cJSON_AddNumberToObject(targets, "total_over_oracle_best", TARGET_TOTAL);
    cJSON_AddNumberToObject(targets, "analysis_fraction", TARGET_ANALYSIS);
    cJSON_AddNumberToObject(targets, "same_pick_of", TARGET_SAME_OF);
    cJSON_AddNumberToObject(targets, "same_pick_in", TARGET_SAME_IN);
    cJSON_AddNumberToObject(targets, "same_pick_within", SAME_PICK_WITHIN);
    cJSON_AddStringToObject(targets, "settled", "the entry settled after launch 'launch' in most series");
    return root;
}

static int write_json(const session *s, const bench_result *r, unsigned n)
{
    cJSON *root = setup_json(s);
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(&r[i]));
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
        print_bench(&results[i]);
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
    for (unsigned i = 0; i < o.nbenches; i++)
        bench_result_free(&results[i]);
    session_close(&s);
    return rc == -2 ? 2 : rc ? 1 : 0;
}
