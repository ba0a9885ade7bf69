/* seedbench.h: the seed benchmarks, host side.
 * Each benchmark names a kernel of the seeds module (kernels/seeds.c), and knows how to make
 * its inputs (deterministic generator), its launch range and arguments, and how to check the
 * output against a plain-C reference implementation. The bench driver and the tests share it. */
#ifndef GT_SEEDBENCH_H
#define GT_SEEDBENCH_H

#include "engine/args.h"

#include <gridtune/range.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_module gt_module; /* engine/module.h */

#define GT_SEED_MAX_ARGS 6
#define GT_SEED_MAX_BUFFERS 4

typedef struct gt_seed_case gt_seed_case;

typedef struct gt_seed_bench {
    const char *name;    /* benchmark name, e.g. "transpose" */
    const char *kernel;  /* kernel name in the seeds module */
    const char *summary; /* one line for tables and --help */
    size_t default_n;    /* problem size (matrix side) giving ~0.2-2 s on two cores */
    size_t min_n;        /* smallest legal n; any legal n is a multiple of this */
} gt_seed_bench;

struct gt_seed_case {
    const gt_seed_bench *bench;
    size_t n;
    gt_range range;
    unsigned nargs;
    gt_arg_value args[GT_SEED_MAX_ARGS]; /* ready for gt_args_check / gt_args_bind */
    unsigned nbuffers;
    void *buffers[GT_SEED_MAX_BUFFERS];
    size_t buffer_bytes[GT_SEED_MAX_BUFFERS];
    unsigned output;   /* index into buffers of the buffer the kernel writes */
    void *expected;    /* reference output, computed on first verify (NULL for the copies,
                          whose reference is their input) */
    uint64_t work_items;
};

/* The ten benchmarks, in table order. */
const gt_seed_bench *gt_seed_benches(size_t *count);
const gt_seed_bench *gt_seed_bench_find(const char *name);

/* Memory as a case's buffers get it: a large block aligned to and advised onto huge pages
 * (TLB misses would blur the differences between schedules), a small one to a cache line.
 * NULL when out of memory; free() it. */
void *gt_seed_buffer_alloc(size_t bytes);

/* Allocates buffers for size n (0: the default), fills inputs from a fixed seed and clears the
 * output. Returns 0, or -EINVAL (n not a positive multiple of min_n) / -ENOMEM with a
 * sentence in err. The caller frees the case with gt_seed_case_destroy. */
int gt_seed_case_create(const gt_seed_bench *b, size_t n, gt_seed_case **out, char *err, size_t errlen);
void gt_seed_case_destroy(gt_seed_case *c);

/* Checks the case's launch of k (its kernel in module m) as gridtuned checks a launch: the
 * arguments against k's signature, the buffers against m's extents and the launch against m's
 * preconditions. Returns 0 or -EINVAL with the check's sentence in err. In seed_check.c
 * (target gt_seed_check), which links the module loader; the rest of this header does not. */
int gt_seed_case_check(const gt_seed_case *c, const gt_module *m, const gt_kernel_desc *k, char *err, size_t errlen);

/* Fills the output buffer with a poison pattern, so that a workgroup that did not run shows. */
void gt_seed_case_poison_output(gt_seed_case *c);

/* Compares the output with the reference (computed once and kept). Integer kernels must match
 * exactly, float kernels within a relative tolerance. Returns 0; -1 with a sentence naming the
 * first bad element and both values in err; or -ENOMEM when the reference has no room. */
int gt_seed_case_verify(gt_seed_case *c, char *err, size_t errlen);

#endif
