/* seeds_client.h: the seed benchmarks (seedbench.h) launched through gridtuned with
 * libgridtune, for the gridtune subcommands that run them (demo, bench) and the drivers that
 * measure gridtuned (bench/peer_bench.c, bench/probe_bench.c). A seed case keeps its buffers
 * in plain memory; here they get shared copies the daemon maps, the case's arguments become
 * client arguments, and every launch poisons the output first and checks it against the
 * reference after. Functions that fail print their sentence (say) and return -1, so the callers
 * only count failures. */
#ifndef GT_SEEDS_CLIENT_H
#define GT_SEEDS_CLIENT_H

#include "say.h"
#include "seedbench.h"

#include <gridtune/gridtune.h>
#include <stdint.h>

/* The seeds module for the daemon to load: the build tree's, else the installed one; NULL when
 * neither can be read. The string is static. */
const char *cli_seeds_module(void);

/* One seed case on the daemon's side. cli_seed_open fills it; cli_seed_close frees what it
 * holds (the case, the shared buffers, the kernel), also after a failed open. The client
 * handle is borrowed and must outlive it. */
typedef struct cli_seed {
    gt_client *c;
    gt_seed_case *sc;
    gt_buffer *buffers[GT_SEED_MAX_BUFFERS]; /* shared copies of sc->buffers, same indices */
    gt_kernel *kernel;
    gt_arg args[GT_SEED_MAX_ARGS];
} cli_seed;

/* b's case at side n (0: its default side), its buffers shared, its kernel loaded from module. */
int cli_seed_open(gt_client *c, const char *module, const gt_seed_bench *b, size_t n, cli_seed *s);
void cli_seed_close(cli_seed *s);

/* One launch, answered on completion (gt_run, the event kept for its report), timed on the
 * monotonic clock into *wall_ns (may be NULL): what the application sees. gt_launch and gt_wait
 * would cost a second request, 60-350 us more per launch here
 * (bench/results/launch-path-2026-11-29/). On success *report holds the launch's report (free()
 * it); the event is released either way. what names the launch in the failure's sentence. */
int cli_launch(gt_client *c, const char *what, gt_kernel *k, const gt_range *range, const gt_arg *args,
               unsigned nargs, const gt_launch_options *opts, char **report, uint64_t *wall_ns);

/* The case launched with opts: the output poisoned and copied to the daemon, the launch, the
 * output copied back and verified. A wrong output is a failure, named after what. */
int cli_seed_run(cli_seed *s, const char *what, const gt_launch_options *opts, char **report, uint64_t *wall_ns);

#endif
