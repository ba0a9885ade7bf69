/* pool_bench.c: gridtune-pool-bench, what a batch costs on the worker pool beyond its
 * workgroups. Back-to-back batches of an empty kernel, as the tuner's samples come, on two
 * pools in one process: one whose workers park on a condition variable after each batch
 * (spin 0) and one whose workers poll for the next batch, and whose submitter polls for the
 * batch's end, for --spin-us. Rounds alternate the two; a pause after each block lets the
 * polling pool's workers park before the other pool runs. Prints the median batch of each and
 * their ratio. */
#include "bench/bench_common.h"
#include "engine/pool.h"
#include "kernels/contest.h"
#include "kernels/say.h"
#include "tuner/clock.h"
#include "tuner/schedule.h"

#include <getopt.h>
#include <gridtune/kernel.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROG "gridtune-pool-bench"
#define DEFAULT_GROUPS 64
#define DEFAULT_BATCHES 100
#define DEFAULT_ROUNDS 10

const char *const say_prog = PROG;

GT_KERNEL(nothing)
{
}

typedef struct options {
    uint32_t workers, groups, batches, rounds, spin_us;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [OPTIONS]\n"
            "What a batch costs on gridtune's worker pool beyond its workgroups: back-to-back batches\n"
            "of an empty kernel, as the tuner's samples come, on a pool whose workers park between\n"
            "batches and on one whose workers poll for the next batch, in alternating rounds of one\n"
            "run. Prints the median batch time of each (per round, a block's median; over rounds, their\n"
            "median) and the ratio.\n\n"
            "  -w, --workers N   worker threads of each pool (default 2)\n"
            "  -g, --groups N    workgroups of one item per batch (default %d)\n"
            "  -b, --batches N   batches per block (default %d)\n"
            "  -r, --rounds N    rounds, each a block on either pool (default %d)\n"
            "      --spin-us N   how long the polling pool polls (default %d, as gridtuned's executors)\n"
            "  -h, --help        this text\n",
            PROG, DEFAULT_GROUPS, DEFAULT_BATCHES, DEFAULT_ROUNDS, GT_POOL_DEFAULT_SPIN_US);
}

/* 0, 1 after --help, -1 after printing why. */
static int parse(int argc, char **argv, options *o)
{
    enum { OPT_SPIN = 256 };
    static const struct option longs[] = {{"workers", required_argument, NULL, 'w'},
                                          {"groups", required_argument, NULL, 'g'},
                                          {"batches", required_argument, NULL, 'b'},
                                          {"rounds", required_argument, NULL, 'r'},
                                          {"spin-us", required_argument, NULL, OPT_SPIN},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    *o = (options){.workers = 2, .groups = DEFAULT_GROUPS, .batches = DEFAULT_BATCHES, .rounds = DEFAULT_ROUNDS,
                   .spin_us = GT_POOL_DEFAULT_SPIN_US};
    for (int c; (c = getopt_long(argc, argv, "w:g:b:r:h", longs, NULL)) != -1;) {
        int rc;
        switch (c) {
        case 'w':
            rc = gt_bench_number_parse("--workers", optarg, 1, GT_POOL_MAX_WORKERS, &o->workers);
            break;
        case 'g':
            rc = gt_bench_number_parse("--groups", optarg, 1, 1u << 20, &o->groups);
            break;
        case 'b':
            rc = gt_bench_number_parse("--batches", optarg, 1, GT_BENCH_MAX_REPS, &o->batches);
            break;
        case 'r':
            rc = gt_bench_number_parse("--rounds", optarg, 1, GT_BENCH_MAX_REPS, &o->rounds);
            break;
        case OPT_SPIN:
            rc = gt_bench_number_parse("--spin-us", optarg, 1, 100000, &o->spin_us);
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            usage(stderr);
            return -1;
        }
        if (rc != 0)
            return -1;
    }
    if (optind < argc) {
        say("no operands are taken, but \"%s\" was given", argv[optind]);
        return -1;
    }
    return 0;
}

/* A block of back-to-back batches; its median batch into *median_ns. */
static int block(gt_pool *pool, const gt_batch *b, uint32_t batches, uint64_t *median_ns)
{
    gt_bench_times t = {.n = batches};
    char err[256];
    for (uint32_t i = 0; i < batches; i++) {
        uint64_t t0 = gt_clock_ns();
        if (gt_pool_run(pool, b, NULL, err, sizeof err) != 0) {
            say("a batch: %s", err);
            return -1;
        }
        t.ns[i] = gt_clock_ns() - t0;
    }
    gt_bench_times_summarise(&t);
    *median_ns = t.median_ns;
    nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL); /* the polling pool parks */
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    gt_batch b = {.run = gt_kernel_desc_nothing.run,
                  .range = {.dims = 1, .global = {o.groups, 1, 1}, .local = {1, 1, 1}}};
    char err[256];
    if (gt_schedule_parse("group=linear,item=linear,assign=block", &b.schedule, err, sizeof err) != 0) {
        say("the schedule: %s", err);
        return 1;
    }
    static const char *const names[2] = {"parking", "polling"};
    gt_pool *pools[2] = {NULL, NULL};
    for (int p = 0; p < 2 && rc == 0; p++) {
        gt_pool_config cfg = {.workers = o.workers, .spin_us = p ? o.spin_us : 0};
        if ((rc = gt_pool_create(&cfg, &pools[p], err, sizeof err)) != 0)
            say("the %s pool: %s", names[p], err);
    }
    gt_bench_times t[2] = {{.n = o.rounds}, {.n = o.rounds}};
    for (uint32_t r = 0; r < o.rounds && rc == 0; r++)
        for (int k = 0; k < 2 && rc == 0; k++) {
            int p = (int)(r + (uint32_t)k) % 2; /* the order alternates */
            rc = block(pools[p], &b, o.batches, &t[p].ns[r]);
        }
    for (int p = 0; p < 2; p++)
        if (pools[p])
            gt_pool_destroy(pools[p]);
    if (rc != 0)
        return 1;
    printf("%u workers, batches of %u empty workgroups, %u rounds of %u batches a pool\n", o.workers, o.groups,
           o.rounds, o.batches);
    for (int p = 0; p < 2; p++) {
        gt_bench_times_summarise(&t[p]);
        printf("  %-8s (spin %5u us)  median batch %8.1f us  (rounds' medians %.1f-%.1f)\n", names[p],
               p ? o.spin_us : 0, (double)t[p].median_ns / 1e3, (double)t[p].min_ns / 1e3, (double)t[p].max_ns / 1e3);
    }
    printf("  polling / parking: %.2fx\n", (double)t[1].median_ns / (double)t[0].median_ns);
    return 0;
}
