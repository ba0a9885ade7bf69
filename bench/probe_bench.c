/* probe_bench.c: gridtune-probe-bench, what the eBPF probes do for the tuner's picks when
 * another process takes a core.
 *
 * Two gridtuneds of this run's own, alike but for the probes: one with them (as gridtuned
 * starts by default), one with --no-probes. Per benchmark, each round launches the case cold
 * (retune: analysis decides) once in each of six conditions: quiet, busy (a process pinned to
 * worker 0's CPU, spinning for exactly the length of the launch) or bursts (the same process
 * spinning 2 ms in every 20 ms, like another tenant's short jobs), probes on or off. The order
 * of the conditions rotates from round to round, so drift hits them alike. Before the rounds,
 * one untimed launch per daemon with tuning off touches every page of its shared buffers, so
 * that the first cold launch does not pay for them.
 *
 * The oracle (oracle.c, shared with gridtune-tune-bench) then times every schedule that any of
 * the cold launches tried or picked, forced for the whole launch, quiet and on the probes-on
 * daemon, in an order that rotates from round to round; a schedule's oracle time is its median,
 * and for the three lowest and the picks the median of as many rounds again (oracle.h says
 * why). A pick is good when its oracle time is within WITHIN_SHARE of the best one's. Every
 * launch's output is checked against the reference (kernels/seeds_client.c); nothing is
 * compared with a fixed target. */
#include "bench/bench_common.h"
#include "bench/oracle.h"
#include "bench/private_daemon.h"
#include "kernels/seeds_client.h"
#include "tuner/report_read.h"
#include "tuner/stats.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_PROG "gridtune-probe-bench"
#define DEFAULT_LAUNCHES 10
#define DEFAULT_ORACLE_REPS 3
#define WITHIN_SHARE 0.05 /* a pick whose oracle time is at most 5% above the best's is good */
#define TEXT_MAX 256
static const char *const default_benches[] = {"transpose", "copy_cols", NULL};

/* The two daemons: probes on (gridtuned's default) and off. */
enum daemon_kind { D_ON, D_OFF, NDAEMONS };
static const char *const daemon_flags[NDAEMONS][2] = {{NULL}, {"--no-probes", NULL}};

/* What competes with worker 0 during a launch: nothing, a process spinning all the time, or
 * one spinning in bursts of BURST_ON_NS every BURST_PERIOD_NS (another tenant's short jobs). */
enum load { QUIET, BUSY, BURSTS };
#define BURST_ON_NS 2000000ull
#define BURST_PERIOD_NS 20000000ull

enum condition { QUIET_ON, QUIET_OFF, BUSY_ON, BUSY_OFF, BURSTS_ON, BURSTS_OFF, NCOND };
static const struct {
    const char *label, *key;
    enum load load;
    enum daemon_kind daemon;
} conditions[NCOND] = {
    {"quiet, probes on", "quiet_probes_on", QUIET, D_ON},
    {"quiet, probes off", "quiet_probes_off", QUIET, D_OFF},
    {"busy, probes on", "busy_probes_on", BUSY, D_ON},
    {"busy, probes off", "busy_probes_off", BUSY, D_OFF},
    {"bursts, probes on", "bursts_probes_on", BURSTS, D_ON},
    {"bursts, probes off", "bursts_probes_off", BURSTS, D_OFF},
};

typedef struct probe_options {
    gt_bench_flags flags; /* flags.reps: the rounds, one cold launch per condition in each */
    unsigned oracle_reps;
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} probe_options;

/* One cold launch. */
typedef struct pick {
    enum condition cond;
    unsigned round;
    char winner[TEXT_MAX], source[16];
    unsigned disturbed, remeasured;
    uint64_t wall_ns;
    double regret; /* the winner's oracle time over the best's, minus one */
} pick;

typedef struct condition_summary {
    unsigned launches, within;
    double regret, disturbed, remeasured; /* medians over the condition's launches */
    uint64_t wall_ns;
} condition_summary;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    pick picks[NCOND * GT_BENCH_MAX_REPS]; /* in the order they ran */
    unsigned npicks;
    gt_bench_oracle oracle; /* what the cold launches tried or picked */
    condition_summary sum[NCOND];
} bench_result;

/* The context the benchmarks run in. */
typedef struct probe_run {
    const probe_options *o;
    gt_client *c[NDAEMONS];
    unsigned workers;
    int busy_cpu;
    char probes_state[16], probes_summary[TEXT_MAX]; /* of the probes-on daemon */
} probe_run;

const char *const say_prog = PROBE_PROG;

/* ---- command line ------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PROBE_PROG " [OPTIONS] [BENCHMARK]...\n"
            "How often the tuner picks a schedule within %.0f%% of the oracle's best, with and without\n"
            "a competing busy process on one core, and with gridtuned's eBPF probes on and off. Two\n"
            "gridtuneds of this run's own (one with --no-probes) launch each benchmark cold once per\n"
            "condition and round, the conditions in a rotating order: quiet, busy (a process spins on\n"
            "worker 0's CPU for exactly the length of the launch) or bursts (it spins 2 ms in every\n"
            "20 ms). The oracle then times every schedule the cold launches tried or picked, forced\n"
            "for the whole launch, quiet and with probes on.\n"
            "BENCHMARK: any of the ten (default: transpose copy_cols; --list names them).\n\n",
            100 * WITHIN_SHARE);
    gt_bench_flags_help(out, "rounds, each one cold launch per condition", DEFAULT_LAUNCHES);
    fprintf(out,
            "      --launches N      the same as --reps\n"
            "      --oracle-reps N   forced launches per schedule for the oracle's medians (default %d)\n"
            "  -l, --list            list the benchmarks and exit\n"
            "  -h, --help            this text\n"
            "environment: GRIDTUNE_DAEMON, the gridtuned to start (default: the build tree's, else the\n"
            "installed one). The probes need root (or CAP_BPF and CAP_PERFMON); without them the\n"
            "probes-on rows say why and measure what the probes-off rows measure.\n",
            DEFAULT_ORACLE_REPS);
}

enum { OPT_LAUNCHES = 256, OPT_ORACLE_REPS };

static int flag(int c, const char *arg, void *ctx)
{
    probe_options *o = ctx;
    switch (c) {
    case OPT_LAUNCHES:
        return gt_bench_number_parse("--launches", arg, 1, GT_BENCH_MAX_REPS, &o->flags.reps);
    case OPT_ORACLE_REPS:
        return gt_bench_number_parse("--oracle-reps", arg, 1, GT_BENCH_MAX_REPS, &o->oracle_reps);
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, probe_options *o)
{
    static const struct option own[] = {{"launches", required_argument, 0, OPT_LAUNCHES},
                                        {"oracle-reps", required_argument, 0, OPT_ORACLE_REPS},
                                        {0}};
    *o = (probe_options){.flags = {.reps = DEFAULT_LAUNCHES}, .oracle_reps = DEFAULT_ORACLE_REPS};
    const gt_bench_cli cli = {.options = own, .flag = flag, .usage = usage, .list = gt_bench_list};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc)
        return rc > 0 ? 0 : 2;
    return gt_bench_operands(argc, argv, o->flags.size, default_benches, o->benches, &o->nbenches) ? 2 : -1;
}

/* ---- the busy process ------------------------------------------------------------------------ */

/* The busy process while it runs, else 0. A signal handler reads it, hence the type. */
static volatile sig_atomic_t spinner_pid;
static volatile sig_atomic_t interrupted;

/* SIGINT, SIGTERM: the busy process goes at once; the run stops after the launch under way and
 * stops its daemons. A second signal has the default effect (SA_RESETHAND). */
static void on_signal(int sig)
{
    if (spinner_pid > 0)
        kill((pid_t)spinner_pid, SIGKILL);
    interrupted = sig;
}

static void catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Spins for BURST_ON_NS, then sleeps to the end of the period, forever. */
static _Noreturn void spin_in_bursts(void)
{
    for (;;) {
        uint64_t start = gt_clock_ns();
        while (gt_clock_ns() - start < BURST_ON_NS)
            ;
        struct timespec rest = {0, (long)(BURST_PERIOD_NS - BURST_ON_NS)};
        nanosleep(&rest, NULL);
    }
}

/* The child: pinned to cpu, it reports 0 or the errno of pinning on fd, then spins (all the
 * time, or in bursts). It dies with the bench (PR_SET_PDEATHSIG), so a bench that crashes
 * leaves no spinner behind. */
static _Noreturn void spin(int cpu, enum load load, int fd, pid_t parent)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int err = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        err = ESRCH;
    else if (sched_setaffinity(0, sizeof set, &set) != 0)
        err = errno;
    if (write(fd, &err, sizeof err) != (ssize_t)sizeof err || err)
        _exit(1);
    if (load == BURSTS)
        spin_in_bursts();
    for (volatile unsigned long i = 0;; i++)
        ;
}

static void spinner_stop(void)
{
    pid_t pid = (pid_t)spinner_pid;
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    spinner_pid = 0; /* the pid stays taken until reaped, so the handler cannot hit another */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Starts the busy process and returns once it spins on cpu; -1 after saying why not. */
static int spinner_start(int cpu, enum load load)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        say("busy process: pipe: %s", strerror(errno));
        return -1;
    }
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop, &old); /* so that the handler always knows the child */
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(fds[0]);
        spin(cpu, load, fds[1], parent);
    }
    int fork_errno = errno;
    if (pid > 0)
        spinner_pid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fds[1]);
    int err = fork_errno;
    if (pid > 0) {
        ssize_t got;
        while ((got = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR)
            ;
        if (got != (ssize_t)sizeof err) /* it died before it said: killed by on_signal, or crashed */
            err = interrupted ? EINTR : ECHILD;
    }
    close(fds[0]);
    if (err) {
        spinner_stop();
        say("cannot start a busy process on CPU %d: %s", cpu, strerror(err));
        return -1;
    }
    return 0;
}

/* ---- the daemons ------------------------------------------------------------------------------ */

static const cJSON *object_at(const cJSON *o, const char *a, const char *b)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

/* The probes-on daemon's probes.state and probes.summary, and worker 0's thread (0 when the
 * status lists no workers, as without probes). */
static void read_probes(probe_run *pr, pid_t *worker0)
{
    char *text = NULL;
    cJSON *st = NULL;
    if (gt_status(pr->c[D_ON], &text) == 0)
        st = cJSON_Parse(text);
    free(text);
    const char *state = cJSON_GetStringValue(object_at(st, "probes", "state"));
    const char *summary = cJSON_GetStringValue(object_at(st, "probes", "summary"));
    snprintf(pr->probes_state, sizeof pr->probes_state, "%s", state ? state : "unknown");
    snprintf(pr->probes_summary, sizeof pr->probes_summary, "%s",
             summary ? summary : st ? "the status has no probes.summary" : "no status from gridtuned");
    const cJSON *w0 = cJSON_GetArrayItem(object_at(st, "probes", "workers"), 0);
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(w0, "tid");
    *worker0 = cJSON_IsNumber(tid) && tid->valuedouble > 0 ? (pid_t)tid->valuedouble : 0;
    cJSON_Delete(st);
}

static int first_cpu(pid_t tid)
{
    cpu_set_t set;
    if (sched_getaffinity(tid, sizeof set, &set) != 0)
        return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    return -1;
}

/* Worker 0's CPU: its thread's own when the status names it, else the first CPU this process may
 * use, where the daemons (which inherit the mask) pin their worker 0. */
static int find_busy_cpu(probe_run *pr, pid_t worker0)
{
    pr->busy_cpu = worker0 ? first_cpu(worker0) : -1;
    if (pr->busy_cpu >= 0) {
        say("busy process on CPU %d: worker 0's (thread %d)", pr->busy_cpu, (int)worker0);
        return 0;
    }
    if ((pr->busy_cpu = first_cpu(0)) < 0) {
        say("cannot read this process's CPU affinity: %s", strerror(errno));
        return -1;
    }
    say("busy process on CPU %d: the first this process may use, where the daemons pin worker 0", pr->busy_cpu);
    return 0;
}

static int start_daemons(probe_run *pr, gt_private_daemon d[NDAEMONS])
{
    for (int k = 0; k < NDAEMONS; k++)
        if (gt_private_daemon_start(gt_private_daemon_program(), pr->o->flags.workers, false,
                                    daemon_flags[k], &d[k], &pr->c[k]) != 0)
            return -1;
    pr->workers = (unsigned)gt_private_daemon_status_number(pr->c[D_ON], "workers");
    pid_t worker0;
    read_probes(pr, &worker0);
    say("gridtuned pids %d (probes on) and %d (--no-probes), %u workers each", (int)d[D_ON].pid,
        (int)d[D_OFF].pid, pr->workers);
    if (strcmp(pr->probes_state, "on") != 0)
        say("the probes-on gridtuned has probes %s; its rows measure what the probes-off rows do",
            pr->probes_summary);
    return find_busy_cpu(pr, worker0);
}

/* ---- cold launches ---------------------------------------------------------------------------- */

/* The decision and phases of a cold launch's report, and its schedules for the oracle. */
static int note_report(bench_result *r, pick *p, const char *what, const char *report)
{
    cJSON *rep = cJSON_Parse(report);
    gt_report_summary s;
    gt_report_read(rep, &s);
    int rc = 0;
    if (!s.decided) {
        say("%s: the report has no decision.winner and decision.source", what);
        rc = -1;
    }
    if (rc == 0) {
        snprintf(p->winner, sizeof p->winner, "%s", s.winner);
        snprintf(p->source, sizeof p->source, "%s", s.source);
        p->disturbed = (unsigned)s.disturbed_samples;
        p->remeasured = (unsigned)s.remeasured;
        rc = gt_bench_oracle_add_text(&r->oracle, s.winner, true, NAN, what);
    }
    for (size_t i = 0, n = gt_report_ncandidates(rep); rc == 0 && i < n; i++) {
        const char *schedule = gt_report_candidate(rep, i);
        if (schedule)
            rc = gt_bench_oracle_add_text(&r->oracle, schedule, false, NAN, what);
    }
    cJSON_Delete(rep);
    return rc;
}

static int cold_launch(const probe_run *pr, cli_seed seeds[NDAEMONS], bench_result *r, enum condition k,
                       unsigned round)
{
    char what[128], *report = NULL;
    snprintf(what, sizeof what, "%s, round %u, %s", r->bench->name, round, conditions[k].label);
    if (interrupted) {
        say("%s: stopped by signal %d", what, (int)interrupted);
        return -1;
    }
    pick *p = &r->picks[r->npicks];
    *p = (pick){.cond = k, .round = round};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_RETUNE;
    if (conditions[k].load != QUIET && spinner_start(pr->busy_cpu, conditions[k].load) != 0)
        return -1;
    int rc = cli_seed_run(&seeds[conditions[k].daemon], what, &opts, &report, &p->wall_ns);
    spinner_stop();
    if (rc == 0 && (rc = note_report(r, p, what, report)) == 0)
        r->npicks++;
    free(report);
    return rc;
}

/* One checked launch per daemon with tuning off, untimed: the pages are touched. */
static int warm_up(cli_seed seeds[NDAEMONS], const bench_result *r)
{
    for (int k = 0; k < NDAEMONS; k++) {
        char what[128], *report = NULL;
        snprintf(what, sizeof what, "%s, warm-up%s", r->bench->name, k == D_OFF ? " (--no-probes)" : "");
        gt_launch_options opts = gt_launch_options_default();
        opts.tuning = GT_TUNING_OFF;
        int rc = cli_seed_run(&seeds[k], what, &opts, &report, NULL);
        free(report);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Every round runs each condition once, starting one further along each time. */
static int run_rounds(const probe_run *pr, cli_seed seeds[NDAEMONS], bench_result *r)
{
    unsigned rounds = pr->o->flags.reps;
    if (warm_up(seeds, r) != 0)
        return -1;
    for (unsigned round = 1; round <= rounds; round++) {
        say("%s: round %u of %u", r->bench->name, round, rounds);
        for (unsigned i = 0; i < NCOND; i++)
            if (cold_launch(pr, seeds, r, (enum condition)((round - 1 + i) % NCOND), round) != 0)
                return -1;
    }
    return 0;
}

/* ---- the oracle --------------------------------------------------------------------------------- */

/* One oracle schedule forced on the probes-on daemon, quiet: the run gt_bench_oracle_time asks for. */
static int oracle_run(void *ctx, const gt_bench_oracle *o, size_t i, uint64_t *ns)
{
    cli_seed *s = ctx;
    const char *schedule = gt_bench_oracle_text(o, i);
    char what[TEXT_MAX + 64], *report = NULL;
    snprintf(what, sizeof what, "%s, oracle, %s", s->sc->bench->name, schedule);
    if (interrupted) {
        say("%s: stopped by signal %d", what, (int)interrupted);
        return -1;
    }
    gt_launch_options opts = gt_launch_options_default();
    opts.schedule = schedule;
    opts.tuning = GT_TUNING_OFF;
    int rc = cli_seed_run(s, what, &opts, &report, ns);
    free(report);
    return rc;
}

static int run_oracle(const probe_run *pr, cli_seed *s, bench_result *r)
{
    char name[128];
    snprintf(name, sizeof name, "%s (quiet, probes on)", r->bench->name);
    return gt_bench_oracle_time(&r->oracle, pr->o->oracle_reps, name, oracle_run, s);
}

/* ---- summaries ---------------------------------------------------------------------------------- */

/* The median of v[0..n) (tuner/stats.h), 0 for a condition that ran no launch. */
static double median_of(const double *v, unsigned n)
{
    return n ? gt_stats_median(v, n) : 0;
}

/* The oracle's median of schedule; every winner is in the oracle. */
static double oracle_median(const bench_result *r, const char *schedule)
{
    return (double)gt_bench_oracle_median_ns(&r->oracle, (size_t)gt_bench_oracle_find_text(&r->oracle, schedule));
}

static void summarise(bench_result *r)
{
    double best = (double)gt_bench_oracle_median_ns(&r->oracle, r->oracle.best);
    for (unsigned i = 0; i < r->npicks; i++)
        r->picks[i].regret = oracle_median(r, r->picks[i].winner) / best - 1;
    for (int k = 0; k < NCOND; k++) {
        double regret[GT_BENCH_MAX_REPS], disturbed[GT_BENCH_MAX_REPS], remeasured[GT_BENCH_MAX_REPS],
            wall[GT_BENCH_MAX_REPS];
        condition_summary *s = &r->sum[k];
        *s = (condition_summary){0};
        for (unsigned i = 0; i < r->npicks; i++) {
            const pick *p = &r->picks[i];
            if (p->cond != (enum condition)k)
                continue;
            s->within += p->regret <= WITHIN_SHARE;
            regret[s->launches] = p->regret;
            disturbed[s->launches] = p->disturbed;
            remeasured[s->launches] = p->remeasured;
            wall[s->launches++] = (double)p->wall_ns;
        }
        s->regret = median_of(regret, s->launches);
        s->disturbed = median_of(disturbed, s->launches);
        s->remeasured = median_of(remeasured, s->launches);
        s->wall_ns = (uint64_t)median_of(wall, s->launches);
    }
}

/* ---- one benchmark ------------------------------------------------------------------------------ */

static int run_bench(const probe_run *pr, const gt_seed_bench *b, bench_result *r)
{
    cli_seed seeds[NDAEMONS] = {0};
    r->bench = b;
    int rc = 0;
    for (int k = 0; rc == 0 && k < NDAEMONS; k++)
        rc = cli_seed_open(pr->c[k], pr->o->flags.module, b, pr->o->flags.size, &seeds[k]);
    if (rc == 0) {
        r->n = seeds[D_ON].sc->n;
        say("%s  n=%zu: a warm-up launch per daemon, then %u round(s) of %d cold launches", b->name, r->n,
            pr->o->flags.reps, NCOND);
        rc = run_rounds(pr, seeds, r);
    }
    if (rc == 0)
        rc = run_oracle(pr, &seeds[D_ON], r);
    if (rc == 0)
        summarise(r);
    for (int k = 0; k < NDAEMONS; k++)
        cli_seed_close(&seeds[k]);
    return rc;
}

/* ---- output --------------------------------------------------------------------------------- */

static void print_table(const probe_run *pr, const bench_result *r)
{
    printf("\n%s  n=%zu: %u cold launch(es) per condition; oracle: %zu schedules, median of %u forced launch(es) "
           "each\n",
           r->bench->name, r->n, pr->o->flags.reps, gt_bench_oracle_count(&r->oracle), pr->o->oracle_reps);
    char within_head[32];
    snprintf(within_head, sizeof within_head, "within %.0f%%", 100 * WITHIN_SHARE);
    printf("%-18s %10s %14s %10s %11s %10s\n", "condition", within_head, "median regret", "disturbed", "remeasured",
           "cold ms");
    for (int k = 0; k < NCOND; k++) {
        const condition_summary *s = &r->sum[k];
        char within[32];
        snprintf(within, sizeof within, "%u/%u", s->within, s->launches);
        printf("%-18s %10s %13.1f%% %10.1f %11.1f %10.1f\n", conditions[k].label, within, 100 * s->regret,
               s->disturbed, s->remeasured, gt_bench_ms(s->wall_ns));
    }
    const gt_bench_oracle *o = &r->oracle;
    printf("best: %s  %.1f ms\n", gt_bench_oracle_text(o, o->best), gt_bench_ms(gt_bench_oracle_median_ns(o, o->best)));
}

static void print_results(const probe_run *pr, const bench_result *r, unsigned n)
{
    printf("probes (the probes-on gridtuned): %s\n", pr->probes_summary);
    if (strcmp(pr->probes_state, "on") != 0)
        printf("the probes were not on, so the probes-on rows measure what the probes-off rows do\n");
    printf("%u workers; busy: a process spinning on CPU %d (worker 0's) for the length of each launch;\n"
           "bursts: the same process spinning %.0f ms in every %.0f ms\n",
           pr->workers, pr->busy_cpu, BURST_ON_NS / 1e6, BURST_PERIOD_NS / 1e6);
    printf("within %.0f%%: picks whose oracle median is at most %.2f times the best's; regret: the pick's\n"
           "oracle median over the best's, minus one; disturbed, remeasured: samples per launch (medians)\n",
           100 * WITHIN_SHARE, 1 + WITHIN_SHARE);
    for (unsigned i = 0; i < n; i++)
        print_table(pr, &r[i]);
    printf("\ncompare within this run only; on a machine with few cores (here %ld online) the figures are noisy\n",
           sysconf(_SC_NPROCESSORS_ONLN));
}

static cJSON *launch_json(const pick *p)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "condition", conditions[p->cond].key);
    cJSON_AddNumberToObject(l, "round", p->round);
    cJSON_AddStringToObject(l, "winner", p->winner);
    cJSON_AddStringToObject(l, "source", p->source);
    cJSON_AddNumberToObject(l, "disturbed_samples", p->disturbed);
    cJSON_AddNumberToObject(l, "remeasured", p->remeasured);
    cJSON_AddNumberToObject(l, "wall_ns", (double)p->wall_ns);
    cJSON_AddNumberToObject(l, "regret", p->regret);
    cJSON_AddBoolToObject(l, "within", p->regret <= WITHIN_SHARE);
    return l;
}

static cJSON *bench_json(const bench_result *r)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "benchmark", r->bench->name);
    cJSON_AddNumberToObject(b, "n", (double)r->n);
    cJSON *launches = cJSON_AddArrayToObject(b, "launches");
    for (unsigned i = 0; i < r->npicks; i++)
        cJSON_AddItemToArray(launches, launch_json(&r->picks[i]));
    cJSON *oracle = cJSON_AddObjectToObject(b, "oracle");
    const gt_bench_oracle *o = &r->oracle;
    cJSON_AddStringToObject(oracle, "best", gt_bench_oracle_text(o, o->best));
    cJSON_AddNumberToObject(oracle, "best_median_ns", (double)gt_bench_oracle_median_ns(o, o->best));
    cJSON_AddNumberToObject(oracle, "best_chosen_median_ns", (double)o->entries[o->best].times.median_ns);
    cJSON *schedules = cJSON_AddObjectToObject(oracle, "schedules");
    for (size_t i = 0; i < gt_bench_oracle_count(o); i++) {
        cJSON *e = cJSON_AddObjectToObject(schedules, gt_bench_oracle_text(o, i));
        gt_bench_times_json(e, &o->entries[i].times);
        if (o->entries[i].retimed.n)
            gt_bench_times_json(cJSON_AddObjectToObject(e, "retimed"), &o->entries[i].retimed);
    }
    cJSON *summary = cJSON_AddObjectToObject(b, "summary");
    for (int k = 0; k < NCOND; k++) {
        const condition_summary *s = &r->sum[k];
        cJSON *c = cJSON_AddObjectToObject(summary, conditions[k].key);
        cJSON_AddNumberToObject(c, "launches", s->launches);
        cJSON_AddNumberToObject(c, "within", s->within);
        cJSON_AddNumberToObject(c, "median_regret", s->regret);
        cJSON_AddNumberToObject(c, "median_disturbed_samples", s->disturbed);
        cJSON_AddNumberToObject(c, "median_remeasured", s->remeasured);
        cJSON_AddNumberToObject(c, "median_wall_ns", (double)s->wall_ns);
    }
    return b;
}

static int write_json(const probe_run *pr, const bench_result *r, unsigned n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", PROBE_PROG);
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddNumberToObject(root, "rounds", pr->o->flags.reps);
    cJSON_AddNumberToObject(root, "oracle_reps", pr->o->oracle_reps);
    cJSON_AddNumberToObject(root, "workers", pr->workers);
    cJSON_AddNumberToObject(root, "busy_cpu", pr->busy_cpu);
    cJSON_AddNumberToObject(root, "within_share", WITHIN_SHARE);
    cJSON *probes = cJSON_AddObjectToObject(root, "probes");
    cJSON_AddStringToObject(probes, "state", pr->probes_state);
    cJSON_AddStringToObject(probes, "summary", pr->probes_summary);
    cJSON_AddStringToObject(root, "note", "one run on this machine; compare within this run only");
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(&r[i]));
    return gt_bench_json_write(root, pr->o->flags.json);
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    probe_options o;
    int status = parse(argc, argv, &o);
    if (status >= 0)
        return status;
    catch_signals();
    bench_result *results = calloc(o.nbenches, sizeof *results);
    gt_private_daemon d[NDAEMONS] = {0};
    probe_run pr = {.o = &o};
    int rc = results ? start_daemons(&pr, d) : -1;
    if (!results)
        say("no memory for the results of %u benchmarks", o.nbenches);
    unsigned done = 0;
    for (; rc == 0 && done < o.nbenches; done++)
        rc = run_bench(&pr, o.benches[done], &results[done]);
    if (rc == 0) {
        print_results(&pr, results, done);
        if (o.flags.json)
            rc = write_json(&pr, results, done);
    }
    spinner_stop();
    for (int k = 0; k < NDAEMONS; k++) {
        gt_disconnect(pr.c[k]);
        if (gt_private_daemon_stop(&d[k]) != 0)
            rc = -1;
        gt_private_daemon_remove(&d[k]);
    }
    for (unsigned i = 0; results && i < o.nbenches; i++)
        gt_bench_oracle_free(&results[i].oracle);
    free(results);
    return rc ? 1 : 0;
}
