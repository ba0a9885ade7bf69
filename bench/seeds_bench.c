/* seeds_bench.c: gridtune-bench, the seed benchmarks under a set of schedules.
 * Every benchmark runs each schedule on the whole launch, in rounds (one run of every schedule
 * per round) so that drift on a noisy machine hits all schedules alike. Round 0 is a warm-up
 * whose output is checked against the reference; later rounds are timed. It prints, per
 * benchmark, the median and minimum time of each schedule and the worst/best ratio, and can
 * write the same as JSON. With --versus, a second build of the seeds module runs every schedule
 * too, in the same rounds, so that two builds (for this CPU, and portable) compare side by side;
 * rows then start with A (the first module) or B (the second). */
#include "bench_common.h"
#include "engine/module.h"
#include "engine/pool.h"
#include "kernels/say.h"
#include "kernels/seedbench.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PROG "gridtune-bench"

const char *const say_prog = PROG;

#define MAX_SCHEDULES 32
#define MAX_MODULES 2
#define DEFAULT_REPS 3
static const char module_tags[MAX_MODULES] = {'A', 'B'};

/* A spread of styles: the plain default, item orders that change locality inside a
 * workgroup, group orders that change locality between workgroups, and the assignments. */
static const char *const default_schedules[] = {
    "group=linear,item=linear,assign=stealing",
    "group=linear,item=column,assign=stealing",
    "group=linear,item=tiled:4x4,assign=stealing",
    "group=column,item=linear,assign=stealing",
    "group=tiled:4x4,item=linear,assign=block",
    "group=hilbert,item=hilbert,assign=stealing",
    "group=zigzag,item=zigzag,assign=cyclic:4",
    "group=strided:16/1,item=strided:16/1,assign=dynamic:1",
};

typedef struct options {
    gt_bench_flags flags;
    bool verify;
    bool progress; /* stderr is a terminal: show a progress line */
    unsigned nschedules;
    const char *schedules[MAX_SCHEDULES];
    gt_schedule parsed[MAX_SCHEDULES];
    const char *modules[MAX_MODULES]; /* flags.module, and --versus when given */
    unsigned nmodules;
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
} options;

/* One schedule of one module (with two modules, the text starts with the module's tag). */
typedef struct schedule_result {
    gt_schedule schedule;
    unsigned module;
    char text[GT_SCHEDULE_TEXT_MAX + 2];
    gt_bench_times times;
} schedule_result;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    uint64_t work_items;
    schedule_result sched[MAX_SCHEDULES * MAX_MODULES];
    unsigned nrows;
    size_t best, worst;
} bench_result;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gridtune-bench [OPTIONS] [BENCHMARK...]\n"
            "Runs the seed benchmarks under a set of schedules and prints, per benchmark, the\n"
            "median time of each schedule and the worst/best ratio. Schedules run in rounds, so\n"
            "drift hits all alike; each schedule's output is checked against the reference.\n"
            "\n");
    gt_bench_flags_help(out, "timed runs per schedule, after one checked warm-up", DEFAULT_REPS);
    fprintf(out, "  -s, --schedule TEXT   a schedule to run, e.g. group=tiled:4x4,item=linear,assign=dynamic:8;\n"
                 "                        repeatable; replaces the default set\n"
                 "      --versus PATH     a second build of the seeds module (e.g. a portable one beside one\n"
                 "                        for this CPU): every schedule runs with both in the same rounds\n"
                 "      --no-verify       skip the output check\n"
                 "  -l, --list            list the benchmarks and the default schedules, and exit\n"
                 "  -h, --help            this text\n");
}

static void list(FILE *out)
{
    gt_bench_list(out);
    fprintf(out, "default schedules:\n");
    for (size_t i = 0; i < sizeof default_schedules / sizeof *default_schedules; i++)
        fprintf(out, "  %s\n", default_schedules[i]);
}

static int parse_flag(int c, const char *arg, void *ctx)
{
    options *o = ctx;
    if (c == 'V') {
        o->verify = false;
        return 0;
    }
    if (c == 'M') {
        o->modules[1] = arg;
        return 0;
    }
    /* -s, --schedule */
    if (o->nschedules == MAX_SCHEDULES) {
        say("at most %d schedules", MAX_SCHEDULES);
        return -1;
    }
    o->schedules[o->nschedules++] = arg;
    return 0;
}

/* Returns 0, 1 when --help or --list was printed, -1 on bad usage. */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option own[] = {
        {"schedule", required_argument, 0, 's'},
        {"no-verify", no_argument, 0, 'V'},
        {"versus", required_argument, 0, 'M'},
        {0, 0, 0, 0},
    };
    static const gt_bench_cli cli = {
        .letters = "s:", .options = own, .flag = parse_flag, .usage = usage, .list = list};
    *o = (options){.flags.reps = DEFAULT_REPS, .verify = true};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc)
        return rc;
    if (o->nschedules == 0)
        for (size_t i = 0; i < sizeof default_schedules / sizeof *default_schedules; i++)
            o->schedules[o->nschedules++] = default_schedules[i];
    for (unsigned i = 0; i < o->nschedules; i++) {
        char err[256];
        if (gt_schedule_parse(o->schedules[i], &o->parsed[i], err, sizeof err) != 0) {
            say("--schedule \"%s\": %s", o->schedules[i], err);
            return -1;
        }
    }
    o->modules[0] = o->flags.module;
    o->nmodules = o->modules[1] ? 2 : 1;
    o->progress = isatty(STDERR_FILENO);
    return gt_bench_operands(argc, argv, o->flags.size, NULL, o->benches, &o->nbenches);
}

/* One run of one schedule over the whole launch; round 0 also checks the output. The time is
 * the whole call, as a caller sees it: planning the schedule's orders is part of its cost. */
static int run_once(gt_pool *pool, gt_batch *batch, gt_seed_case *c, const char *text, bool check, uint64_t *ns)
{
    char err[512];
    if (check)
        gt_seed_case_poison_output(c);
    uint64_t start = gt_clock_ns();
    if (gt_pool_run(pool, batch, NULL, err, sizeof err) != 0) {
        say("%s: %s", c->bench->name, err);
        return -1;
    }
    *ns = gt_clock_ns() - start;
    if (check && gt_seed_case_verify(c, err, sizeof err) != 0) {
        say("%s under %s: wrong output: %s", c->bench->name, text, err);
        return -1;
    }
    return 0;
}

static int run_bench(const options *o, gt_pool *pool, gt_module *const *m, const gt_seed_bench *b, bench_result *r)
{
    gt_bench_case bc[MAX_MODULES] = {0};
    int rc = 0;
    for (unsigned k = 0; k < o->nmodules && rc == 0; k++)
        rc = gt_bench_case_prepare(m[k], o->modules[k], b, o->flags.size, &bc[k]);
    if (rc) {
        for (unsigned k = 0; k < o->nmodules; k++)
            if (bc[k].seed)
                gt_bench_case_destroy(&bc[k]);
        return -1;
    }
    *r = (bench_result){.bench = b, .n = bc[0].seed->n, .work_items = bc[0].seed->work_items};
    for (unsigned s = 0; s < o->nschedules; s++)
        for (unsigned k = 0; k < o->nmodules; k++) {
            schedule_result *sr = &r->sched[r->nrows++];
            char text[GT_SCHEDULE_TEXT_MAX];
            gt_schedule_format(&o->parsed[s], text, sizeof text);
            *sr = (schedule_result){.schedule = o->parsed[s], .module = k};
            if (o->nmodules > 1)
                snprintf(sr->text, sizeof sr->text, "%c %s", module_tags[k], text);
            else
                snprintf(sr->text, sizeof sr->text, "%s", text);
        }
    for (unsigned round = 0; round <= o->flags.reps && rc == 0; round++) {
        if (o->progress)
            fprintf(stderr, "\r  %-14s n=%zu  round %u/%u", b->name, r->n, round, o->flags.reps);
        for (unsigned i = 0; i < r->nrows && rc == 0; i++) {
            schedule_result *sr = &r->sched[i];
            const gt_bench_case *c = &bc[sr->module];
            gt_batch batch = {.run = c->kernel->run, .args = c->slots, .range = c->seed->range,
                              .schedule = sr->schedule};
            uint64_t ns = 0;
            rc = run_once(pool, &batch, c->seed, sr->text, round == 0 && o->verify, &ns);
            if (round > 0)
                sr->times.ns[sr->times.n++] = ns;
        }
    }
    if (o->progress)
        fprintf(stderr, "\r%*s\r", 60, "");
    for (unsigned k = 0; k < o->nmodules; k++)
        gt_bench_case_destroy(&bc[k]);
    if (rc)
        return rc;
    gt_bench_times_rank(&r->sched[0].times, sizeof r->sched[0], r->nrows, &r->best, &r->worst);
    return 0;
}

static void print_bench(const bench_result *r)
{
    const schedule_result *best = &r->sched[r->best];
    printf("\n%s  n=%zu  (%s)\n", r->bench->name, r->n, r->bench->summary);
    printf("  %-56s %10s %10s %9s\n", "schedule", "median ms", "min ms", "vs best");
    for (unsigned s = 0; s < r->nrows; s++) {
        const schedule_result *sr = &r->sched[s];
        printf("  %-56s %10.2f %10.2f %8.2fx%s\n", sr->text, gt_bench_ms(sr->times.median_ns),
               gt_bench_ms(sr->times.min_ns), (double)sr->times.median_ns / (double)best->times.median_ns,
               s == r->best ? "  best" : "");
    }
    printf("  worst/best: %.2fx\n", (double)r->sched[r->worst].times.median_ns / (double)best->times.median_ns);
}

/* The default schedule's median, or 0 when the schedule set left it out. */
static uint64_t default_median(const bench_result *r)
{
    for (unsigned s = 0; s < r->nrows; s++)
        if (r->sched[s].module == 0 && gt_schedule_equal(&r->sched[s].schedule, &gt_schedule_default))
            return r->sched[s].times.median_ns;
    return 0;
}

static void print_summary(const options *o, const bench_result *r, unsigned n)
{
    char def_schedule[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&gt_schedule_default, def_schedule, sizeof def_schedule);
    printf("\nsummary (%u workers, median of %u runs per schedule; default is %s)\n", o->flags.workers, o->flags.reps,
           def_schedule);
    printf("  %-14s %11s %9s %9s %11s  %s\n", "benchmark", "default ms", "best ms", "worst ms", "worst/best",
           "best schedule");
    for (unsigned i = 0; i < n; i++) {
        const schedule_result *best = &r[i].sched[r[i].best], *worst = &r[i].sched[r[i].worst];
        uint64_t def = default_median(&r[i]);
        char def_text[32] = "not run";
        if (def)
            snprintf(def_text, sizeof def_text, "%.2f", gt_bench_ms(def));
        printf("  %-14s %11s %9.2f %9.2f %10.2fx  %s\n", r[i].bench->name, def_text,
               gt_bench_ms(best->times.median_ns), gt_bench_ms(worst->times.median_ns),
               (double)worst->times.median_ns / (double)best->times.median_ns, best->text);
    }
}

static cJSON *bench_json(const bench_result *r)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "benchmark", r->bench->name);
    cJSON_AddNumberToObject(b, "n", (double)r->n);
    cJSON_AddNumberToObject(b, "work_items", (double)r->work_items);
    cJSON *list = cJSON_AddArrayToObject(b, "schedules");
    for (unsigned s = 0; s < r->nrows; s++) {
        const schedule_result *sr = &r->sched[s];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "schedule", sr->text);
        gt_bench_times_json(j, &sr->times);
        cJSON_AddItemToArray(list, j);
    }
    cJSON_AddStringToObject(b, "best", r->sched[r->best].text);
    cJSON_AddStringToObject(b, "worst", r->sched[r->worst].text);
    cJSON_AddNumberToObject(b, "worst_over_best",
                            (double)r->sched[r->worst].times.median_ns / (double)r->sched[r->best].times.median_ns);
    return b;
}

static int write_json(const options *o, const bench_result *r, unsigned n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "workers", o->flags.workers);
    cJSON_AddNumberToObject(root, "reps", o->flags.reps);
    cJSON_AddBoolToObject(root, "verified", o->verify);
    cJSON *modules = cJSON_AddArrayToObject(root, "modules"); /* A, then B */
    for (unsigned k = 0; k < o->nmodules; k++)
        cJSON_AddItemToArray(modules, cJSON_CreateString(o->modules[k]));
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(&r[i]));
    return gt_bench_json_write(root, o->flags.json);
}

int main(int argc, char **argv)
{
    options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed)
        return parsed > 0 ? 0 : 2;
    char err[512];
    gt_module *m[MAX_MODULES] = {0};
    gt_pool *pool = NULL;
    int rc = 0;
    for (unsigned k = 0; k < o.nmodules && rc == 0; k++)
        if ((rc = gt_module_open(o.modules[k], &m[k], err, sizeof err)) != 0)
            say("%s", err);
    gt_pool_config pc = {.workers = o.flags.workers, .spin_us = GT_POOL_DEFAULT_SPIN_US};
    if (rc == 0 && (rc = gt_pool_create(&pc, &pool, err, sizeof err)) != 0)
        say("%s", err);
    if (rc) {
        for (unsigned k = 0; k < o.nmodules; k++)
            gt_module_close(m[k]);
        return 1;
    }
    o.flags.workers = gt_pool_workers(pool);
    say("%u benchmarks x %u schedules, %u workers, %u timed runs each", o.nbenches,
        o.nschedules, o.flags.workers, o.flags.reps);
    for (unsigned k = 0; o.nmodules > 1 && k < o.nmodules; k++)
        say("module %c: %s", module_tags[k], o.modules[k]);
    static bench_result results[GT_BENCH_MAX_BENCHES];
    for (unsigned i = 0; i < o.nbenches && rc == 0; i++) {
        rc = run_bench(&o, pool, m, o.benches[i], &results[i]);
        if (rc == 0) {
            print_bench(&results[i]);
            fflush(stdout);
        }
    }
    if (rc == 0) {
        print_summary(&o, results, o.nbenches);
        if (o.flags.json)
            rc = write_json(&o, results, o.nbenches);
    }
    gt_pool_destroy(pool);
    for (unsigned k = 0; k < o.nmodules; k++)
        gt_module_close(m[k]);
    return rc ? 1 : 0;
}
