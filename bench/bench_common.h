/* bench_common.h: what the benchmark drivers (gridtune-bench, gridtune-tune-bench) share.
 * Finding the seeds module, parsing number flags and benchmark names, preparing a seed case
 * for launching (kernel looked up, arguments checked and bound). Run-time statistics and the
 * JSON results are in kernels/seed_runs.h, which `gridtune bench` shares. Every function that
 * can fail prints its sentence with say() (kernels/say.h), so the drivers only decide the exit
 * code. */
#ifndef GT_BENCH_COMMON_H
#define GT_BENCH_COMMON_H

#include "engine/module.h"
#include "kernels/seed_runs.h"
#include "kernels/seedbench.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most long options a driver's command line has, the shared ones included. */
#define GT_BENCH_MAX_OPTIONS 32
/* The largest problem size a --size flag takes. */
#define GT_BENCH_MAX_SIZE (1u << 20)
/* The environment variable naming the seeds module. */
#define GT_BENCH_MODULE_ENV "GRIDTUNE_SEEDS_MODULE"

/* The seeds module to load: $GRIDTUNE_SEEDS_MODULE, else the build tree's, else the installed one. */
const char *gt_bench_module_default(void);

/* The flags both drivers take, and their values. */
typedef struct gt_bench_flags {
    const char *module; /* -m, --module PATH (gt_bench_module_default() when not given) */
    const char *json;   /* -j, --json FILE; NULL: no JSON */
    unsigned workers;   /* -w, --workers N; 0: the CPUs this process may use */
    unsigned reps;      /* -r, --reps N: timed rounds */
    size_t size;        /* -n, --size N; 0: each benchmark's own */
} gt_bench_flags;

/* A driver's command line: the shared flags (above, plus -l/--list and -h/--help) and its own. */
typedef struct gt_bench_cli {
    const char *letters;           /* getopt letters of the driver's own flags */
    const struct option *options;  /* its own long options, ending with a zeroed entry */
    /* Takes one of its own flags with its argument (NULL for none); 0, or -1 after printing why. */
    int (*flag)(int c, const char *arg, void *ctx);
    void (*usage)(FILE *out);
    void (*list)(FILE *out);
} gt_bench_cli;

/* Parses argv up to the first operand (optind then points at it). Returns 0; 1 when --help or
 * --list has been printed and the driver should exit with 0; -1 on bad usage, printed. */
int gt_bench_cli_parse(const gt_bench_cli *cli, int argc, char **argv, gt_bench_flags *f, void *ctx);
/* Prints the help lines of the shared flags; reps_text says what --reps counts. */
void gt_bench_flags_help(FILE *out, const char *reps_text, unsigned default_reps);

/* Parses a whole decimal number in [min, max] given to flag; -1 after printing why not. */
int gt_bench_number_parse(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out);

/* Appends the benchmark called name to list (of *n, at most GT_BENCH_MAX_BENCHES); -1 after
 * printing why not (no such benchmark, list full). */
int gt_bench_add(const char *name, const gt_seed_bench **list, unsigned *n);
/* The benchmarks the operands argv[optind..argc) name, into list (of *n): when there are none,
 * those of defaults (NULL-terminated), or every one when defaults is NULL. Then checks that
 * size (0: each one's own) suits each. 0, or -1 after printing why (an unknown or one too many
 * benchmark, a size that is not a multiple of a benchmark's min_n). */
int gt_bench_operands(int argc, char **argv, size_t size, const char *const *defaults, const gt_seed_bench **list,
                      unsigned *n);
/* Prints the benchmarks with their default sizes, one a line. */
void gt_bench_list(FILE *out);

/* A seed case ready to launch: its kernel and the argument slots a workgroup function reads.
 * The slots point into the case, which the prepared case owns. */
typedef struct gt_bench_case {
    gt_seed_case *seed;
    const gt_kernel_desc *kernel;
    void *slots[GT_SEED_MAX_ARGS];
} gt_bench_case;

/* Finds b's kernel in m (loaded from module_path, named in messages), creates the case at size
 * n (0: the benchmark's default), checks the arguments against the kernel's signature and
 * binds them. Returns 0, or -1 after printing why; nothing is left to free then. */
int gt_bench_case_prepare(const gt_module *m, const char *module_path, const gt_seed_bench *b, size_t n,
                          gt_bench_case *out);
void gt_bench_case_destroy(gt_bench_case *bc);

#endif
