/* region_bench.c: gridtune-region-bench, what a barrier costs. A workgroup kernel of k regions
 * (GT_ITEMS blocks) that each add 1 to a value every item keeps across them (GT_PRIVATE), run
 * on gridtune's worker pool in this process, against its OpenCL twin with k barrier() calls
 * through pocl. The cost of a region boundary is (t(k) - t(0)) / (items x k): what k regions
 * add to the same launch with none, per item per region. Workgroup sizes, k = 0 and k, gridtune
 * and pocl are timed side by side in interleaved rounds of one run; every run's output is
 * checked. */
#include "bench/peers/ocl_twins.h"
#include "engine/pool.h"
#include "kernels/contest.h"
#include "kernels/say.h"
#include "kernels/seed_runs.h"
#include "tuner/clock.h"

#include <errno.h>
#include <getopt.h>
#include <gridtune/kernel.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "gridtune-region-bench"
#define DEFAULT_ITEMS (1u << 22)
#define DEFAULT_REGIONS 64
#define DEFAULT_REPS 7
#define MAX_LOCALS 8

const char *const say_prog = PROG;

/* Each item's value gains 1 per region; it lives across the regions. */
GT_KERNEL_GROUP(regions, (), float *, data, int32_t, k)
{
    GT_PRIVATE(float, v);
    GT_ITEMS { GT_P(v) = data[gt_global_id(0)]; }
    for (int32_t r = 0; r < k; r++)
        GT_ITEMS { GT_P(v) += 1.0f; }
    GT_ITEMS { data[gt_global_id(0)] = GT_P(v); }
}

typedef struct options {
    size_t items;
    int32_t regions;
    unsigned reps, workers, nlocals;
    size_t locals[MAX_LOCALS];
    bool no_pocl;
    const char *json;
} options;

enum { SIDE_GRIDTUNE, SIDE_POCL, NSIDES };
static const char *const side_names[NSIDES] = {"gridtune", "pocl"};

/* One workgroup size's figures: [side][0: no regions, 1: k regions]. */
typedef struct local_result {
    size_t local;
    gt_bench_times t[NSIDES][2];
} local_result;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PROG " [OPTIONS]\n"
            "What a barrier costs: a workgroup kernel of k regions (GT_ITEMS), each adding 1 to a\n"
            "value every item keeps across them, on gridtune's worker pool in this process, against\n"
            "its OpenCL twin with k barrier() calls through pocl. Prints, per workgroup size, the\n"
            "medians with no region and with k, and (t(k) - t(0)) / (items x k): a region\n"
            "boundary's cost per item. Interleaved rounds of one run; every output is checked.\n\n"
            "  -n, --items N        work-items per launch (default %u)\n"
            "  -k, --regions K      regions, and pocl's barriers (default %d)\n"
            "  -l, --local LIST     workgroup sizes, comma-separated (default 64,256,1024)\n"
            "  -r, --reps N         timed rounds (default %d)\n"
            "  -w, --workers N      gridtune's workers (default: 2)\n"
            "      --no-pocl        leave pocl out\n"
            "  -j, --json FILE      also write the results as JSON\n"
            "  -h, --help           this text\n",
            DEFAULT_ITEMS, DEFAULT_REGIONS, DEFAULT_REPS);
}

static int parse_number(const char *flag, const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max || text[0] == '-') {
        say("%s takes a whole number from %lu to %lu, not \"%s\"", flag, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_locals(const char *text, options *o)
{
    o->nlocals = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned long v;
        if (o->nlocals == MAX_LOCALS) {
            say("--local takes at most %d sizes", MAX_LOCALS);
            return -1;
        }
        if (parse_number("--local", tok, 1, GT_MAX_GROUP_ITEMS, &v) != 0)
            return -1;
        o->locals[o->nlocals++] = v;
    }
    if (o->nlocals == 0) {
        say("--local takes a comma-separated list of workgroup sizes");
        return -1;
    }
    return 0;
}

/* 0, 1 after --help, -1 after printing why. */
static int parse(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"items", required_argument, NULL, 'n'}, {"regions", required_argument, NULL, 'k'},
        {"local", required_argument, NULL, 'l'}, {"reps", required_argument, NULL, 'r'},
        {"workers", required_argument, NULL, 'w'}, {"no-pocl", no_argument, NULL, 'P'},
        {"json", required_argument, NULL, 'j'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    *o = (options){.items = DEFAULT_ITEMS, .regions = DEFAULT_REGIONS, .reps = DEFAULT_REPS, .workers = 2};
    if (parse_locals("64,256,1024", o) != 0)
        return -1;
    for (int c; (c = getopt_long(argc, argv, "n:k:l:r:w:j:h", longs, NULL)) != -1;) {
        unsigned long v = 0;
        int rc = 0;
        switch (c) {
        case 'n':
            rc = parse_number("--items", optarg, 1, 1ul << 28, &v);
            o->items = v;
            break;
        case 'k':
            rc = parse_number("--regions", optarg, 1, 100000, &v);
            o->regions = (int32_t)v;
            break;
        case 'l':
            rc = parse_locals(optarg, o);
            break;
        case 'r':
            rc = parse_number("--reps", optarg, 1, GT_BENCH_MAX_REPS, &v);
            o->reps = (unsigned)v;
            break;
        case 'w':
            rc = parse_number("--workers", optarg, 1, GT_POOL_MAX_WORKERS, &v);
            o->workers = (unsigned)v;
            break;
        case 'P':
            o->no_pocl = true;
            break;
        case 'j':
            o->json = optarg;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            usage(stderr);
            return -1;
        }
        if (rc)
            return -1;
    }
    if (optind < argc) {
        say("unexpected operand \"%s\"; `" PROG " --help` lists the options", argv[optind]);
        return -1;
    }
    for (unsigned i = 0; i < o->nlocals; i++)
        if (o->items % o->locals[i] != 0) {
            say("--items %zu is not a multiple of the workgroup size %zu", o->items, o->locals[i]);
            return -1;
        }
    return 0;
}

/* The context of one side's launches over its own buffer. */
typedef struct side {
    float *data;
    uint64_t expected; /* what every element must hold after the runs so far */
} side;

static int check(const options *o, const side *s, const char *who)
{
    for (size_t i = 0; i < o->items; i++)
        if (s->data[i] != (float)s->expected) {
            say("%s: element %zu is %g after its runs, expected %" PRIu64 "", who, i, (double)s->data[i], s->expected);
            return -1;
        }
    return 0;
}

static int run_gridtune(gt_pool *pool, const options *o, side *s, size_t local, int32_t k, uint64_t *ns)
{
    float *data = s->data;
    void *args[] = {&data, &k};
    gt_batch b = {.run = gt_kernel_desc_regions.run, .no_spans = true, .args = args,
                  .range = {.dims = 1, .global = {o->items, 1, 1}, .local = {local, 1, 1}}};
    char err[256];
    if (gt_schedule_parse("group=linear,item=linear,assign=block", &b.schedule, err, sizeof err) != 0) {
        say("the schedule: %s", err);
        return -1;
    }
    uint64_t t0 = gt_clock_ns();
    if (gt_pool_run(pool, &b, NULL, err, sizeof err) != 0) {
        say("gridtune, workgroup %zu, %d regions: %s", local, k, err);
        return -1;
    }
    *ns = gt_clock_ns() - t0;
    s->expected += (uint64_t)k;
    return check(o, s, "gridtune");
}

/* pocl's twin through the seed-case runner: a case built by hand over the side's buffer. */
static int run_pocl(gt_ocl *ocl, const options *o, side *s, size_t local, int32_t k, uint64_t *ns)
{
    static const gt_seed_bench bench = {"regions", "regions", "k barriers", 0, 1};
    gt_seed_case c = {.bench = &bench, .n = o->items, .range = {.dims = 1, .global = {o->items, 1, 1},
                                                                .local = {local, 1, 1}},
                      .nargs = 2, .nbuffers = 1, .buffers = {s->data}, .buffer_bytes = {o->items * sizeof(float)}};
    c.args[0] = (gt_arg_value){.is_buffer = true, .v.ptr = s->data};
    c.args[1] = (gt_arg_value){.size = sizeof(int32_t), .v.i32 = k};
    gt_ocl_case *oc;
    char err[512];
    if (gt_ocl_case_open(ocl, &c, &oc, err, sizeof err) != 0) {
        say("pocl: %s", err);
        return -1;
    }
    uint64_t t0 = gt_clock_ns();
    int rc = gt_ocl_case_run(oc, err, sizeof err);
    *ns = gt_clock_ns() - t0;
    gt_ocl_case_close(oc);
    if (rc != 0) {
        say("pocl, workgroup %zu, %d barriers: %s", local, k, err);
        return -1;
    }
    s->expected += (uint64_t)k;
    return check(o, s, "pocl");
}

static int run_one(gt_pool *pool, gt_ocl *ocl, const options *o, side sides[NSIDES], int which, size_t local,
                   int32_t k, uint64_t *ns)
{
    return which == SIDE_GRIDTUNE ? run_gridtune(pool, o, &sides[SIDE_GRIDTUNE], local, k, ns)
                                  : run_pocl(ocl, o, &sides[SIDE_POCL], local, k, ns);
}

/* The per-item, per-region cost in ns of a side at one workgroup size. */
static double region_cost(const options *o, const gt_bench_times t[2])
{
    return ((double)t[1].median_ns - (double)t[0].median_ns) / ((double)o->items * (double)o->regions);
}

static int measure(gt_pool *pool, gt_ocl *ocl, const options *o, side sides[NSIDES], local_result *res)
{
    int nsides = ocl ? NSIDES : 1;
    /* contenders: side x (0 or k regions) x workgroup size, rotated over the rounds */
    size_t count = (size_t)nsides * 2 * o->nlocals;
    for (unsigned round = 0; round <= o->reps; round++) /* round 0: warm-up, checked, untimed */
        for (size_t i = 0; i < count; i++) {
            size_t c = round ? gt_contest_turn(round, o->reps, count, i) : i;
            int which = (int)(c % (size_t)nsides), with = (int)(c / (size_t)nsides % 2);
            local_result *r = &res[c / ((size_t)nsides * 2)];
            uint64_t ns;
            if (run_one(pool, ocl, o, sides, which, r->local, with ? o->regions : 0, &ns) != 0)
                return -1;
            if (round)
                r->t[which][with].ns[r->t[which][with].n++] = ns;
        }
    for (unsigned l = 0; l < o->nlocals; l++)
        for (int s = 0; s < nsides; s++)
            for (int w = 0; w < 2; w++)
                gt_bench_times_summarise(&res[l].t[s][w]);
    return 0;
}

static void print(const options *o, const local_result *res, bool pocl)
{
    printf("\n" PROG ": one run, %zu items, %d regions (pocl: barriers), medians of %u rounds, ms\n", o->items,
           o->regions, o->reps);
    printf("%-9s %12s %12s %12s %12s   %s\n", "workgroup", "gridtune 0", "gridtune k", "pocl 0", "pocl k",
           "region boundary, ns per item: gridtune, pocl, pocl/gridtune");
    for (unsigned l = 0; l < o->nlocals; l++) {
        const local_result *r = &res[l];
        double g = region_cost(o, r->t[SIDE_GRIDTUNE]);
        if (pocl) {
            double p = region_cost(o, r->t[SIDE_POCL]);
            printf("%-9zu %12.2f %12.2f %12.2f %12.2f   %.3f %.3f %.2f\n", r->local,
                   gt_bench_ms(r->t[SIDE_GRIDTUNE][0].median_ns), gt_bench_ms(r->t[SIDE_GRIDTUNE][1].median_ns),
                   gt_bench_ms(r->t[SIDE_POCL][0].median_ns), gt_bench_ms(r->t[SIDE_POCL][1].median_ns), g, p,
                   p / g);
        } else {
            printf("%-9zu %12.2f %12.2f %12s %12s   %.3f -\n", r->local,
                   gt_bench_ms(r->t[SIDE_GRIDTUNE][0].median_ns), gt_bench_ms(r->t[SIDE_GRIDTUNE][1].median_ns), "-",
                   "-", g);
        }
    }
}

static int write_json(const options *o, const local_result *res, bool pocl)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "workgroups");
    cJSON_AddNumberToObject(root, "items", (double)o->items);
    cJSON_AddNumberToObject(root, "regions", o->regions);
    cJSON_AddNumberToObject(root, "workers", o->workers);
    for (unsigned l = 0; l < o->nlocals; l++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddItemToArray(list, w);
        cJSON_AddNumberToObject(w, "local", (double)res[l].local);
        for (int s = 0; s < (pocl ? NSIDES : 1); s++) {
            cJSON *figures = cJSON_AddObjectToObject(w, side_names[s]);
            gt_bench_times_json(cJSON_AddObjectToObject(figures, "no_regions"), &res[l].t[s][0]);
            gt_bench_times_json(cJSON_AddObjectToObject(figures, "regions"), &res[l].t[s][1]);
            cJSON_AddNumberToObject(figures, "region_ns_per_item", region_cost(o, res[l].t[s]));
        }
    }
    return gt_bench_json_write(root, o->json);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    gt_pool *pool;
    char err[512];
    gt_pool_config pc = {.workers = o.workers, .spin_us = GT_POOL_DEFAULT_SPIN_US};
    if (gt_pool_create(&pc, &pool, err, sizeof err) != 0) {
        say("cannot start %u workers: %s", o.workers, err);
        return 1;
    }
    gt_ocl *ocl = NULL;
    if (!o.no_pocl && gt_ocl_open(&ocl, err, sizeof err) != 0)
        say("pocl left out: %s", err);
    side sides[NSIDES] = {0};
    local_result *res = calloc(o.nlocals, sizeof *res);
    for (int s = 0; s < NSIDES; s++)
        sides[s].data = calloc(o.items, sizeof(float));
    rc = res && sides[0].data && sides[1].data ? 0 : -1;
    if (rc)
        say("out of memory for %zu items", o.items);
    for (unsigned l = 0; rc == 0 && l < o.nlocals; l++)
        res[l].local = o.locals[l];
    if (rc == 0) {
        say("%zu items, %d regions, workgroups of %zu to %zu items, %u rounds, gridtune %u workers%s%s", o.items,
            o.regions, o.locals[0], o.locals[o.nlocals - 1], o.reps, o.workers, ocl ? "; pocl: " : "",
            ocl ? gt_ocl_device_name(ocl) : "");
        rc = measure(pool, ocl, &o, sides, res);
    }
    if (rc == 0)
        print(&o, res, ocl != NULL);
    if (rc == 0 && o.json)
        rc = write_json(&o, res, ocl != NULL);
    for (int s = 0; s < NSIDES; s++)
        free(sides[s].data);
    free(res);
    gt_ocl_close(ocl);
    gt_pool_destroy(pool);
    return rc ? 1 : 0;
}
