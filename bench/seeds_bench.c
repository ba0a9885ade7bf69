/* seeds_bench.c: gridtune-bench, the seed benchmarks under a set of schedules.
 * Every benchmark runs each schedule on the whole launch, in rounds (one run of every schedule
 * per round) so that drift on a noisy machine hits all schedules alike. Round 0 is a warm-up
 * whose output is checked against the reference; later rounds are timed. It prints, per
 * benchmark, the median and minimum time of each schedule and the worst/best ratio, and can
 * write the same as JSON. */
#include "daemon/clock.h"
#include "daemon/module.h"
#include "daemon/pool.h"
#include "kernels/seedbench.h"
#include "tuner/number.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SCHEDULES 32
#define MAX_REPS 100
#define DEFAULT_REPS 3

/* A spread of styles: the plain default, item orders that change locality inside a
 * workgroup, group orders that change locality between workgroups, and the assignments. */
static const char *const default_schedules[] = {
    "group=linear,item=linear,assign=dynamic:1",
    "group=linear,item=column,assign=dynamic:1",
    "group=linear,item=tiled:4x4,assign=dynamic:1",
    "group=column,item=linear,assign=dynamic:1",
    "group=tiled:4x4,item=linear,assign=block",
    "group=hilbert,item=hilbert,assign=stealing",
    "group=zigzag,item=zigzag,assign=cyclic:4",
    "group=strided:16/1,item=strided:16/1,assign=dynamic:1",
};

typedef struct options {
    const char *module;
    const char *json;
    unsigned workers;
    unsigned reps;
    size_t size;
    bool verify;
    bool progress; /* stderr is a terminal: show a progress line */
    unsigned nschedules;
    const char *schedules[MAX_SCHEDULES];
    gt_schedule parsed[MAX_SCHEDULES];
    unsigned nbenches;
    const gt_seed_bench *benches[16];
} options;

typedef struct schedule_result {
    gt_schedule schedule;
    char text[GT_SCHEDULE_TEXT_MAX];
    uint64_t ns[MAX_REPS];
    uint64_t median_ns, min_ns, max_ns;
} schedule_result;

typedef struct bench_result {
    const gt_seed_bench *bench;
    size_t n;
    uint64_t work_items;
    schedule_result sched[MAX_SCHEDULES];
    unsigned best, worst;
} bench_result;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gridtune-bench [OPTIONS] [BENCHMARK...]\n"
            "Runs the seed benchmarks under a set of schedules and prints, per benchmark, the\n"
            "median time of each schedule and the worst/best ratio. Schedules run in rounds, so\n"
            "drift hits all alike; each schedule's output is checked against the reference.\n"
            "\n"
            "  -m, --module PATH     seeds kernel module (default: $GRIDTUNE_SEEDS_MODULE, else\n"
            "                        the build tree's, else %s)\n"
            "  -w, --workers N       worker threads (default: the CPUs this process may use)\n"
            "  -r, --reps N          timed runs per schedule, after one checked warm-up (default %d)\n"
            "  -n, --size N          problem size for every benchmark (default: each one's own)\n"
            "  -s, --schedule TEXT   a schedule to run, e.g. group=tiled:4x4,item=linear,assign=dynamic:8;\n"
            "                        repeatable; replaces the default set\n"
            "  -j, --json FILE       also write the results as JSON\n"
            "      --no-verify       skip the output check\n"
            "  -l, --list            list the benchmarks and the default schedules, and exit\n"
            "  -h, --help            this text\n",
            GT_SEEDS_INSTALL_PATH, DEFAULT_REPS);
}

static void list(void)
{
    size_t n;
    const gt_seed_bench *b = gt_seed_benches(&n);
    printf("benchmarks:\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-14s n=%-6zu %s\n", b[i].name, b[i].default_n, b[i].summary);
    printf("default schedules:\n");
    for (size_t i = 0; i < sizeof default_schedules / sizeof *default_schedules; i++)
        printf("  %s\n", default_schedules[i]);
}

static int parse_number(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    if (gt_parse_u32(text, strlen(text), min, max, out) == 0)
        return 0;
    fprintf(stderr, "gridtune-bench: %s \"%s\": expected a whole number from %u to %u\n", flag, text, min, max);
    return -1;
}

static const char *default_module(void)
{
    const char *env = getenv("GRIDTUNE_SEEDS_MODULE");
    if (env && *env)
        return env;
    return access(GT_SEEDS_BUILD_PATH, R_OK) == 0 ? GT_SEEDS_BUILD_PATH : GT_SEEDS_INSTALL_PATH;
}

static int parse_flag(int c, options *o)
{
    uint32_t v;
    switch (c) {
    case 'm':
        o->module = optarg;
        return 0;
    case 'w':
        return parse_number("--workers", optarg, 1, GT_POOL_MAX_WORKERS, &o->workers);
    case 'r':
        return parse_number("--reps", optarg, 1, MAX_REPS, &o->reps);
    case 'n':
        if (parse_number("--size", optarg, 1, 1u << 20, &v))
            return -1;
        o->size = v;
        return 0;
    case 's':
        if (o->nschedules == MAX_SCHEDULES) {
            fprintf(stderr, "gridtune-bench: at most %d schedules\n", MAX_SCHEDULES);
            return -1;
        }
        o->schedules[o->nschedules++] = optarg;
        return 0;
    case 'j':
        o->json = optarg;
        return 0;
    case 'V':
        o->verify = false;
        return 0;
    case 'l':
        list();
        exit(0);
    case 'h':
        usage(stdout);
        exit(0);
    default:
        usage(stderr);
        return -1;
    }
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"module", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'w'},
        {"reps", required_argument, 0, 'r'},   {"size", required_argument, 0, 'n'},
        {"schedule", required_argument, 0, 's'}, {"json", required_argument, 0, 'j'},
        {"no-verify", no_argument, 0, 'V'},    {"list", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (options){.reps = DEFAULT_REPS, .verify = true};
    int c;
    while ((c = getopt_long(argc, argv, "m:w:r:n:s:j:lh", longopts, NULL)) != -1)
        if (parse_flag(c, o))
            return -1;
    if (!o->module)
        o->module = default_module();
    if (o->nschedules == 0)
        for (size_t i = 0; i < sizeof default_schedules / sizeof *default_schedules; i++)
            o->schedules[o->nschedules++] = default_schedules[i];
    for (unsigned i = 0; i < o->nschedules; i++) {
        char err[256];
        if (gt_schedule_parse(o->schedules[i], &o->parsed[i], err, sizeof err) != 0) {
            fprintf(stderr, "gridtune-bench: --schedule \"%s\": %s\n", o->schedules[i], err);
            return -1;
        }
    }
    o->progress = isatty(STDERR_FILENO);
    size_t nall;
    const gt_seed_bench *all = gt_seed_benches(&nall);
    for (int i = optind; i < argc; i++) {
        const gt_seed_bench *b = gt_seed_bench_find(argv[i]);
        if (!b) {
            fprintf(stderr, "gridtune-bench: no benchmark \"%s\" (--list shows them)\n", argv[i]);
            return -1;
        }
        if (o->nbenches == sizeof o->benches / sizeof *o->benches) {
            fprintf(stderr, "gridtune-bench: at most %zu benchmarks at once\n", sizeof o->benches / sizeof *o->benches);
            return -1;
        }
        o->benches[o->nbenches++] = b;
    }
    if (optind == argc)
        for (size_t i = 0; i < nall && i < sizeof o->benches / sizeof *o->benches; i++)
            o->benches[o->nbenches++] = &all[i];
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void summarise(schedule_result *s, unsigned reps)
{
    uint64_t sorted[MAX_REPS];
    memcpy(sorted, s->ns, reps * sizeof *sorted);
    qsort(sorted, reps, sizeof *sorted, compare_u64);
    s->min_ns = sorted[0];
    s->max_ns = sorted[reps - 1];
    s->median_ns = reps % 2 ? sorted[reps / 2] : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
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
        fprintf(stderr, "gridtune-bench: %s: %s\n", c->bench->name, err);
        return -1;
    }
    *ns = gt_clock_ns() - start;
    if (check && gt_seed_case_verify(c, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-bench: %s under %s: wrong output: %s\n", c->bench->name, text, err);
        return -1;
    }
    return 0;
}

static int prepare(const options *o, const gt_module *m, const gt_seed_bench *b, gt_seed_case **c, gt_batch *batch,
                   void **slots)
{
    char err[512];
    const gt_kernel_desc *k = gt_module_find(m, b->kernel);
    if (!k) {
        fprintf(stderr, "gridtune-bench: module %s has no kernel %s\n", o->module, b->kernel);
        return -1;
    }
    if (gt_seed_case_create(b, o->size, c, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-bench: %s\n", err);
        return -1;
    }
    if (gt_args_check(k, (*c)->args, (*c)->nargs, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-bench: %s\n", err);
        gt_seed_case_destroy(*c);
        return -1;
    }
    gt_args_bind((*c)->args, (*c)->nargs, slots);
    *batch = (gt_batch){.run = k->run, .args = slots, .range = (*c)->range};
    return 0;
}

static int run_bench(const options *o, gt_pool *pool, const gt_module *m, const gt_seed_bench *b, bench_result *r)
{
    gt_seed_case *c;
    gt_batch batch;
    void *slots[GT_SEED_MAX_ARGS];
    if (prepare(o, m, b, &c, &batch, slots))
        return -1;
    *r = (bench_result){.bench = b, .n = c->n, .work_items = c->work_items};
    for (unsigned s = 0; s < o->nschedules; s++) {
        r->sched[s].schedule = o->parsed[s];
        gt_schedule_format(&o->parsed[s], r->sched[s].text, sizeof r->sched[s].text);
    }
    int rc = 0;
    for (unsigned round = 0; round <= o->reps && rc == 0; round++) {
        if (o->progress)
            fprintf(stderr, "\r  %-14s n=%zu  round %u/%u", b->name, c->n, round, o->reps);
        for (unsigned s = 0; s < o->nschedules && rc == 0; s++) {
            schedule_result *sr = &r->sched[s];
            batch.schedule = sr->schedule;
            uint64_t ns = 0;
            rc = run_once(pool, &batch, c, sr->text, round == 0 && o->verify, &ns);
            if (round > 0)
                sr->ns[round - 1] = ns;
        }
    }
    if (o->progress)
        fprintf(stderr, "\r%*s\r", 60, "");
    gt_seed_case_destroy(c);
    if (rc)
        return rc;
    for (unsigned s = 0; s < o->nschedules; s++) {
        summarise(&r->sched[s], o->reps);
        if (r->sched[s].median_ns < r->sched[r->best].median_ns)
            r->best = s;
        if (r->sched[s].median_ns > r->sched[r->worst].median_ns)
            r->worst = s;
    }
    return 0;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static void print_bench(const options *o, const bench_result *r)
{
    const schedule_result *best = &r->sched[r->best];
    printf("\n%s  n=%zu  (%s)\n", r->bench->name, r->n, r->bench->summary);
    printf("  %-56s %10s %10s %9s\n", "schedule", "median ms", "min ms", "vs best");
    for (unsigned s = 0; s < o->nschedules; s++) {
        const schedule_result *sr = &r->sched[s];
        printf("  %-56s %10.2f %10.2f %8.2fx%s\n", sr->text, ms(sr->median_ns), ms(sr->min_ns),
               (double)sr->median_ns / (double)best->median_ns, s == r->best ? "  best" : "");
    }
    printf("  worst/best: %.2fx\n", (double)r->sched[r->worst].median_ns / (double)best->median_ns);
}

/* The default schedule's median, or 0 when the schedule set left it out. */
static uint64_t default_median(const options *o, const bench_result *r)
{
    for (unsigned s = 0; s < o->nschedules; s++)
        if (gt_schedule_equal(&r->sched[s].schedule, &gt_schedule_default))
            return r->sched[s].median_ns;
    return 0;
}

static void print_summary(const options *o, const bench_result *r, unsigned n)
{
    char def_schedule[GT_SCHEDULE_TEXT_MAX];
    gt_schedule_format(&gt_schedule_default, def_schedule, sizeof def_schedule);
    printf("\nsummary (%u workers, median of %u runs per schedule; default is %s)\n", o->workers, o->reps,
           def_schedule);
    printf("  %-14s %11s %9s %9s %11s  %s\n", "benchmark", "default ms", "best ms", "worst ms", "worst/best",
           "best schedule");
    for (unsigned i = 0; i < n; i++) {
        const schedule_result *best = &r[i].sched[r[i].best], *worst = &r[i].sched[r[i].worst];
        uint64_t def = default_median(o, &r[i]);
        char def_text[32] = "not run";
        if (def)
            snprintf(def_text, sizeof def_text, "%.2f", ms(def));
        printf("  %-14s %11s %9.2f %9.2f %10.2fx  %s\n", r[i].bench->name, def_text, ms(best->median_ns),
               ms(worst->median_ns), (double)worst->median_ns / (double)best->median_ns, best->text);
    }
}

static cJSON *bench_json(const options *o, const bench_result *r)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "benchmark", r->bench->name);
    cJSON_AddNumberToObject(b, "n", (double)r->n);
    cJSON_AddNumberToObject(b, "work_items", (double)r->work_items);
    cJSON *list = cJSON_AddArrayToObject(b, "schedules");
    for (unsigned s = 0; s < o->nschedules; s++) {
        const schedule_result *sr = &r->sched[s];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "schedule", sr->text);
        cJSON_AddNumberToObject(j, "median_ns", (double)sr->median_ns);
        cJSON_AddNumberToObject(j, "min_ns", (double)sr->min_ns);
        cJSON_AddNumberToObject(j, "max_ns", (double)sr->max_ns);
        cJSON *runs = cJSON_AddArrayToObject(j, "runs_ns");
        for (unsigned k = 0; k < o->reps; k++)
            cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)sr->ns[k]));
        cJSON_AddItemToArray(list, j);
    }
    cJSON_AddStringToObject(b, "best", r->sched[r->best].text);
    cJSON_AddStringToObject(b, "worst", r->sched[r->worst].text);
    cJSON_AddNumberToObject(b, "worst_over_best",
                            (double)r->sched[r->worst].median_ns / (double)r->sched[r->best].median_ns);
    return b;
}

static int write_json(const options *o, const bench_result *r, unsigned n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "workers", o->workers);
    cJSON_AddNumberToObject(root, "reps", o->reps);
    cJSON_AddBoolToObject(root, "verified", o->verify);
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(o, &r[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    FILE *f = text ? fopen(o->json, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        fprintf(stderr, "gridtune-bench: cannot write %s: %s\n", o->json, strerror(errno));
    cJSON_free(text);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o))
        return 2;
    char err[512];
    gt_module *m;
    if (gt_module_open(o.module, &m, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-bench: %s\n", err);
        return 1;
    }
    gt_pool *pool;
    if (gt_pool_create(&(gt_pool_config){.workers = o.workers}, &pool, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-bench: %s\n", err);
        gt_module_close(m);
        return 1;
    }
    o.workers = gt_pool_workers(pool);
    fprintf(stderr, "gridtune-bench: %u benchmarks x %u schedules, %u workers, %u timed runs each\n", o.nbenches,
            o.nschedules, o.workers, o.reps);
    static bench_result results[16];
    int rc = 0;
    for (unsigned i = 0; i < o.nbenches && rc == 0; i++) {
        rc = run_bench(&o, pool, m, o.benches[i], &results[i]);
        if (rc == 0) {
            print_bench(&o, &results[i]);
            fflush(stdout);
        }
    }
    if (rc == 0) {
        print_summary(&o, results, o.nbenches);
        if (o.json)
            rc = write_json(&o, results, o.nbenches);
    }
    gt_pool_destroy(pool);
    gt_module_close(m);
    return rc ? 1 : 0;
}
