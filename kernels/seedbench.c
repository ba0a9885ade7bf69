/* seedbench.c: host side of the seed benchmarks (kernels/seeds.c).
 * Each benchmark is a row of a table saying which buffers its kernel takes (shape and
 * contents, the output first), how many dimensions its range has, its plain-C reference and
 * how its output is compared. Every kernel's parameters are its buffers followed by n. */
#include "kernels/seedbench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SEED_MIN_N 16
#define SEED_LOCAL 16         /* workgroup side: 16 items in 1-D, 16 x 16 in 2-D */
#define SEED_MAX_N 65536      /* far beyond memory; keeps every size computation in range */
#define CONV_TAPS 11
#define CONV_PAD (CONV_TAPS - 1)
#define POISON_BYTE 0xA5
#define POISON_WORD 0xA5A5A5A5u
#define HUGE_PAGE (2u << 20)
#define CACHE_LINE 64
#define GEN_SEED 0x5eed5eed5eed5eedu /* fixed: every run of every build sees the same inputs */
#define FLOAT_RTOL 1e-4
#define REDUCE_ROWS 16  /* reduce: rows per workgroup */
#define REDUCE_LOCAL 256 /* reduce: items per workgroup */
#define REDUCE_FAN_IN 16 /* reduce: the tree's fan-in (REDUCE_LOCAL is its square) */
#define STENCIL_LOCAL_X 256
#define STENCIL_LOCAL_Y 4
#define STENCIL_CENTRE 0.5f
#define STENCIL_SIDE 0.125f

typedef enum buf_shape {
    SHAPE_SQUARE, /* n x n */
    SHAPE_PADDED, /* (n + CONV_PAD) x (n + CONV_PAD) */
    SHAPE_TAPS,   /* CONV_TAPS x CONV_TAPS */
    SHAPE_HALO,   /* (n + 2) x (n + 2): a one-element border */
    SHAPE_SUMS,   /* n / REDUCE_ROWS: one value per REDUCE_ROWS rows */
} buf_shape;

typedef enum buf_fill {
    FILL_ZERO,  /* the output */
    FILL_BYTES, /* uint32_t values 0..255 */
    FILL_UNIT,  /* floats in [-1, 1) */
} buf_fill;

typedef enum cmp_kind {
    CMP_EXACT_U32,
    CMP_EXACT_F32,
    CMP_F32_SUM, /* a float sum of sum_terms products; compared within a tolerance */
} cmp_kind;

typedef struct buf_spec {
    buf_shape shape;
    buf_fill fill;
} buf_spec;

typedef void reference_fn(const gt_seed_case *c, void *out);

typedef struct seed_ops {
    unsigned dims;
    size_t local[2];      /* workgroup size along x and y; 0: SEED_LOCAL */
    size_t items_per_row; /* 1-D: work-items per row of the matrix, global n * items_per_row; 0: 1 */
    unsigned nbuffers;
    buf_spec buffers[GT_SEED_MAX_BUFFERS];
    reference_fn *reference; /* NULL: the output must equal input buffer 1 (the copies) */
    cmp_kind cmp;
    size_t sum_terms; /* CMP_F32_SUM: products per output element; 0 means n */
} seed_ops;

/* ---- references: obvious loops, summing in the kernels' order ---------------------------- */

static void ref_integral_rows(const gt_seed_case *c, void *expected)
{
    const uint32_t *in = c->buffers[1];
    uint32_t *out = expected;
    size_t n = c->n;
    for (size_t y = 0; y < n; y++) {
        uint32_t sum = 0;
        for (size_t x = 0; x < n; x++) {
            sum += in[y * n + x];
            out[y * n + x] = sum;
        }
    }
}

static void ref_integral_cols(const gt_seed_case *c, void *expected)
{
    const uint32_t *in = c->buffers[1];
    uint32_t *out = expected;
    size_t n = c->n;
    for (size_t x = 0; x < n; x++) {
        uint32_t sum = 0;
        for (size_t y = 0; y < n; y++) {
            sum += in[y * n + x];
            out[y * n + x] = sum;
        }
    }
}

static void ref_conv11(const gt_seed_case *c, void *expected)
{
    const float *in = c->buffers[1], *weights = c->buffers[2];
    float *out = expected;
    size_t n = c->n, w = n + CONV_PAD;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            float acc = 0.0f;
            for (size_t dy = 0; dy < CONV_TAPS; dy++)
                for (size_t dx = 0; dx < CONV_TAPS; dx++)
                    acc += in[(y + dy) * w + x + dx] * weights[dy * CONV_TAPS + dx];
            out[y * n + x] = acc;
        }
}

static void ref_matmul(const gt_seed_case *c, void *expected)
{
    const float *a = c->buffers[1], *b = c->buffers[2];
    float *out = expected;
    size_t n = c->n;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            float acc = 0.0f;
            for (size_t k = 0; k < n; k++)
                acc += a[y * n + k] * b[k * n + x];
            out[y * n + x] = acc;
        }
}

static void ref_transpose(const gt_seed_case *c, void *expected)
{
    const float *src = c->buffers[1];
    float *dst = expected;
    size_t n = c->n;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++)
            dst[x * n + y] = src[y * n + x];
}

/* Each workgroup's partial sums as reduce forms them (item l sums the l-th REDUCE_LOCAL-th of
 * the workgroup's stretch, in order), then the same two-level tree; the kernel's eight running
 * sums per item differ from this order by rounding only. */
static void ref_reduce(const gt_seed_case *c, void *expected)
{
    const float *src = c->buffers[1];
    float *sums = expected;
    size_t stretch = REDUCE_ROWS * c->n, share = stretch / REDUCE_LOCAL;
    for (size_t g = 0; g < c->n / REDUCE_ROWS; g++) {
        float part[REDUCE_LOCAL] = {0};
        for (size_t l = 0; l < REDUCE_LOCAL; l++)
            for (size_t i = 0; i < share; i++)
                part[l] += src[g * stretch + l * share + i];
        float sum = 0.0f;
        for (size_t k = 0; k < REDUCE_FAN_IN; k++) {
            float t = 0.0f;
            for (size_t j = 0; j < REDUCE_FAN_IN; j++)
                t += part[k * REDUCE_FAN_IN + j];
            sum += t;
        }
        sums[g] = sum;
    }
}

static void ref_stencil5(const gt_seed_case *c, void *expected)
{
    const float *in = c->buffers[1];
    float *out = expected;
    size_t n = c->n, w = n + 2;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++) {
            size_t at = (y + 1) * w + x + 1;
            out[y * n + x] = STENCIL_CENTRE * in[at] + STENCIL_SIDE * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
        }
}

/* ---- the table ------------------------------------------------------------------------------ */

static const gt_seed_bench benches[] = {
    {"integral_rows", "integral_rows", "integral image, one work-item per row (uint32)", 16384, SEED_MIN_N},
    {"integral_cols", "integral_cols", "integral image, one work-item per column (uint32)", 8192, SEED_MIN_N},
    {"conv11", "conv11", "11x11 convolution over a padded image (float)", 4096, SEED_MIN_N},
    {"matmul", "matmul", "naive matrix multiplication (float)", 1088, SEED_MIN_N},
    {"copy_rows", "copy_rows", "matrix copy, consecutive items on consecutive elements", 16384, SEED_MIN_N},
    {"copy_cols", "copy_cols", "matrix copy, consecutive items n elements apart", 8192, SEED_MIN_N},
    {"transpose", "transpose", "matrix transpose (float)", 8192, SEED_MIN_N},
    {"matmul_tiled", "matmul_tiled", "matrix multiplication in 16x16 tiles of local memory (float, barriers)", 1088,
     SEED_MIN_N},
    {"reduce", "reduce", "sum of each 16 rows: partial sums, then a tree in local memory (float, barriers)", 8192,
     SEED_MIN_N},
    {"stencil5", "stencil5", "5-point stencil, 256x4 tile and halo in local memory (float, barriers)", 8192,
     STENCIL_LOCAL_X},
};

#define SQUARE_OUT {SHAPE_SQUARE, FILL_ZERO}
#define SQUARE_BYTES {SHAPE_SQUARE, FILL_BYTES}
#define SQUARE_UNIT {SHAPE_SQUARE, FILL_UNIT}

/* Indexed like benches. */
static const seed_ops ops_table[] = {
    {1, {0, 0}, 0, 2, {SQUARE_OUT, SQUARE_BYTES}, ref_integral_rows, CMP_EXACT_U32, 0},
    {1, {0, 0}, 0, 2, {SQUARE_OUT, SQUARE_BYTES}, ref_integral_cols, CMP_EXACT_U32, 0},
    {2, {0, 0}, 0, 3, {SQUARE_OUT, {SHAPE_PADDED, FILL_UNIT}, {SHAPE_TAPS, FILL_UNIT}}, ref_conv11, CMP_F32_SUM,
     CONV_TAPS * CONV_TAPS},
    {2, {0, 0}, 0, 3, {SQUARE_OUT, SQUARE_UNIT, SQUARE_UNIT}, ref_matmul, CMP_F32_SUM, 0},
    {2, {0, 0}, 0, 2, {SQUARE_OUT, SQUARE_UNIT}, NULL, CMP_EXACT_F32, 0},
    {2, {0, 0}, 0, 2, {SQUARE_OUT, SQUARE_UNIT}, NULL, CMP_EXACT_F32, 0},
    {2, {0, 0}, 0, 2, {SQUARE_OUT, SQUARE_UNIT}, ref_transpose, CMP_EXACT_F32, 0},
    /* matmul_tiled: the naive matmul's sums in the same order, staged through local memory */
    {2, {0, 0}, 0, 3, {SQUARE_OUT, SQUARE_UNIT, SQUARE_UNIT}, ref_matmul, CMP_F32_SUM, 0},
    /* a twin that sums in another order (OpenMP's reduction) passes within the sum's tolerance */
    {1, {REDUCE_LOCAL, 0}, REDUCE_LOCAL / REDUCE_ROWS, 2, {{SHAPE_SUMS, FILL_ZERO}, SQUARE_UNIT}, ref_reduce,
     CMP_F32_SUM, 0},
    /* wide workgroups: long rows (kernels/seeds.c) */
    {2, {STENCIL_LOCAL_X, STENCIL_LOCAL_Y}, 0, 2, {SQUARE_OUT, {SHAPE_HALO, FILL_UNIT}}, ref_stencil5, CMP_F32_SUM, 5},
};

_Static_assert(sizeof benches / sizeof benches[0] == sizeof ops_table / sizeof ops_table[0],
               "every benchmark needs its ops");

const gt_seed_bench *gt_seed_benches(size_t *count)
{
    *count = sizeof benches / sizeof benches[0];
    return benches;
}

const gt_seed_bench *gt_seed_bench_find(const char *name)
{
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (strcmp(benches[i].name, name) == 0)
            return &benches[i];
    return NULL;
}

/* NULL for a descriptor that is not a row of benches. */
static const seed_ops *ops_of(const gt_seed_bench *b)
{
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (b == &benches[i])
            return &ops_table[i];
    return NULL;
}

/* ---- inputs -------------------------------------------------------------------------------- */

/* splitmix64: small, fast and good enough for test data. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t shape_elems(buf_shape shape, size_t n)
{
    switch (shape) {
    case SHAPE_SQUARE:
        return n * n;
    case SHAPE_PADDED:
        return (n + CONV_PAD) * (n + CONV_PAD);
    case SHAPE_TAPS:
        return CONV_TAPS * CONV_TAPS;
    case SHAPE_HALO:
        return (n + 2) * (n + 2);
    case SHAPE_SUMS:
        return n / REDUCE_ROWS;
    }
    return 0;
}

/* Writing every element also takes the first-touch page faults here, outside timed runs. */
static void buffer_fill(void *buf, size_t elems, buf_fill fill, uint64_t seed)
{
    uint64_t state = seed;
    if (fill == FILL_ZERO) {
        memset(buf, 0, elems * sizeof(uint32_t));
    } else if (fill == FILL_BYTES) {
        uint32_t *u = buf;
        for (size_t i = 0; i < elems; i++)
            u[i] = (uint32_t)(splitmix64(&state) >> 56);
    } else {
        /* 24 random bits scaled to [0, 2) and shifted: exact in a float. */
        float *f = buf;
        for (size_t i = 0; i < elems; i++)
            f[i] = (float)(splitmix64(&state) >> 40) * 0x1p-23f - 1.0f;
    }
}

void *gt_seed_buffer_alloc(size_t bytes)
{
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : CACHE_LINE;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        return NULL;
    if (align == HUGE_PAGE)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: fine if refused */
    return p;
}

/* ---- cases --------------------------------------------------------------------------------- */

static void case_set_range(gt_seed_case *c, const seed_ops *ops)
{
    unsigned dims = ops->dims;
    c->range.dims = dims;
    for (unsigned d = 0; d < 3; d++) {
        c->range.global[d] = d < dims ? c->n : 1;
        c->range.local[d] = d < dims ? SEED_LOCAL : 1;
    }
    for (unsigned d = 0; d < 2 && d < dims; d++)
        if (ops->local[d])
            c->range.local[d] = ops->local[d];
    if (ops->items_per_row)
        c->range.global[0] *= ops->items_per_row;
    c->work_items = dims == 1 ? (uint64_t)c->range.global[0] : (uint64_t)c->n * c->n;
}

static int case_alloc_buffers(gt_seed_case *c, const seed_ops *ops, char *err, size_t errlen)
{
    for (unsigned i = 0; i < ops->nbuffers; i++) {
        size_t elems = shape_elems(ops->buffers[i].shape, c->n);
        size_t bytes = elems * sizeof(uint32_t);
        c->buffers[i] = gt_seed_buffer_alloc(bytes);
        if (!c->buffers[i]) {
            snprintf(err, errlen, "%s: cannot allocate %zu bytes for buffer %u at size %zu", c->bench->name,
                     bytes, i, c->n);
            return -ENOMEM;
        }
        c->buffer_bytes[i] = bytes;
        c->nbuffers = i + 1;
        buffer_fill(c->buffers[i], elems, ops->buffers[i].fill, GEN_SEED + i);
    }
    return 0;
}

static void case_set_args(gt_seed_case *c)
{
    for (unsigned i = 0; i < c->nbuffers; i++) {
        c->args[i].is_buffer = true;
        c->args[i].v.ptr = c->buffers[i];
    }
    gt_arg_value *n = &c->args[c->nbuffers];
    n->is_buffer = false;
    n->size = sizeof(int32_t);
    n->v.i32 = (int32_t)c->n;
    c->nargs = c->nbuffers + 1;
}

int gt_seed_case_create(const gt_seed_bench *b, size_t n, gt_seed_case **out, char *err, size_t errlen)
{
    *out = NULL;
    const seed_ops *ops = ops_of(b);
    if (!ops) {
        snprintf(err, errlen, "%s is not one of the seed benchmarks", b && b->name ? b->name : "(null)");
        return -EINVAL;
    }
    if (n == 0)
        n = b->default_n;
    if (n % b->min_n != 0) {
        snprintf(err, errlen, "%s: size %zu is not a multiple of %zu", b->name, n, b->min_n);
        return -EINVAL;
    }
    if (n > SEED_MAX_N) {
        snprintf(err, errlen, "%s: size %zu is larger than the maximum %d", b->name, n, SEED_MAX_N);
        return -EINVAL;
    }
    gt_seed_case *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "%s: out of memory for a case of size %zu", b->name, n);
        return -ENOMEM;
    }
    c->bench = b;
    c->n = n;
    c->output = 0;
    case_set_range(c, ops);
    int rc = case_alloc_buffers(c, ops, err, errlen);
    if (rc < 0) {
        gt_seed_case_destroy(c);
        return rc;
    }
    case_set_args(c);
    *out = c;
    return 0;
}

void gt_seed_case_destroy(gt_seed_case *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->nbuffers; i++)
        free(c->buffers[i]);
    free(c->expected);
    free(c);
}

void gt_seed_case_poison_output(gt_seed_case *c)
{
    memset(c->buffers[c->output], POISON_BYTE, c->buffer_bytes[c->output]);
}

/* ---- verification -------------------------------------------------------------------------- */

/* The kernels sum in the reference's order, so float results differ only where the compiler
 * contracts a*b + c into a fused multiply-add. Each such step moves the running sum by about
 * an ulp of it, and a running sum of K products of values in [-1, 1) is of order sqrt(K):
 * hence the absolute floor of FLOAT_RTOL * sqrt(K) under the relative tolerance. */
static double sum_tolerance(const seed_ops *ops, size_t n, float want)
{
    size_t terms = ops->sum_terms ? ops->sum_terms : n;
    return FLOAT_RTOL * fmax(sqrt((double)terms), fabs((double)want));
}

static uint32_t word_at(const void *buf, size_t i)
{
    uint32_t w;
    memcpy(&w, (const unsigned char *)buf + i * sizeof w, sizeof w);
    return w;
}

static float float_of(uint32_t w)
{
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

static bool element_ok(const seed_ops *ops, size_t n, uint32_t got, uint32_t want)
{
    if (got == want)
        return true;
    if (ops->cmp != CMP_F32_SUM || got == POISON_WORD)
        return false;
    float g = float_of(got), w = float_of(want);
    return fabs((double)g - (double)w) <= sum_tolerance(ops, n, w);
}

static void report_mismatch(const gt_seed_case *c, const seed_ops *ops, size_t i, uint32_t got, uint32_t want,
                            char *err, size_t errlen)
{
    size_t x = i % c->n, y = i / c->n;
    const char *name = c->bench->name;
    if (got == POISON_WORD) {
        snprintf(err, errlen, "%s: element (x %zu, y %zu) was never written (it still holds the poison pattern)",
                 name, x, y);
    } else if (ops->cmp == CMP_EXACT_U32) {
        snprintf(err, errlen, "%s: element (x %zu, y %zu) is %u, expected %u", name, x, y, got, want);
    } else if (ops->cmp == CMP_EXACT_F32) {
        snprintf(err, errlen, "%s: element (x %zu, y %zu) is %.9g, expected exactly %.9g", name, x, y,
                 (double)float_of(got), (double)float_of(want));
    } else {
        snprintf(err, errlen, "%s: element (x %zu, y %zu) is %.9g, expected %.9g within %.3g", name, x, y,
                 (double)float_of(got), (double)float_of(want), sum_tolerance(ops, c->n, float_of(want)));
    }
}

int gt_seed_case_verify(gt_seed_case *c, char *err, size_t errlen)
{
    const seed_ops *ops = ops_of(c->bench);
    size_t bytes = c->buffer_bytes[c->output];
    if (ops->reference && !c->expected) {
        c->expected = gt_seed_buffer_alloc(bytes);
        if (!c->expected) {
            snprintf(err, errlen, "%s: cannot allocate %zu bytes for the reference output", c->bench->name, bytes);
            return -ENOMEM;
        }
        ops->reference(c, c->expected);
    }
    /* a copy's reference is its input: no second copy of a matrix that may be 1 GiB */
    const void *got = c->buffers[c->output], *want = ops->reference ? c->expected : c->buffers[1];
    for (size_t i = 0; i < bytes / sizeof(uint32_t); i++) {
        uint32_t g = word_at(got, i), w = word_at(want, i);
        if (!element_ok(ops, c->n, g, w)) {
            report_mismatch(c, ops, i, g, w, err, errlen);
            return -1;
        }
    }
    return 0;
}
