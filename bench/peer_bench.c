/* peer_bench.c: gridtune-peer-bench, gridtune side by side with its peers on the seed benchmarks.
 *
 * Contenders, per benchmark and in one run: gridtune through a gridtuned of this run's own
 * (cold tuned, warm from the wisdom, settled after launches that keep learning, and the default
 * schedule forced), the OpenMP twins with
 * schedule static, dynamic and guided, each at its best chunk of a small geometric series (the
 * peer is tuned too), the OpenCL C twins through pocl, and for the two matrix copies a memcpy of
 * the same bytes, the bandwidth limit (for the reduction, a memcpy of its input elsewhere: the
 * read bandwidth it is measured against). Then the overhead of one launch: an empty kernel's round
 * trip through gridtuned (in one trip with gt_run, and in two requests with gt_launch +
 * gt_wait) and through pocl, and under each gridtuned path its floor, a raw Unix-socket
 * ping-pong of the same frame sizes.
 *
 * Method:
 * - One seed case per benchmark: its buffers are the peers' buffers and the reference side of
 *   the daemon's shared copies (kernels/seeds_client.c). Every run poisons the output first and
 *   checks it against the reference after; nothing wrong is timed.
 * - The warm-up round (untimed) touches every page, compiles pocl's workgroup functions, makes
 *   the daemon's first decision, and picks each OpenMP schedule's chunk by the best of two
 *   checked runs per chunk.
 * - Before its warm-up, a second gridtuned, with refinement on (its default), launches the
 *   benchmark again and again until its report says the decision settled (at most
 *   LEARN_LAUNCHES launches), as a program that launches the same kernel every time step does;
 *   then once more, whose winner is the settled one.
 * - Timed rounds run every contender once, in an order that rotates from round to round, so
 *   drift hits all alike, each after a pause (SETTLE_NS) that lets the last one's threads stop
 *   spinning. Cold and warm run as a pair (retune, then a wisdom hit); the daemon runs
 *   with --refine off, so that warm is the analysis's winner alone, never a contender on a share
 *   of it. Settled is the learning daemon's settled winner, forced on the timed daemon: what
 *   its wisdom runs once refinement is over.
 * - Figures are medians, and ratios are of medians against gridtune warm. Nothing is compared
 *   with a fixed target here; the table says which is faster.
 * - Head to head: the best peer is the one with the lowest median of those rounds, and the
 *   lowest of several noisy medians is lower than that peer's cost (peers of about the same
 *   cost, OpenMP dynamic and guided, take turns at it). So gridtune warm (the last round's
 *   pick), settled and the best peer then run --head-to-head rounds more, alone, in an order
 *   that rotates; those runs,
 *   which chose nothing, compare gridtune with that peer, by their medians and by the rounds
 *   each one was faster in. */
#include "bench/bench_common.h"
#include "bench/peers/ocl_twins.h"
#include "bench/peers/omp_twins.h"
#include "bench/private_daemon.h"
#include "bench/roundtrip.h"
#include "kernels/seeds_client.h"
#include "tuner/report_read.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_PROG "gridtune-peer-bench"
#define DEFAULT_REPS 3
#define DEFAULT_OVERHEAD_REPS 500
#define OVERHEAD_BLOCKS 10
/* a block holds at most GT_BENCH_MAX_REPS round trips */
#define MAX_OVERHEAD_REPS (OVERHEAD_BLOCKS * GT_BENCH_MAX_REPS)
#define MAX_CHUNKS 12
#define DEFAULT_CHUNKS "1,4,16,64,256"
#define CHUNK_TRIES 2
#define TEXT_MAX 256
/* The most launches the learning daemon gets to settle a decision: its refine limit (12) after
   the analysing launch, with room to spare. */
#define LEARN_LAUNCHES 20
#define DEFAULT_DUEL_ROUNDS 5
/* A quiet pause before every timed run: after a parallel region libgomp's threads spin for
   milliseconds (GOMP_SPINCOUNT) on the CPUs the next contender needs, and that one paid for it
   (reduce's warm launch took 17.5-20.9 ms right after OpenMP, the same schedule 13.1-15.7 ms
   after gridtune; with OMP_WAIT_POLICY=passive 15.2-16.7 and 15.6-19.5). */
#define SETTLE_NS 50000000L

enum contender { C_COLD, C_WARM, C_SETTLED, C_DEFAULT, C_OMP_STATIC, C_OMP_DYNAMIC, C_OMP_GUIDED, C_POCL, C_MEMCPY, NCONT };

static const struct {
    const char *label, *key;
} contenders[NCONT] = {
    {"cold", "gridtune_cold"},   {"warm", "gridtune_warm"},     {"settled", "gridtune_settled"},
    {"default", "gridtune_default"},
    {"omp-static", "omp_static"}, {"omp-dynamic", "omp_dynamic"}, {"omp-guided", "omp_guided"},
    {"pocl", "pocl"},            {"memcpy", "memcpy"},
};

typedef struct peer_options {
    gt_bench_flags flags;
    unsigned nbenches;
    const gt_seed_bench *benches[GT_BENCH_MAX_BENCHES];
    unsigned chunks[MAX_CHUNKS], nchunks;
    unsigned overhead_reps;
    bool only_overhead; /* --only-overhead: no seed benchmarks */
    bool pocl;
    uint32_t group[2]; /* --group: workgroup shape for gridtune and pocl; 0: the seeds' own */
    unsigned duel_rounds; /* --head-to-head: rounds of warm, settled and the best peer; 0: none */
} peer_options;

/* The head-to-head rounds' contenders, by slot. */
enum duel_slot { D_WARM, D_SETTLED, D_PEER, NDUEL };

typedef struct peer_result {
    const gt_seed_bench *bench;
    size_t n;
    size_t group[2]; /* the workgroup shape gridtune and pocl launched with */
    uint64_t bytes_copied; /* read plus written by a matrix copy; 0 for the others */
    uint64_t bytes_read;   /* read by the reduction, which memcpy copies into scratch; else 0 */
    void *scratch;         /* the reduction's memcpy's destination */
    bool ran[NCONT];
    gt_bench_times t[NCONT];
    unsigned chunk[GT_OMP_KINDS];                  /* chosen per OpenMP kind */
    uint64_t chunk_ns[GT_OMP_KINDS][MAX_CHUNKS];   /* best of CHUNK_TRIES per chunk */
    char cold_winner[TEXT_MAX], warm_winner[TEXT_MAX], warm_source[16];
    char settled_winner[TEXT_MAX]; /* the learning daemon's winner after its launches */
    unsigned learn_launches;       /* the launches it took, the last one (the settled winner alone) included */
    bool settled;                  /* its decision settled within LEARN_LAUNCHES */
    double cold_analysis;                          /* the last cold launch's analysis_fraction */
    unsigned wisdom_misses;
    enum contender duel_peer;  /* the best peer of the rounds, the head-to-head's; NCONT: none */
    gt_bench_times duel[NDUEL]; /* ns[r - 1]: round r's run */
} peer_result;

/* The overhead figures: gridtuned's two paths, pocl, and the floor under each path. */
enum overhead_figure { OV_ONE_TRIP, OV_TWO_REQUESTS, OV_POCL, OV_FLOOR_ONE_TRIP, OV_FLOOR_TWO_REQUESTS, NOVERHEAD };

static const struct {
    const char *label, *key;
} overhead_figures[NOVERHEAD] = {
    {"gridtuned one trip (gt_run)", "gridtuned_one_trip"},
    {"gridtuned two requests (gt_launch + gt_wait)", "gridtuned_two_requests"},
    {"pocl (enqueue + clFinish)", "pocl"},
    {"raw socket ping-pong, one-trip frames", "pingpong_one_trip"},
    {"raw socket ping-pong, two-request frames", "pingpong_two_requests"},
};

typedef struct overhead {
    bool ran[NOVERHEAD];
    gt_bench_times t[NOVERHEAD];
    gt_rt_frames frames[GT_RT_PATHS];
    char pocl_why[TEXT_MAX];
} overhead;

/* The context a benchmark runs in. */
typedef struct peer_run {
    const peer_options *o;
    gt_client *c;
    gt_client *learner; /* the learning daemon's: refinement on */
    const char *module;
    unsigned threads;
    gt_ocl *ocl; /* NULL: no pocl, for the reason in pocl_why */
    const char *pocl_why;
} peer_run;

const char *const say_prog = PEER_PROG;

/* ---- command line ------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PEER_PROG " [OPTIONS] [BENCHMARK]...\n"
            "gridtune against its peers on the seed benchmarks, in one run: gridtune cold, warm,\n"
            "settled (the winner after launches that keep learning, on a second gridtuned with\n"
            "refinement on) and default through a gridtuned of this run's own; OpenMP static, dynamic\n"
            "and guided, each at\n"
            "its best chunk; the OpenCL twins through pocl; and memcpy for the matrix copies and the\n"
            "reduction (its input copied elsewhere: the read bandwidth). Then one\n"
            "launch's overhead: an empty kernel through gridtuned and through pocl, and a raw Unix-socket\n"
            "ping-pong of the same frame sizes. Prints medians and ratios against gridtune warm.\n"
            "BENCHMARK: any of the ten (default: all; --list names them).\n\n");
    gt_bench_flags_help(out, "timed rounds after the checked warm-up round", DEFAULT_REPS);
    fprintf(out,
            "      --chunks LIST     OpenMP chunk sizes tried in the warm-up round (default " DEFAULT_CHUNKS ")\n"
            "      --overhead-reps N round trips timed for each overhead figure (default %d)\n"
            "      --only-overhead   measure only the launch overhead, no seed benchmark\n"
            "      --no-pocl         leave pocl out\n"
            "      --group WxH       workgroup shape for gridtune and pocl instead of the seeds' 16x16\n"
            "                        (16 in 1-D); W and H must divide the size; 1-D benchmarks use W\n"
            "      --head-to-head N  rounds of gridtune warm, settled and the best peer after the timed\n"
            "                        ones, which chose that peer (default %d; 0: none)\n"
            "  -l, --list            list the benchmarks and exit\n"
            "  -h, --help            this text\n"
            "environment: GRIDTUNE_DAEMON, the gridtuned to start (default: the build tree's, else the\n"
            "installed one); OMP_* variables other than the schedule apply to the OpenMP twins.\n",
            DEFAULT_OVERHEAD_REPS, DEFAULT_DUEL_ROUNDS);
}

static int parse_chunks(peer_options *o, const char *text)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", text);
    o->nchunks = 0;
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        uint32_t v;
        if (o->nchunks == MAX_CHUNKS) {
            say("--chunks: at most %d sizes", MAX_CHUNKS);
            return -1;
        }
        if (gt_bench_number_parse("--chunks", p, 1, 1u << 20, &v) != 0)
            return -1;
        o->chunks[o->nchunks++] = v;
    }
    if (!o->nchunks) {
        say("--chunks \"%s\": expected sizes separated by commas, e.g. " DEFAULT_CHUNKS, text);
        return -1;
    }
    return 0;
}

enum { OPT_CHUNKS = 256, OPT_OVERHEAD_REPS, OPT_ONLY_OVERHEAD, OPT_NO_POCL, OPT_GROUP, OPT_DUEL };

/* --group WxH: each side 1 to MAX_GROUP_ITEMS, and so is their product. */
#define MAX_GROUP_ITEMS 4096
static int parse_group(peer_options *o, const char *text)
{
    char w[16], h[16];
    const char *x = strchr(text, 'x');
    if (!x || (size_t)(x - text) >= sizeof w || strlen(x + 1) >= sizeof h) {
        say("--group %s: expected WxH, for example 256x1", text);
        return -1;
    }
    memcpy(w, text, (size_t)(x - text));
    w[x - text] = '\0';
    strcpy(h, x + 1);
    if (gt_bench_number_parse("--group width", w, 1, MAX_GROUP_ITEMS, &o->group[0]) != 0 ||
        gt_bench_number_parse("--group height", h, 1, MAX_GROUP_ITEMS, &o->group[1]) != 0)
        return -1;
    if (o->group[0] * o->group[1] > MAX_GROUP_ITEMS) {
        say("--group %s: %u work-items in a workgroup; at most %d", text, o->group[0] * o->group[1],
            MAX_GROUP_ITEMS);
        return -1;
    }
    return 0;
}

static int flag(int c, const char *arg, void *ctx)
{
    peer_options *o = ctx;
    uint32_t v;
    switch (c) {
    case OPT_CHUNKS:
        return parse_chunks(o, arg);
    case OPT_OVERHEAD_REPS:
        if (gt_bench_number_parse("--overhead-reps", arg, 1, MAX_OVERHEAD_REPS, &v) != 0)
            return -1;
        o->overhead_reps = v;
        return 0;
    case OPT_ONLY_OVERHEAD:
        o->only_overhead = true;
        return 0;
    case OPT_NO_POCL:
        o->pocl = false;
        return 0;
    case OPT_GROUP:
        return parse_group(o, arg);
    case OPT_DUEL:
        if (gt_bench_number_parse("--head-to-head", arg, 0, GT_BENCH_MAX_REPS, &v) != 0)
            return -1;
        o->duel_rounds = v;
        return 0;
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, peer_options *o)
{
    static const struct option own[] = {{"chunks", required_argument, 0, OPT_CHUNKS},
                                        {"overhead-reps", required_argument, 0, OPT_OVERHEAD_REPS},
                                        {"only-overhead", no_argument, 0, OPT_ONLY_OVERHEAD},
                                        {"no-pocl", no_argument, 0, OPT_NO_POCL},
                                        {"group", required_argument, 0, OPT_GROUP},
                                        {"head-to-head", required_argument, 0, OPT_DUEL},
                                        {0}};
    *o = (peer_options){.flags = {.reps = DEFAULT_REPS},
                        .overhead_reps = DEFAULT_OVERHEAD_REPS,
                        .pocl = true,
                        .duel_rounds = DEFAULT_DUEL_ROUNDS};
    parse_chunks(o, DEFAULT_CHUNKS);
    const gt_bench_cli cli = {.options = own, .flag = flag, .usage = usage, .list = gt_bench_list};
    int rc = gt_bench_cli_parse(&cli, argc, argv, &o->flags, o);
    if (rc)
        return rc > 0 ? 0 : 2;
    if (o->only_overhead && optind < argc) {
        say("--only-overhead runs no benchmark, but %s was named", argv[optind]);
        return 2;
    }
    if (!o->only_overhead && gt_bench_operands(argc, argv, o->flags.size, NULL, o->benches, &o->nbenches) != 0)
        return 2;
    return -1;
}

/* ---- one contender's run -------------------------------------------------------------------- */

static bool is_copy(const gt_seed_bench *b)
{
    return strcmp(b->name, "copy_rows") == 0 || strcmp(b->name, "copy_cols") == 0;
}

/* The benchmark that only reads its input: memcpy then copies the input elsewhere, and gives
 * the read bandwidth it is measured against. */
static bool is_read_only(const gt_seed_bench *b)
{
    return strcmp(b->name, "reduce") == 0;
}

/* The decision of a launch's report. */
static void note_decision(const char *report, char *winner, char *source, double *analysis)
{
    gt_report_summary s;
    gt_report_read_text(report, &s);
    snprintf(winner, TEXT_MAX, "%s", s.winner);
    if (source)
        snprintf(source, 16, "%s", s.source);
    if (analysis)
        *analysis = s.analysis_fraction;
}

static int gridtune_run(cli_seed *s, peer_result *pr, enum contender k, unsigned round, uint64_t *ns)
{
    char what[128], *report = NULL;
    snprintf(what, sizeof what, "%s, round %u, gridtune %s", pr->bench->name, round, contenders[k].label);
    gt_launch_options opts = gt_launch_options_default();
    if (k == C_DEFAULT || k == C_SETTLED) {
        opts.schedule = k == C_DEFAULT ? NULL : pr->settled_winner; /* tuning off, no schedule: the default */
        opts.tuning = GT_TUNING_OFF;
    } else {
        opts.tuning = k == C_COLD ? GT_TUNING_RETUNE : GT_TUNING_AUTO;
    }
    if (cli_seed_run(s, what, &opts, &report, ns) != 0)
        return -1;
    if (k == C_COLD)
        note_decision(report, pr->cold_winner, NULL, &pr->cold_analysis);
    if (k == C_WARM) {
        note_decision(report, pr->warm_winner, pr->warm_source, NULL);
        pr->wisdom_misses += strcmp(pr->warm_source, "wisdom") != 0;
    }
    free(report);
    return 0;
}

/* A peer's run over the case's own buffers: poisoned, timed, checked. */
static int peer_run_once(const peer_run *pc, const peer_result *pr, gt_seed_case *sc, gt_ocl_case *oc, enum contender k, unsigned chunk,
                         unsigned round, uint64_t *ns)
{
    char err[512] = "";
    gt_seed_case_poison_output(sc);
    uint64_t t0 = gt_clock_ns();
    int rc = 0;
    if (k == C_POCL)
        rc = gt_ocl_case_run(oc, err, sizeof err);
    else if (k == C_MEMCPY && pr->scratch)
        gt_memcpy_probe(pr->scratch, sc->buffers[1], sc->buffer_bytes[1], pc->threads);
    else if (k == C_MEMCPY)
        gt_memcpy_probe(sc->buffers[sc->output], sc->buffers[1], sc->buffer_bytes[sc->output], pc->threads);
    else
        rc = gt_omp_twin_run(sc, (gt_omp_kind)(k - C_OMP_STATIC), chunk, pc->threads, err, sizeof err);
    *ns = gt_clock_ns() - t0;
    /* the reduction's memcpy writes scratch, not the output */
    if (rc == 0 && !(k == C_MEMCPY && pr->scratch) && gt_seed_case_verify(sc, err, sizeof err) != 0)
        rc = -1;
    if (rc != 0)
        say("%s, round %u, %s: %s", sc->bench->name, round, contenders[k].label, err);
    return rc ? -1 : 0;
}

/* ---- one benchmark ---------------------------------------------------------------------------- */

/* Each OpenMP kind's chunk: the best of CHUNK_TRIES checked runs per chunk size. */
static int choose_chunks(const peer_run *pc, gt_seed_case *sc, peer_result *pr)
{
    for (int kind = 0; kind < GT_OMP_KINDS; kind++) {
        unsigned best = 0;
        for (unsigned i = 0; i < pc->o->nchunks; i++) {
            pr->chunk_ns[kind][i] = UINT64_MAX;
            for (int t = 0; t < CHUNK_TRIES; t++) {
                uint64_t ns;
                if (peer_run_once(pc, pr, sc, NULL, (enum contender)(C_OMP_STATIC + kind), pc->o->chunks[i], 0, &ns) != 0)
                    return -1;
                pr->chunk_ns[kind][i] = ns < pr->chunk_ns[kind][i] ? ns : pr->chunk_ns[kind][i];
            }
            best = pr->chunk_ns[kind][i] < pr->chunk_ns[kind][best] ? i : best;
        }
        pr->chunk[kind] = pc->o->chunks[best];
    }
    return 0;
}

/* Slot k of a round: 0 the cold and warm pair, then settled, default, the OpenMP kinds, pocl,
   memcpy. */
static const enum contender slots[] = {C_COLD, C_SETTLED, C_DEFAULT, C_OMP_STATIC, C_OMP_DYNAMIC, C_OMP_GUIDED, C_POCL, C_MEMCPY};
#define NSLOTS (sizeof slots / sizeof slots[0])

/* SETTLE_NS of quiet. */
static void settle(void)
{
    struct timespec t = {0, SETTLE_NS};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static int run_slot(const peer_run *pc, cli_seed *s, gt_ocl_case *oc, peer_result *pr, enum contender k,
                    unsigned round)
{
    uint64_t ns, warm_ns;
    int rc;
    if (round)
        settle();
    if (k == C_COLD || k == C_DEFAULT || k == C_SETTLED) {
        rc = gridtune_run(s, pr, k, round, &ns);
        if (rc == 0 && k == C_COLD && (rc = gridtune_run(s, pr, C_WARM, round, &warm_ns)) == 0 && round)
            pr->t[C_WARM].ns[pr->t[C_WARM].n++] = warm_ns;
    } else {
        unsigned chunk = k >= C_OMP_STATIC && k <= C_OMP_GUIDED ? pr->chunk[k - C_OMP_STATIC] : 0;
        rc = peer_run_once(pc, pr, s->sc, oc, k, chunk, round, &ns);
    }
    if (rc == 0 && round)
        pr->t[k].ns[pr->t[k].n++] = ns;
    return rc;
}

static int run_rounds(const peer_run *pc, cli_seed *s, gt_ocl_case *oc, peer_result *pr)
{
    unsigned rounds = pc->o->flags.reps;
    for (unsigned round = 1; round <= rounds; round++) {
        for (size_t i = 0; i < NSLOTS; i++) {
            enum contender k = slots[gt_contest_turn(round, rounds, NSLOTS, i)];
            if (pr->ran[k] && run_slot(pc, s, oc, pr, k, round) != 0)
                return -1;
        }
    }
    for (int k = 0; k < NCONT; k++)
        if (pr->ran[k])
            gt_bench_times_summarise(&pr->t[k]);
    return 0;
}

/* The peer (OpenMP or pocl) with the lowest median; NCONT when none ran. */
static enum contender best_peer(const peer_result *pr)
{
    enum contender best = NCONT;
    for (enum contender k = C_OMP_STATIC; k <= C_POCL; k++)
        if (pr->ran[k] && (best == NCONT || pr->t[k].median_ns < pr->t[best].median_ns))
            best = k;
    return best;
}

/* The head to head (the file's comment says why): --head-to-head rounds of warm, settled and
   the best peer of the timed rounds, each alone, in an order that rotates. */
static int run_duel(const peer_run *pc, cli_seed *s, gt_ocl_case *oc, peer_result *pr)
{
    unsigned rounds = pc->o->duel_rounds;
    pr->duel_peer = best_peer(pr);
    if (rounds == 0 || pr->duel_peer == NCONT)
        return 0;
    enum contender k_of[NDUEL] = {[D_WARM] = C_WARM, [D_SETTLED] = C_SETTLED, [D_PEER] = pr->duel_peer};
    enum contender peer = pr->duel_peer;
    unsigned chunk = peer >= C_OMP_STATIC && peer <= C_OMP_GUIDED ? pr->chunk[peer - C_OMP_STATIC] : 0;
    for (unsigned round = 1; round <= rounds; round++) {
        say("%s: head to head %u/%u: gridtune warm, settled and %s", pr->bench->name, round, rounds,
            contenders[peer].label);
        uint64_t ns;
        for (size_t i = 0; i < NDUEL; i++) {
            size_t d = gt_contest_turn(round, rounds, NDUEL, i);
            settle();
            int rc = d == D_PEER ? peer_run_once(pc, pr, s->sc, oc, peer, chunk, round, &ns)
                                 : gridtune_run(s, pr, k_of[d], round, &ns);
            if (rc != 0)
                return -1;
            pr->duel[d].ns[pr->duel[d].n++] = ns;
        }
    }
    for (size_t d = 0; d < NDUEL; d++)
        gt_bench_times_summarise(&pr->duel[d]);
    return 0;
}

/* --group: the case's workgroup shape, which both gridtune and pocl launch with. */
static int set_group(const peer_options *o, gt_seed_case *sc)
{
    gt_range *r = &sc->range;
    for (unsigned d = 0; d < r->dims && d < 2; d++) {
        if (r->global[d] % o->group[d]) {
            say("%s: --group %ux%u does not divide the %zu x %zu range", sc->bench->name, o->group[0], o->group[1],
                r->global[0], r->global[1]);
            return -1;
        }
        r->local[d] = o->group[d];
    }
    return 0;
}

/* The learning daemon launches the benchmark until its decision settles, then once more: that
   launch runs the settled winner alone and names it. Its buffers are its own, freed before the
   timed daemon's are made; a first launch of the default schedule, outside the wisdom, touches
   them, as the timed daemon's warm-up round does, so that no learning launch pays first
   touches on one share and not on the other. */
static int learn_settled(const peer_run *pc, const gt_seed_bench *b, peer_result *pr)
{
    cli_seed s;
    int rc = cli_seed_open(pc->learner, pc->module, b, pc->o->flags.size, &s);
    if (rc == 0 && pc->o->group[0])
        rc = set_group(pc->o, s.sc);
    uint64_t touch_ns;
    if (rc == 0)
        rc = gridtune_run(&s, pr, C_DEFAULT, 0, &touch_ns);
    bool settled_before = false;
    for (unsigned i = 0; rc == 0 && i < LEARN_LAUNCHES && !pr->settled; i++) {
        char what[128], *report = NULL;
        uint64_t ns;
        snprintf(what, sizeof what, "%s, learning launch %u", b->name, i + 1);
        gt_launch_options opts = gt_launch_options_default();
        rc = cli_seed_run(&s, what, &opts, &report, &ns);
        if (rc == 0) {
            gt_report_summary sum;
            gt_report_read_text(report, &sum);
            snprintf(pr->settled_winner, TEXT_MAX, "%s", sum.winner);
            pr->learn_launches = i + 1;
            /* this launch ran the settled winner alone, or there was nothing to refine (a launch
               too small to analyse has no refinement) */
            pr->settled = settled_before || strcmp(sum.refine_state, "?") == 0;
            settled_before = strcmp(sum.refine_state, "settled") == 0;
            say("%s: learning launch %u, %.1f ms, %s: %s", b->name, i + 1, gt_bench_ms(ns), sum.source, sum.reason);
        }
        free(report);
    }
    cli_seed_close(&s);
    if (rc == 0 && !pr->settled)
        say("%s: the learning daemon's decision did not settle in %u launches; settled runs its last winner",
            b->name, LEARN_LAUNCHES);
    return rc ? -1 : 0;
}

static int run_bench(const peer_run *pc, const gt_seed_bench *b, peer_result *pr)
{
    *pr = (peer_result){.bench = b, .duel_peer = NCONT};
    cli_seed s = {0};
    gt_ocl_case *oc = NULL;
    char err[512];
    int rc = learn_settled(pc, b, pr);
    if (rc == 0)
        rc = cli_seed_open(pc->c, pc->module, b, pc->o->flags.size, &s);
    if (rc == 0 && pc->o->group[0])
        rc = set_group(pc->o, s.sc);
    if (rc == 0) {
        pr->n = s.sc->n;
        pr->group[0] = s.sc->range.local[0];
        pr->group[1] = s.sc->range.local[1];
        for (int k = 0; k < NCONT; k++)
            pr->ran[k] = k != C_POCL && k != C_MEMCPY;
        pr->ran[C_MEMCPY] = is_copy(b) || is_read_only(b);
        if (is_copy(b))
            pr->bytes_copied = 2 * (uint64_t)s.sc->buffer_bytes[s.sc->output];
        if (is_read_only(b)) {
            pr->bytes_read = s.sc->buffer_bytes[1];
            /* huge pages, as the input has: with small ones, the first copies after the faults
               ran 2-50x slower on this VM than the later ones (bench/results/reduce-memcpy-2026-11-29/) */
            if (!(pr->scratch = gt_seed_buffer_alloc(pr->bytes_read))) {
                say("%s: no memory for memcpy's %zu-byte destination", b->name, s.sc->buffer_bytes[1]);
                rc = -1;
            } else {
                memset(pr->scratch, 0, pr->bytes_read); /* its page faults, before any timing */
            }
        }
        if (pc->ocl && gt_ocl_case_open(pc->ocl, s.sc, &oc, err, sizeof err) != 0)
            say("%s: pocl left out: %s", b->name, err);
        pr->ran[C_POCL] = oc != NULL;
        /* the warm-up round: every contender once, checked, untimed */
        for (size_t i = 0; rc == 0 && i < NSLOTS; i++)
            if (pr->ran[slots[i]] && slots[i] < C_OMP_STATIC)
                rc = run_slot(pc, &s, oc, pr, slots[i], 0);
        uint64_t ns;
        if (rc == 0)
            rc = choose_chunks(pc, s.sc, pr);
        for (enum contender k = C_POCL; rc == 0 && k <= C_MEMCPY; k++)
            if (pr->ran[k])
                rc = peer_run_once(pc, pr, s.sc, oc, k, 0, 0, &ns);
    }
    if (rc == 0) {
        say("%s  n=%zu  workgroup %zux%zu  warm-up done: gridtune chose %s; OpenMP chunks static %u, dynamic %u, "
            "guided %u",
            b->name, pr->n, pr->group[0], pr->group[1], pr->cold_winner, pr->chunk[0], pr->chunk[1], pr->chunk[2]);
        rc = run_rounds(pc, &s, oc, pr);
    }
    if (rc == 0)
        rc = run_duel(pc, &s, oc, pr);
    gt_ocl_case_close(oc);
    cli_seed_close(&s);
    free(pr->scratch);
    pr->scratch = NULL;
    return rc;
}

/* ---- launch overhead ------------------------------------------------------------------------- */

static int build_empty(gt_client *c, gt_kernel **k)
{
    if (gt_kernel_build(c, gt_rt_empty_source, "empty", "-O2", k) != 0) {
        say("building the empty kernel: %s", gt_last_error(c));
        return -1;
    }
    return 0;
}

/* The frame sizes of an empty launch, from a short-lived gridtuned that traces its protocol. */
static int learn_frame_sizes(gt_private_daemon *d, overhead *ov)
{
    gt_client *c;
    gt_kernel *k = NULL;
    uint64_t ns[3];
    if (gt_private_daemon_start(gt_private_daemon_program(), 0, true, NULL, d, &c) != 0)
        return -1;
    int rc = build_empty(c, &k);
    for (int path = 0; rc == 0 && path < GT_RT_PATHS; path++)
        rc = gt_rt_gridtuned(c, k, (gt_rt_path)path, 3, ns);
    gt_kernel_release(k);
    gt_disconnect(c);
    if (gt_private_daemon_stop(d) != 0)
        rc = -1;
    return rc ? rc : gt_rt_frame_sizes(d->trace, ov->frames);
}

/* One block of round trips of one overhead figure. */
static int overhead_block(const peer_run *pc, const overhead *ov, gt_kernel *k, enum overhead_figure which,
                          gt_bench_times *b)
{
    char err[512];
    if (which == OV_ONE_TRIP || which == OV_TWO_REQUESTS)
        return gt_rt_gridtuned(pc->c, k, which == OV_ONE_TRIP ? GT_RT_ONE_TRIP : GT_RT_TWO_REQUESTS, b->n, b->ns);
    if (which == OV_FLOOR_ONE_TRIP || which == OV_FLOOR_TWO_REQUESTS)
        return gt_rt_pingpong(&ov->frames[which == OV_FLOOR_ONE_TRIP ? GT_RT_ONE_TRIP : GT_RT_TWO_REQUESTS], b->n,
                              b->ns);
    if (gt_ocl_empty_roundtrip(pc->ocl, b->n, b->ns, err, sizeof err) != 0) {
        say("pocl's empty launch: %s", err);
        return -1;
    }
    return 0;
}

/* The overhead figures side by side: OVERHEAD_BLOCKS rounds, each running a block of
 * reps / OVERHEAD_BLOCKS round trips of every figure in a rotating order; a block's median is
 * one sample of its figure. */
static int measure_overhead(const peer_run *pc, overhead *ov)
{
    gt_kernel *k = NULL;
    if (build_empty(pc->c, &k) != 0)
        return -1;
    unsigned block = pc->o->overhead_reps >= OVERHEAD_BLOCKS ? pc->o->overhead_reps / OVERHEAD_BLOCKS : 1;
    for (int i = 0; i < NOVERHEAD; i++)
        ov->ran[i] = i != OV_POCL || pc->ocl != NULL;
    snprintf(ov->pocl_why, sizeof ov->pocl_why, "%s", pc->ocl ? "" : pc->pocl_why);
    int rc = 0;
    for (unsigned round = 0; rc == 0 && round < OVERHEAD_BLOCKS; round++)
        for (unsigned j = 0; rc == 0 && j < NOVERHEAD; j++) {
            enum overhead_figure which = (round + j) % NOVERHEAD;
            gt_bench_times b = {.n = block};
            if (!ov->ran[which])
                continue;
            if ((rc = overhead_block(pc, ov, k, which, &b)) == 0) {
                gt_bench_times_summarise(&b);
                ov->t[which].ns[ov->t[which].n++] = b.median_ns;
            }
        }
    for (int i = 0; i < NOVERHEAD; i++)
        if (ov->t[i].n)
            gt_bench_times_summarise(&ov->t[i]);
    gt_kernel_release(k);
    return rc;
}

/* ---- output -------------------------------------------------------------------------------- */

static double ratio(uint64_t a, uint64_t b)
{
    return a && b ? (double)a / (double)b : 0;
}

/* The head-to-head rounds in which warm took less time than the peer. */
static unsigned warm_faster_rounds(const peer_result *p)
{
    unsigned n = 0;
    for (unsigned r = 0; r < p->duel[D_WARM].n; r++)
        n += p->duel[D_WARM].ns[r] < p->duel[D_PEER].ns[r];
    return n;
}

/* The head-to-head rounds' table, when they ran. */
static void print_duels(const peer_options *o, const peer_result *r, unsigned n)
{
    if (o->duel_rounds == 0)
        return;
    printf("\nhead to head: gridtune warm (the last round's pick, the warm winner above) and settled against\n"
           "the best peer above, %u rounds more, each alone, in an order that rotates; medians, ms (the\n"
           "table's best peer is the lowest of several noisy medians: these runs chose nothing)\n",
           o->duel_rounds);
    printf("%-14s %12s %9s %9s %9s %10s %13s %12s\n", "benchmark", "best peer", "warm", "settled", "peer",
           "peer/warm", "peer/settled", "warm faster");
    for (unsigned i = 0; i < n; i++) {
        const peer_result *p = &r[i];
        if (p->duel_peer == NCONT || p->duel[D_WARM].n == 0)
            continue;
        char faster[16];
        snprintf(faster, sizeof faster, "%u/%u", warm_faster_rounds(p), p->duel[D_WARM].n);
        printf("%-14s %12s %9.1f %9.1f %9.1f %10.2f %13.2f %12s\n", p->bench->name, contenders[p->duel_peer].label,
               gt_bench_ms(p->duel[D_WARM].median_ns), gt_bench_ms(p->duel[D_SETTLED].median_ns),
               gt_bench_ms(p->duel[D_PEER].median_ns), ratio(p->duel[D_PEER].median_ns, p->duel[D_WARM].median_ns),
               ratio(p->duel[D_PEER].median_ns, p->duel[D_SETTLED].median_ns), faster);
    }
}

static void print_tables(const peer_options *o, const peer_result *r, unsigned n)
{
    printf("\nmedians of %u rounds, ms (OpenMP chunk in brackets)\n", o->flags.reps);
    printf("%-14s %6s", "benchmark", "n");
    for (int k = 0; k < NCONT; k++)
        printf(" %12s", contenders[k].label);
    printf("\n");
    for (unsigned i = 0; i < n; i++) {
        printf("%-14s %6zu", r[i].bench->name, r[i].n);
        for (int k = 0; k < NCONT; k++) {
            char cell[32] = "-";
            if (r[i].ran[k] && k >= C_OMP_STATIC && k <= C_OMP_GUIDED)
                snprintf(cell, sizeof cell, "%.1f [%u]", gt_bench_ms(r[i].t[k].median_ns),
                         r[i].chunk[k - C_OMP_STATIC]);
            else if (r[i].ran[k])
                snprintf(cell, sizeof cell, "%.1f", gt_bench_ms(r[i].t[k].median_ns));
            printf(" %12s", cell);
        }
        printf("\n");
    }
    printf("\nratios: contender median / gridtune warm median (above 1: warm is faster)\n");
    printf("%-14s", "benchmark");
    for (int k = 0; k < NCONT; k++)
        if (k != C_WARM)
            printf(" %12s", contenders[k].label);
    printf(" %12s  %s\n", "best peer", "warm winner");
    for (unsigned i = 0; i < n; i++) {
        const peer_result *p = &r[i];
        printf("%-14s", p->bench->name);
        for (int k = 0; k < NCONT; k++)
            if (k != C_WARM) {
                char cell[16] = "-";
                if (p->ran[k])
                    snprintf(cell, sizeof cell, "%.2f", ratio(p->t[k].median_ns, p->t[C_WARM].median_ns));
                printf(" %12s", cell);
            }
        enum contender b = best_peer(p);
        char cell[32] = "-";
        if (b != NCONT)
            snprintf(cell, sizeof cell, "%.2f %s", ratio(p->t[b].median_ns, p->t[C_WARM].median_ns),
                     contenders[b].label);
        printf(" %12s  %s\n", cell, p->warm_winner);
    }
    printf("\nsettled: the winner after launches that keep learning (a second gridtuned, refinement on)\n");
    printf("%-14s %9s %12s %18s  %s\n", "benchmark", "launches", "over warm", "best peer/settled", "settled winner");
    for (unsigned i = 0; i < n; i++) {
        const peer_result *p = &r[i];
        enum contender b = best_peer(p);
        char launches[16], cell[32] = "-";
        snprintf(launches, sizeof launches, "%u%s", p->learn_launches, p->settled ? "" : "+");
        if (b != NCONT)
            snprintf(cell, sizeof cell, "%.2f %s", ratio(p->t[b].median_ns, p->t[C_SETTLED].median_ns),
                     contenders[b].label);
        printf("%-14s %9s %12.2f %18s  %s\n", p->bench->name, launches,
               ratio(p->t[C_SETTLED].median_ns, p->t[C_WARM].median_ns), cell, p->settled_winner);
    }
    printf("(launches: to settle, the one that ran the settled winner alone included; + not settled)\n");
    print_duels(o, r, n);
    for (unsigned i = 0; i < n; i++)
        if (r[i].bytes_copied) {
            const peer_result *p = &r[i];
            printf("%s: gridtune warm %.1f GB/s, settled %.1f GB/s, memcpy %.1f GB/s: warm %.0f%%, settled %.0f%% of "
                   "memcpy (read plus write)\n",
                   p->bench->name, (double)p->bytes_copied / (double)p->t[C_WARM].median_ns,
                   (double)p->bytes_copied / (double)p->t[C_SETTLED].median_ns,
                   (double)p->bytes_copied / (double)p->t[C_MEMCPY].median_ns,
                   100.0 * ratio(p->t[C_MEMCPY].median_ns, p->t[C_WARM].median_ns),
                   100.0 * ratio(p->t[C_MEMCPY].median_ns, p->t[C_SETTLED].median_ns));
        }
    for (unsigned i = 0; i < n; i++)
        if (r[i].bytes_read) {
            const peer_result *p = &r[i];
            char pocl[32] = "-";
            if (p->ran[C_POCL])
                snprintf(pocl, sizeof pocl, "%.1f", (double)p->bytes_read / (double)p->t[C_POCL].median_ns);
            printf("%s: reads at gridtune warm %.1f GB/s, memcpy %.1f GB/s, pocl %s GB/s: gridtune %.0f%% of memcpy's "
                   "read bandwidth\n",
                   p->bench->name, (double)p->bytes_read / (double)p->t[C_WARM].median_ns,
                   (double)p->bytes_read / (double)p->t[C_MEMCPY].median_ns, pocl,
                   100.0 * ratio(p->t[C_MEMCPY].median_ns, p->t[C_WARM].median_ns));
        }
}

static void print_frames(const gt_rt_frames *f)
{
    printf("   frames of");
    for (unsigned i = 0; i < f->n; i += 2)
        printf("%s %zu/%zu", i ? " and" : "", f->size[i], f->size[i + 1]);
    printf(" bytes");
}

static void print_overhead(const overhead *ov)
{
    printf("\nlaunch round trip of an empty kernel, medians of %u blocks' medians, us\n", ov->t[OV_ONE_TRIP].n);
    for (int i = 0; i < NOVERHEAD; i++) {
        if (!ov->ran[i]) {
            printf("  %-46s        -  (%s)\n", overhead_figures[i].label, ov->pocl_why);
            continue;
        }
        printf("  %-46s %8.1f", overhead_figures[i].label, (double)ov->t[i].median_ns / 1e3);
        if (i == OV_FLOOR_ONE_TRIP || i == OV_FLOOR_TWO_REQUESTS)
            print_frames(&ov->frames[i == OV_FLOOR_ONE_TRIP ? GT_RT_ONE_TRIP : GT_RT_TWO_REQUESTS]);
        printf("\n");
    }
    const gt_bench_times *t = ov->t;
    printf("  one trip / its floor: %.2fx   two requests / their floor: %.2fx\n",
           ratio(t[OV_ONE_TRIP].median_ns, t[OV_FLOOR_ONE_TRIP].median_ns),
           ratio(t[OV_TWO_REQUESTS].median_ns, t[OV_FLOOR_TWO_REQUESTS].median_ns));
    if (ov->ran[OV_POCL])
        printf("  one trip / pocl: %.2fx   two requests / pocl: %.2fx\n",
               ratio(t[OV_ONE_TRIP].median_ns, t[OV_POCL].median_ns),
               ratio(t[OV_TWO_REQUESTS].median_ns, t[OV_POCL].median_ns));
}

static cJSON *bench_json(const peer_result *p)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "benchmark", p->bench->name);
    cJSON_AddNumberToObject(b, "n", (double)p->n);
    cJSON *group = cJSON_AddArrayToObject(b, "workgroup");
    for (int d = 0; d < 2; d++)
        cJSON_AddItemToArray(group, cJSON_CreateNumber((double)p->group[d]));
    cJSON_AddStringToObject(b, "cold_winner", p->cold_winner);
    cJSON_AddStringToObject(b, "warm_winner", p->warm_winner);
    cJSON_AddStringToObject(b, "settled_winner", p->settled_winner);
    cJSON_AddNumberToObject(b, "learn_launches", p->learn_launches);
    cJSON_AddBoolToObject(b, "settled", p->settled);
    cJSON_AddNumberToObject(b, "cold_analysis_fraction", p->cold_analysis);
    cJSON_AddNumberToObject(b, "warm_not_from_wisdom", p->wisdom_misses);
    cJSON *cs = cJSON_AddObjectToObject(b, "contenders");
    for (int k = 0; k < NCONT; k++) {
        if (!p->ran[k])
            continue;
        cJSON *c = cJSON_AddObjectToObject(cs, contenders[k].key);
        gt_bench_times_json(c, &p->t[k]);
        cJSON_AddNumberToObject(c, "over_warm", ratio(p->t[k].median_ns, p->t[C_WARM].median_ns));
        if (k >= C_OMP_STATIC && k <= C_OMP_GUIDED) {
            int kind = k - C_OMP_STATIC;
            cJSON_AddNumberToObject(c, "chunk", p->chunk[kind]);
            cJSON *search = cJSON_AddArrayToObject(c, "chunk_search_best_ns");
            for (unsigned i = 0; i < MAX_CHUNKS && p->chunk_ns[kind][i]; i++)
                cJSON_AddItemToArray(search, cJSON_CreateNumber((double)p->chunk_ns[kind][i]));
        }
    }
    enum contender best = best_peer(p);
    if (best != NCONT) {
        cJSON_AddStringToObject(b, "best_peer", contenders[best].key);
        cJSON_AddNumberToObject(b, "best_peer_over_settled",
                                ratio(p->t[best].median_ns, p->t[C_SETTLED].median_ns));
    }
    if (p->duel_peer != NCONT && p->duel[D_WARM].n) {
        cJSON *d = cJSON_AddObjectToObject(b, "head_to_head");
        cJSON_AddStringToObject(d, "peer", contenders[p->duel_peer].key);
        gt_bench_times_json(cJSON_AddObjectToObject(d, "gridtune_warm"), &p->duel[D_WARM]);
        gt_bench_times_json(cJSON_AddObjectToObject(d, "gridtune_settled"), &p->duel[D_SETTLED]);
        gt_bench_times_json(cJSON_AddObjectToObject(d, "peer_runs"), &p->duel[D_PEER]);
        cJSON_AddNumberToObject(d, "peer_over_warm", ratio(p->duel[D_PEER].median_ns, p->duel[D_WARM].median_ns));
        cJSON_AddNumberToObject(d, "peer_over_settled",
                                ratio(p->duel[D_PEER].median_ns, p->duel[D_SETTLED].median_ns));
        cJSON_AddNumberToObject(d, "warm_faster_rounds", warm_faster_rounds(p));
    }
    if (p->bytes_copied)
        cJSON_AddNumberToObject(b, "bytes_copied", (double)p->bytes_copied);
    if (p->bytes_read)
        cJSON_AddNumberToObject(b, "bytes_read", (double)p->bytes_read);
    return b;
}

static cJSON *overhead_json(const overhead *ov)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < NOVERHEAD; i++)
        if (ov->ran[i])
            gt_bench_times_json(cJSON_AddObjectToObject(o, overhead_figures[i].key), &ov->t[i]);
    if (!ov->ran[OV_POCL])
        cJSON_AddStringToObject(o, "pocl_unavailable", ov->pocl_why);
    static const char *const frame_keys[GT_RT_PATHS] = {"frame_bytes_one_trip", "frame_bytes_two_requests"};
    for (int p = 0; p < GT_RT_PATHS; p++) {
        cJSON *frames = cJSON_AddArrayToObject(o, frame_keys[p]);
        for (unsigned i = 0; i < ov->frames[p].n; i++)
            cJSON_AddItemToArray(frames, cJSON_CreateNumber((double)ov->frames[p].size[i]));
    }
    const gt_bench_times *t = ov->t;
    cJSON_AddNumberToObject(o, "one_trip_over_pingpong", ratio(t[OV_ONE_TRIP].median_ns, t[OV_FLOOR_ONE_TRIP].median_ns));
    cJSON_AddNumberToObject(o, "two_requests_over_pingpong",
                            ratio(t[OV_TWO_REQUESTS].median_ns, t[OV_FLOOR_TWO_REQUESTS].median_ns));
    if (ov->ran[OV_POCL])
        cJSON_AddNumberToObject(o, "one_trip_over_pocl", ratio(t[OV_ONE_TRIP].median_ns, t[OV_POCL].median_ns));
    cJSON_AddStringToObject(o, "method", "times are medians of blocks of round trips, each block's own median one sample");
    return o;
}

static int write_json(const peer_options *o, const peer_run *pc, const peer_result *r, unsigned n,
                      const overhead *ov)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "gridtune-peer-bench");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddNumberToObject(root, "rounds", o->flags.reps);
    cJSON_AddNumberToObject(root, "threads", pc->threads);
    cJSON_AddStringToObject(root, "pocl", pc->ocl ? gt_ocl_device_name(pc->ocl) : pc->pocl_why);
    cJSON *chunks = cJSON_AddArrayToObject(root, "omp_chunks");
    for (unsigned i = 0; i < o->nchunks; i++)
        cJSON_AddItemToArray(chunks, cJSON_CreateNumber(o->chunks[i]));
    cJSON_AddStringToObject(root, "note", "one run on this machine; compare within this run only");
    cJSON *list = cJSON_AddArrayToObject(root, "benchmarks");
    for (unsigned i = 0; i < n; i++)
        cJSON_AddItemToArray(list, bench_json(&r[i]));
    cJSON_AddItemToObject(root, "overhead", overhead_json(ov));
    return gt_bench_json_write(root, o->flags.json);
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    peer_options o;
    int status = parse(argc, argv, &o);
    if (status >= 0)
        return status;
    signal(SIGPIPE, SIG_IGN); /* a ping-pong peer that died is an error, not a signal */
    const char *module = o.flags.module; /* gt_bench_cli_parse's default when not given */
    static peer_result results[GT_BENCH_MAX_BENCHES];
    static overhead ov;
    gt_private_daemon d = {0}, learner = {0};
    peer_run pc = {.o = &o, .module = module, .pocl_why = "left out with --no-pocl"};
    char pocl_err[TEXT_MAX] = "";
    int rc = learn_frame_sizes(&d, &ov);
    /* warm is the analysis's winner alone: no contender on a share of it; the learning daemon
       (refinement on) finds the settled winner (gridtune-tune-bench measures the launches that
       keep learning themselves) */
    static const char *const no_refine[] = {"--refine", "off", NULL};
    if (rc == 0)
        rc = gt_private_daemon_start(gt_private_daemon_program(), o.flags.workers, false, no_refine, &d, &pc.c);
    if (rc == 0 && !o.only_overhead)
        rc = gt_private_daemon_start(gt_private_daemon_program(), o.flags.workers, false, NULL, &learner, &pc.learner);
    if (rc == 0) {
        pc.threads = (unsigned)gt_private_daemon_status_number(pc.c, "workers");
        if (o.pocl && gt_ocl_open(&pc.ocl, pocl_err, sizeof pocl_err) != 0) {
            say("pocl left out: %s", pocl_err);
            pc.pocl_why = pocl_err;
        }
        char huge[24];
        gt_private_daemon_huge_pages(pc.c, huge, sizeof huge);
        say("gridtuned pid %d, %u workers, shared buffers' huge pages: %s; OpenMP %u threads (private memory, "
            "huge pages asked for); pocl: %s",
            (int)d.pid, pc.threads, huge, pc.threads, pc.ocl ? gt_ocl_device_name(pc.ocl) : pc.pocl_why);
    }
    unsigned done = 0;
    for (; rc == 0 && done < o.nbenches; done++)
        rc = run_bench(&pc, o.benches[done], &results[done]);
    if (rc == 0)
        rc = measure_overhead(&pc, &ov);
    if (rc == 0) {
        if (done)
            print_tables(&o, results, done);
        print_overhead(&ov);
        if (o.flags.json)
            rc = write_json(&o, &pc, results, done, &ov);
    }
    gt_ocl_close(pc.ocl);
    gt_disconnect(pc.c);
    gt_disconnect(pc.learner);
    if (gt_private_daemon_stop(&d) != 0)
        rc = -1;
    if (gt_private_daemon_stop(&learner) != 0)
        rc = -1;
    gt_private_daemon_remove(&d);
    gt_private_daemon_remove(&learner);
    return rc ? 1 : 0;
}
