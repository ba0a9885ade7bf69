/* gridtune kernel-module ABI.
 *
 * A kernel module is a shared object whose kernels are written with GT_KERNEL (a body per
 * work-item) or GT_KERNEL_GROUP (a body per workgroup, with regions between barriers and local
 * memory). Each kernel becomes a workgroup function (runs every work-item of one workgroup, in
 * the item order the runtime passes in) plus a descriptor recording its name and parameter
 * signature. A loader
 * enumerates a module's descriptors through gt_module_kernels(), and the launch checks a kernel
 * declares beside it (GT_BUFFER_EXTENT, GT_REQUIRE) through their own optional accessors. */
#ifndef GRIDTUNE_KERNEL_H
#define GRIDTUNE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever gt_group_ctx, gt_kernel_desc, gt_launch_view or gt_precondition change layout;
 * loaders refuse other values. A module's extents and preconditions are built against the same
 * header as its kernels, so the kernels' version covers them. New optional sections do not bump
 * it: a module built before they existed lacks their accessor and declares none. */
#define GT_KERNEL_ABI_VERSION 2u

/* Ranges have 1 to 3 dimensions; unused dimensions have size 1. */
#define GT_MAX_DIMS 3
/* Local coordinates are stored in 16 bits, so a workgroup holds at most this many items. */
#define GT_MAX_GROUP_ITEMS 65536u

/* Local coordinates of one work-item; an item order is an array of these. */
typedef struct gt_item {
    uint16_t x, y, z, pad;
} gt_item;

/* How a workgroup function walks the work-items of its workgroups. The loop nests are
 * generated inside GT_KERNEL with the body inlined, so the compiler vectorises their
 * innermost loop; only the list walks the runtime's coordinates. */
typedef enum gt_item_walk {
    GT_WALK_LINEAR = 0, /* x fastest, then y, then z: the innermost loop runs along x */
    GT_WALK_COLUMN = 1, /* z fastest, then y, then x (2-D: y fastest) */
    GT_WALK_TILED = 2,  /* tiles of tile[0] x tile[1] items, row-major, each z plane in turn */
    GT_WALK_LIST = 3,   /* items[0..nitems) in that order, within each workgroup */
} gt_item_walk;

/* What a workgroup function is told about the launch and its workgroups. The runtime fills one
 * per worker and updates group_id and span between calls.
 * One call runs a span: the `span` workgroups group_id[0], group_id[0] + 1, ... along
 * dimension 0, all with the same group_id[1] and group_id[2]. The loop walks their union as
 * one box of span * local_size[0] x local_size[1] x local_size[2] items, so a linear walk's
 * innermost loop is span * local_size[0] items long and contiguous. */
typedef struct gt_group_ctx {
    uint32_t dims;
    uint32_t span; /* workgroups this call runs along dimension 0; at least 1 */
    size_t global_size[GT_MAX_DIMS];
    size_t local_size[GT_MAX_DIMS];
    size_t num_groups[GT_MAX_DIMS];
    size_t group_id[GT_MAX_DIMS]; /* the span's first workgroup */
    uint32_t walk;                /* a gt_item_walk */
    uint32_t tile[2];             /* GT_WALK_TILED: the tile's width and height in items */
    const gt_item *items;         /* GT_WALK_LIST: nitems local coordinates */
    size_t nitems;                /* local_size[0] * local_size[1] * local_size[2] */
} gt_group_ctx;

/* args[i] points at the value of parameter i: the pointer itself for a buffer, the scalar's
 * bytes for a scalar. */
typedef void gt_workgroup_fn(const gt_group_ctx *ctx, void *const *args);

typedef enum gt_param_kind {
    GT_PARAM_SCALAR = 0,
    GT_PARAM_BUFFER = 1,    /* a pointer parameter the kernel may write through */
    GT_PARAM_BUFFER_RO = 2, /* a pointer to const */
} gt_param_kind;

typedef struct gt_param_desc {
    const char *name;
    const char *type; /* the C type as written in GT_KERNEL */
    gt_param_kind kind;
    uint32_t size;    /* sizeof the parameter: the scalar's size, or the pointer's */
} gt_param_desc;

/* gt_kernel_desc.flags */
#define GT_KERNEL_NO_SPANS 1u  /* run one workgroup per call: the runtime never passes a span > 1 */
#define GT_KERNEL_WORKGROUP 2u /* written with GT_KERNEL_GROUP: regions, local memory (always NO_SPANS) */

/* The most local memory (GT_KERNEL_GROUP) a kernel may declare. It lives on the stack of the
 * thread that runs the workgroup, beside the kernel's GT_PRIVATE arrays. */
#define GT_MAX_LOCAL_BYTES (256u << 10)

typedef struct gt_kernel_desc {
    uint32_t abi_version;
    uint32_t nparams;
    const char *name;
    const gt_param_desc *params;
    gt_workgroup_fn *run;
    uint32_t flags; /* GT_KERNEL_* */
    /* GT_KERNEL_GROUP's local memory in bytes. It sits in what was the structure's padding, so
       a module built before it existed reads 0 here and the layout's version did not change. */
    uint32_t local_bytes;
} gt_kernel_desc;

/* Every module that includes this header exports this accessor (weak, so that several
 * translation units of one module share one copy). It returns the module's kernels. */
const gt_kernel_desc *const *gt_module_kernels(size_t *count);
typedef struct gt_buffer_extent gt_buffer_extent;
/* Likewise the module's buffer extents (GT_BUFFER_EXTENT below); modules built before extents
 * existed lack it, and a loader treats that as none declared. */
const gt_buffer_extent *const *gt_module_extents(size_t *count);
typedef struct gt_precondition gt_precondition;
/* Likewise the module's launch preconditions (GT_REQUIRE below); absent from older modules. */
const gt_precondition *const *gt_module_preconditions(size_t *count);

/* ---- work-item builtins --------------------------------------------------------------------
 * They read locals of the generated loop, never thread-local storage: the item's global
 * coordinates gt__x, gt__y, gt__z and its workgroup's index along dimension 0, gt__g0 (the
 * other two are the span's). gt_global_id(0) is the loop's own index, so an expression in it
 * stays affine and vectorises; gt_group_id(0) and gt_local_id(0) cost a division per item
 * inside a span of more than one workgroup. d is 0, 1 or 2; beyond the launch's dimensions,
 * ids are 0 and sizes 1, as in OpenCL. */
#define GT__PICK(d, a, b, c) ((d) == 0 ? (a) : (d) == 1 ? (b) : (d) == 2 ? (c) : 0)
#define gt_global_id(d) ((size_t)GT__PICK(d, gt__x, gt__y, gt__z))
#define gt_group_id(d) ((size_t)GT__PICK(d, gt__g0, gt__w->group_id[1], gt__w->group_id[2]))
#define gt_local_size(d) \
    ((size_t)((d) <= 2 ? GT__PICK(d, gt__w->local_size[0], gt__w->local_size[1], gt__w->local_size[2]) : 1))
#define gt_local_id(d) (gt_global_id(d) - gt_group_id(d) * gt_local_size(d))
#define gt_global_size(d) \
    ((size_t)((d) <= 2 ? GT__PICK(d, gt__w->global_size[0], gt__w->global_size[1], gt__w->global_size[2]) : 1))
#define gt_num_groups(d) \
    ((size_t)((d) <= 2 ? GT__PICK(d, gt__w->num_groups[0], gt__w->num_groups[1], gt__w->num_groups[2]) : 1))
#define gt_work_dim() ((uint32_t)gt__w->dims)

/* ---- signature classification ------------------------------------------------------------
 * A pointer type is a buffer; a pointer to const is a read-only buffer. The conditional
 * operator with a non-null void pointer yields a void pointer carrying the pointee's
 * qualifiers, which _Generic can then match. */
#define GT__IS_PTR(t) (__builtin_classify_type(*(t *)0) == 5)
#define GT__AS_PTR(t) __builtin_choose_expr(GT__IS_PTR(t), *(t *)0, (void *)0)
#define GT__IS_CONST_PTR(t) \
    _Generic(1 ? GT__AS_PTR(t) : (void *)1, const void *: 1, const volatile void *: 1, default: 0)
#define GT__KIND(t) \
    (GT__IS_PTR(t) ? (GT__IS_CONST_PTR(t) ? GT_PARAM_BUFFER_RO : GT_PARAM_BUFFER) : GT_PARAM_SCALAR)

/* ---- argument-list machinery (up to 12 parameters) ---------------------------------------- */
#define GT__CAT(a, b) GT__CAT_(a, b)
#define GT__CAT_(a, b) a##b
#define GT__NARGS(...) \
    GT__NARGS_(__VA_ARGS__, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GT__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, \
                   _21, _22, _23, _24, _25, N, ...)                                                          \
    N

/* GT__MAPn(M, i, name, t1, a1, ...) applies M(i, t, a) to each (type, name) pair after the
 * kernel's name, i counting from 0; n is the total argument count, name included. Carrying the
 * name along keeps the variadic part non-empty, as strict C11 requires. */
#define GT__MAP1(M, i, name)
#define GT__MAP3(M, i, name, t, a) M(i, t, a)
#define GT__MAP5(M, i, name, t, a, ...) M(i, t, a) GT__MAP3(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP7(M, i, name, t, a, ...) M(i, t, a) GT__MAP5(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP9(M, i, name, t, a, ...) M(i, t, a) GT__MAP7(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP11(M, i, name, t, a, ...) M(i, t, a) GT__MAP9(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP13(M, i, name, t, a, ...) M(i, t, a) GT__MAP11(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP15(M, i, name, t, a, ...) M(i, t, a) GT__MAP13(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP17(M, i, name, t, a, ...) M(i, t, a) GT__MAP15(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP19(M, i, name, t, a, ...) M(i, t, a) GT__MAP17(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP21(M, i, name, t, a, ...) M(i, t, a) GT__MAP19(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP23(M, i, name, t, a, ...) M(i, t, a) GT__MAP21(M, (i + 1), name, __VA_ARGS__)
#define GT__MAP25(M, i, name, t, a, ...) M(i, t, a) GT__MAP23(M, (i + 1), name, __VA_ARGS__)
#define GT__FIRST(...) GT__FIRST_(__VA_ARGS__, ~)
#define GT__FIRST_(a, ...) a

#define GT__PARAM_DECL(i, t, a) , t a __attribute__((unused))
#define GT__PARAM_PASS(i, t, a) , a
#define GT__PASS(MAP, ...) (MAP(GT__PARAM_PASS, 0, __VA_ARGS__))
#define GT__PARAM_UNPACK(i, t, a) t a = *(t *)gt__args[i];
#define GT__PARAM_RECORD(i, t, a) {#a, #t, GT__KIND(t), (uint32_t)sizeof(t)},
#define GT__ARG_FIELD(i, t, a) t a;
#define GT__ARG_INIT(i, t, a) .a = *(t *)gt__v->args[i],
#define GT__BYTES_FIELD(i, t, a) uint64_t a;
#define GT__BYTES_INIT(i, t, a) .a = gt__v->bytes[i],

/* Parameters every body receives: the context (a local copy, which the compiler keeps in
 * registers because its address never escapes), the item's workgroup along dimension 0 and its
 * global coordinates. */
#define GT__ITEM_PARAMS                                                                          \
    const gt_group_ctx *gt__w __attribute__((unused)), size_t gt__g0 __attribute__((unused)),    \
        size_t gt__x __attribute__((unused)), size_t gt__y __attribute__((unused)),              \
        size_t gt__z __attribute__((unused))

/* The walks of GT__KERNEL_'s workgroup function. Each calls the body fn once per item of the
 * span, passing the context, the item's workgroup along x, its global coordinates and then the
 * kernel's arguments, pass (a parenthesised list, a comma before each). x0 and x1 bound the
 * span along x; y0 and z0 are its first row and plane. A span of one keeps its workgroup index
 * out of the loop, so a body that asks for gt_local_id(0) pays no division there. */
#define GT__UNPAREN(...) __VA_ARGS__
#define GT__ITEM(fn, pass, c, g, x, y, z) fn(c, g, x, y, z GT__UNPAREN pass)
/* Before a loop over the items of a row: its iterations are independent, as work-items are
 * (between two barriers, for GT_ITEMS), so the compiler may run several at once in vector
 * lanes. A body whose own loops have trip counts known where it is compiled (a size given as
 * a constant, e.g. with -D in gt_build's options) is then vectorised across items, one item per
 * lane as a GPU runs them: matmul with n a constant ran 3.97x faster, 14.7x with -march=native
 * (bench/results/items-vectorise-2026-11-29/). A body with a loop whose count is a kernel
 * argument keeps that loop's own vectorisation (gcc vectorises the innermost loop first). */
#if defined(__GNUC__) && !defined(__clang__)
#define GT__ITEMS_INDEPENDENT _Pragma("GCC ivdep")
#else /* clang's loop vectoriser does not vectorise outer loops, and warns when told to */
#define GT__ITEMS_INDEPENDENT
#endif
#define GT__G0(c, x) ((c)->span == 1 ? (c)->group_id[0] : (x) / (c)->local_size[0])
#define GT__WALK_LINEAR(c, x0, x1, y0, z0, fn, pass)                                            \
    for (size_t gt__z = z0; gt__z < (z0) + (c)->local_size[2]; gt__z++)                      \
        for (size_t gt__y = y0; gt__y < (y0) + (c)->local_size[1]; gt__y++) {                \
            if ((c)->span == 1) {                                                           \
                const size_t gt__g = (c)->group_id[0];                                      \
                GT__ITEMS_INDEPENDENT                                                       \
                for (size_t gt__x = x0; gt__x < x1; gt__x++)                                 \
                    GT__ITEM(fn, pass, c, gt__g, gt__x, gt__y, gt__z);                      \
            } else {                                                                        \
                GT__ITEMS_INDEPENDENT                                                       \
                for (size_t gt__x = x0; gt__x < x1; gt__x++)                                 \
                    GT__ITEM(fn, pass, c, gt__x / (c)->local_size[0], gt__x, gt__y, gt__z); \
            }                                                                               \
        }
#define GT__WALK_COLUMN(c, x0, x1, y0, z0, fn, pass)                           \
    for (size_t gt__x = x0; gt__x < x1; gt__x++)                                \
        for (size_t gt__y = y0; gt__y < (y0) + (c)->local_size[1]; gt__y++)     \
            for (size_t gt__z = z0; gt__z < (z0) + (c)->local_size[2]; gt__z++) \
                GT__ITEM(fn, pass, c, GT__G0(c, gt__x), gt__x, gt__y, gt__z);
/* Tiles row-major over the span's union, edge tiles clipped; the rows of a tile innermost. */
#define GT__WALK_TILED(c, x0, x1, y0, z0, fn, pass)                                                     \
    for (size_t gt__z = z0; gt__z < (z0) + (c)->local_size[2]; gt__z++)                              \
        for (size_t gt__ty = y0; gt__ty < (y0) + (c)->local_size[1]; gt__ty += (c)->tile[1])         \
            for (size_t gt__tx = x0; gt__tx < x1; gt__tx += (c)->tile[0]) {                           \
                const size_t gt__yn = (y0) + (c)->local_size[1], gt__ye = gt__ty + (c)->tile[1];     \
                const size_t gt__xe = gt__tx + (c)->tile[0] < (x1) ? gt__tx + (c)->tile[0] : (x1);   \
                for (size_t gt__y = gt__ty; gt__y < (gt__ye < gt__yn ? gt__ye : gt__yn); gt__y++)     \
                    GT__ITEMS_INDEPENDENT                                                             \
                    for (size_t gt__x = gt__tx; gt__x < gt__xe; gt__x++)                              \
                        GT__ITEM(fn, pass, c, GT__G0(c, gt__x), gt__x, gt__y, gt__z);                \
            }
#define GT__WALK_LIST(c, x0, x1, y0, z0, fn, pass)                                                     \
    for (size_t gt__g = (c)->group_id[0]; gt__g < (c)->group_id[0] + (c)->span; gt__g++)            \
        for (size_t gt__i = 0; gt__i < (c)->nitems; gt__i++) {                                      \
            const gt_item gt__it = (c)->items[gt__i];                                              \
            const size_t gt__x = gt__g * (c)->local_size[0] + gt__it.x;                            \
            GT__ITEM(fn, pass, c, gt__g, gt__x, (y0) + gt__it.y, (z0) + gt__it.z);                  \
        }

/* A kernel's record, in the module's gt_kernels section, and for GT_REQUIRE two structs with a
 * member per parameter, named after it (the argument's value with its declared type, and its
 * buffer's size), and their unpackers from a gt_launch_view: a later macro knows only the
 * kernel's name, so the names reach it as members. */
#define GT__RECORD(MAP, name, fn, flags, local_bytes, ...)                                              \
    static const gt_param_desc gt__params_##name[] = {                                                  \
        MAP(GT__PARAM_RECORD, 0, __VA_ARGS__){0, 0, GT_PARAM_SCALAR, 0}};                               \
    const gt_kernel_desc gt_kernel_desc_##name = {                                                      \
        GT_KERNEL_ABI_VERSION,                                                                          \
        (uint32_t)(sizeof gt__params_##name / sizeof gt__params_##name[0] - 1),                         \
        #name,                                                                                          \
        gt__params_##name,                                                                              \
        fn,                                                                                             \
        flags,                                                                                          \
        local_bytes,                                                                                    \
    };                                                                                                  \
    static const gt_kernel_desc *const gt__entry_##name                                                 \
        __attribute__((used, section("gt_kernels"), aligned(sizeof(void *)))) = &gt_kernel_desc_##name; \
    typedef struct gt__args_##name {                                                                    \
        MAP(GT__ARG_FIELD, 0, __VA_ARGS__) char gt__end;                                                \
    } gt__args_##name;                                                                                  \
    typedef struct gt__bytes_##name {                                                                   \
        MAP(GT__BYTES_FIELD, 0, __VA_ARGS__) char gt__end;                                              \
    } gt__bytes_##name;                                                                                 \
    static inline __attribute__((unused)) gt__args_##name gt__args_of_##name(const gt_launch_view *gt__v) \
    {                                                                                                   \
        (void)gt__v;                                                                                    \
        return (gt__args_##name){MAP(GT__ARG_INIT, 0, __VA_ARGS__) 0};                                  \
    }                                                                                                   \
    static inline __attribute__((unused)) gt__bytes_##name gt__bytes_of_##name(const gt_launch_view *gt__v) \
    {                                                                                                   \
        (void)gt__v;                                                                                    \
        return (gt__bytes_##name){MAP(GT__BYTES_INIT, 0, __VA_ARGS__) 0};                               \
    }

/* GT_KERNEL(name, type1, arg1, type2, arg2, ...) { body run once per work-item }
 * Up to 12 parameters. The linear, column and tiled walks are plain loop nests with the body
 * inlined, so the compiler can vectorise their innermost loop; any other item order walks the
 * runtime's coordinate list. */
#define GT_KERNEL(...) GT__KERNEL(GT__CAT(GT__MAP, GT__NARGS(__VA_ARGS__)), GT__FIRST(__VA_ARGS__), __VA_ARGS__)
#define GT__KERNEL(MAP, name, ...) GT__KERNEL_(MAP, name, __VA_ARGS__)
#define GT__KERNEL_(MAP, name, ...)                                                                     \
    static inline __attribute__((always_inline)) void gt__body_##name(                                  \
        GT__ITEM_PARAMS MAP(GT__PARAM_DECL, 0, __VA_ARGS__));                                           \
    static void gt__group_##name(const gt_group_ctx *gt__ctx, void *const *gt__args)                    \
    {                                                                                                   \
        (void)gt__args;                                                                                 \
        MAP(GT__PARAM_UNPACK, 0, __VA_ARGS__)                                                           \
        const gt_group_ctx gt__local = *gt__ctx;                                                        \
        const gt_group_ctx *const gt__c = &gt__local;                                                   \
        const size_t gt__x0 = gt__c->group_id[0] * gt__c->local_size[0];                                \
        const size_t gt__x1 = gt__x0 + gt__c->span * gt__c->local_size[0];                              \
        const size_t gt__y0 = gt__c->group_id[1] * gt__c->local_size[1];                                \
        const size_t gt__z0 = gt__c->group_id[2] * gt__c->local_size[2];                                \
        switch (gt__c->walk) {                                                                          \
        case GT_WALK_LINEAR:                                                                            \
            GT__WALK_LINEAR(gt__c, gt__x0, gt__x1, gt__y0, gt__z0, gt__body_##name, GT__PASS(MAP, __VA_ARGS__)) \
            break;                                                                                      \
        case GT_WALK_COLUMN:                                                                            \
            GT__WALK_COLUMN(gt__c, gt__x0, gt__x1, gt__y0, gt__z0, gt__body_##name, GT__PASS(MAP, __VA_ARGS__)) \
            break;                                                                                      \
        case GT_WALK_TILED:                                                                             \
            GT__WALK_TILED(gt__c, gt__x0, gt__x1, gt__y0, gt__z0, gt__body_##name, GT__PASS(MAP, __VA_ARGS__)) \
            break;                                                                                      \
        default:                                                                                        \
            GT__WALK_LIST(gt__c, gt__x0, gt__x1, gt__y0, gt__z0, gt__body_##name, GT__PASS(MAP, __VA_ARGS__)) \
            break;                                                                                      \
        }                                                                                               \
    }                                                                                                   \
    GT__RECORD(MAP, name, gt__group_##name, 0, 0, __VA_ARGS__)                                          \
    static inline __attribute__((always_inline)) void gt__body_##name(                                  \
        GT__ITEM_PARAMS MAP(GT__PARAM_DECL, 0, __VA_ARGS__))

/* ---- workgroup kernels ---------------------------------------------------------------------
 * GT_KERNEL_GROUP(name, (locals), type1, arg1, ...) { body run once per workgroup }
 *
 *     GT_KERNEL_GROUP(sum_groups, (float part[256];), float *, sums, const float *, src)
 *     {
 *         GT_PRIVATE(float, v);                      // one per item, kept across regions
 *         GT_ITEMS { GT_P(v) = src[gt_global_id(0)]; GT_L(part)[gt_local_id(0)] = GT_P(v); }
 *         for (size_t half = gt_local_size(0) / 2; half > 0; half /= 2)   // uniform
 *             GT_ITEMS {
 *                 if (gt_local_id(0) < half)
 *                     GT_L(part)[gt_local_id(0)] += GT_L(part)[gt_local_id(0) + half];
 *             }
 *         GT_ITEMS { if (gt_local_id(0) == 0) sums[gt_group_id(0)] = GT_L(part)[0]; }
 *     }
 *
 * The body runs once per workgroup. Each GT_ITEMS block is a region: it runs for every item of
 * the workgroup, in the schedule's item order, with every built-in; the next statement starts
 * only when every item has finished it, so the end of a region is a barrier (there is no other).
 * Between regions the code is the workgroup's, not an item's: gt_global_id and gt_local_id do
 * not compile there, gt_group_id and the sizes do. As OpenCL requires around barriers, control
 * flow around regions must be the same for every item (it is: there is one copy of it).
 *
 * (locals) declares the workgroup's local memory as members of a struct, `(float a[256]; int
 * n;)`, or `()` for none; GT_L(a) is member a. It is the running thread's own, 64-byte
 * aligned, on its stack, reused by its next workgroup and never shared with another thread,
 * and its contents do not outlive the workgroup. Its size is in the kernel's record
 * (local_bytes), which the loader checks against GT_MAX_LOCAL_BYTES.
 *
 * GT_PRIVATE(type, name) declares a variable each item keeps across regions, stored as an array
 * with an element per item of the workgroup (on the stack too: keep items x bytes small, a few
 * MiB at most); GT_P(name) is the current item's element inside a region.
 *
 * Inside a region, `continue` ends the item (as `return` ends a GT_KERNEL body); never `break`,
 * `return` or jump out of it, and never nest regions. A linear item order runs each row of the
 * workgroup as one plain loop the compiler vectorises; a tiled order runs each row of a tile as
 * one; column, list and space-filling orders run an item at a time. The kernel refuses spans.
 *
 * GT_KERNEL_GROUP_SIZED(name, (x, y, z), (locals), type1, arg1, ...) is the same kernel compiled
 * once more for workgroups of x by y by z items, the shape it is written for (as OpenCL's
 * work_group_size_hint): under the linear item order, a workgroup of that shape runs a copy of
 * the body in which the sizes are constants, so that each region's loops have known trip counts
 * and the compiler unrolls and vectorises them whole (1.9x on the 16 x 16 tiled matmul here).
 * Any other shape or order runs the general copy, so the shape is a promise about speed, not a
 * limit; state a limit with GT_REQUIRE. */
typedef struct gt__rows {
    int more;
    size_t x0, x1, y, z;  /* the current run: items x0..x1-1 of row (y, z), global coordinates */
    size_t p;             /* the run's first item's index in the workgroup (row-major) */
    size_t x, ty, tx, k;  /* the walk's place, local: column and tiled orders, the list */
} gt__rows;

/* Sets r's run from its local place (x0 .. x1 in row y, plane z, all local). */
static inline void gt__rows_set(const gt_group_ctx *c, gt__rows *r, size_t x0, size_t x1, size_t y, size_t z)
{
    r->p = (z * c->local_size[1] + y) * c->local_size[0] + x0;
    r->x0 = c->group_id[0] * c->local_size[0] + x0;
    r->x1 = r->x0 + (x1 - x0);
    r->y = c->group_id[1] * c->local_size[1] + y;
    r->z = c->group_id[2] * c->local_size[2] + z;
}

static inline size_t gt__min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The tiled order's run at its place: a row of the tile, clipped to the workgroup. */
static inline void gt__rows_tile(const gt_group_ctx *c, gt__rows *r, size_t y, size_t z)
{
    size_t tw = c->tile[0] ? c->tile[0] : c->local_size[0];
    gt__rows_set(c, r, r->tx, gt__min(r->tx + tw, c->local_size[0]), y, z);
}

static inline void gt__rows_item(const gt_group_ctx *c, gt__rows *r)
{
    const gt_item it = c->items[r->k];
    gt__rows_set(c, r, it.x, it.x + 1u, it.y, it.z);
}

static inline gt__rows gt__rows_first(const gt_group_ctx *c)
{
    gt__rows r = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    switch (c->walk) {
    case GT_WALK_LINEAR:
        gt__rows_set(c, &r, 0, c->local_size[0], 0, 0);
        break;
    case GT_WALK_COLUMN:
        gt__rows_set(c, &r, 0, 1, 0, 0);
        break;
    case GT_WALK_TILED:
        gt__rows_tile(c, &r, 0, 0);
        break;
    default:
        r.more = c->nitems > 0;
        if (r.more)
            gt__rows_item(c, &r);
        break;
    }
    return r;
}

static inline void gt__rows_next(const gt_group_ctx *c, gt__rows *r)
{
    const size_t lx = c->local_size[0], ly = c->local_size[1], lz = c->local_size[2];
    size_t y = r->y - c->group_id[1] * ly, z = r->z - c->group_id[2] * lz;
    switch (c->walk) {
    case GT_WALK_LINEAR: /* rows: y, then z; the row's x range stays, the rest steps */
        r->p += lx;
        if (++y < ly) {
            r->y++;
        } else {
            r->y -= ly - 1;
            r->z++;
            r->more = z + 1 < lz;
        }
        break;
    case GT_WALK_COLUMN: /* items: z fastest, then y, then x */
        if (++z == lz) {
            z = 0;
            if (++y == ly) {
                y = 0;
                r->x++;
            }
        }
        r->more = r->x < lx;
        if (r->more)
            gt__rows_set(c, r, r->x, r->x + 1u, y, z);
        break;
    case GT_WALK_TILED: { /* tiles row-major, a tile's rows, each plane in turn */
        size_t tw = c->tile[0] ? c->tile[0] : lx, th = c->tile[1] ? c->tile[1] : ly;
        if (++y == gt__min(r->ty + th, ly)) {
            r->tx += tw;
            if (r->tx >= lx) {
                r->tx = 0;
                r->ty += th;
                if (r->ty >= ly) {
                    r->ty = 0;
                    z++;
                }
            }
            y = r->ty;
        }
        r->more = z < lz;
        if (r->more)
            gt__rows_tile(c, r, y, z);
        break;
    }
    default:
        r->more = ++r->k < c->nitems;
        if (r->more)
            gt__rows_item(c, r);
        break;
    }
}

#define GT_ITEMS                                                                                        \
    for (gt__rows gt__r = gt__rows_first(gt__w); gt__r.more; gt__rows_next(gt__w, &gt__r))              \
        GT__ITEMS_INDEPENDENT                                                                           \
        for (size_t gt__x = gt__r.x0, gt__y __attribute__((unused)) = gt__r.y,                          \
                    gt__z __attribute__((unused)) = gt__r.z, gt__pi __attribute__((unused)) = gt__r.p;  \
             gt__x < gt__r.x1; gt__x++, gt__pi++)

#define GT_PRIVATE(type, name)                                                                          \
    type gt__p_##name[gt__w->local_size[0] * gt__w->local_size[1] * gt__w->local_size[2]]             \
        __attribute__((aligned(64)))
#define GT_P(name) (gt__p_##name[gt__pi])
#define GT_L(name) (gt__l->name)

/* A region's rows are a workgroup's: a few dozen items. gcc turns such a copy loop into a call
 * of memcpy per row, which costs more than the copy; this keeps it a vectorised loop. */
#if defined(__GNUC__) && !defined(__clang__)
#define GT__SHORT_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define GT__SHORT_LOOPS
#endif

/* Whether c's workgroups have the shape lx x ly x lz the kernel was compiled for (all 0: none
 * declared). */
static inline int gt__group_has_shape(const gt_group_ctx *c, size_t lx, size_t ly, size_t lz)
{
    return lx && c->local_size[0] == lx && c->local_size[1] == ly && c->local_size[2] == lz;
}

#define GT__SIZE_X(x, y, z) (x)
#define GT__SIZE_Y(x, y, z) (y)
#define GT__SIZE_Z(x, y, z) (z)

#define GT_KERNEL_GROUP(name, locals, ...) \
    GT__KERNEL_GROUP(GT__CAT(GT__MAP, GT__NARGS(name, __VA_ARGS__)), name, (0, 0, 0), locals, name, __VA_ARGS__)
#define GT_KERNEL_GROUP_SIZED(name, size, locals, ...)                                                     \
    _Static_assert(GT__SIZE_X size >= 1 && GT__SIZE_Y size >= 1 && GT__SIZE_Z size >= 1 &&                 \
                       (unsigned long long)(GT__SIZE_X size) * (GT__SIZE_Y size) * (GT__SIZE_Z size) <=    \
                           GT_MAX_GROUP_ITEMS,                                                           \
                   "GT_KERNEL_GROUP_SIZED(" #name "): each size at least 1, at most GT_MAX_GROUP_ITEMS items"); \
    GT__KERNEL_GROUP(GT__CAT(GT__MAP, GT__NARGS(name, __VA_ARGS__)), name, size, locals, name, __VA_ARGS__)
#define GT__KERNEL_GROUP(MAP, name, size, locals, ...) GT__KERNEL_GROUP_(MAP, name, size, locals, __VA_ARGS__)
#define GT__CALL_GROUP_BODY(fn, pass) fn(&gt__local, gt__local.group_id[0], &gt__lm GT__UNPAREN pass)
/* The body is inlined once per case below. In the second and third, what gt__local holds is a
 * constant to the compiler: the walk (so that each region is a plain loop nest, without the
 * other walks' bookkeeping) and, in the third, the workgroup's shape (so that each region's
 * loops have known trip counts, which the compiler unrolls and vectorises as a whole). The
 * stores sit right before each call, where the compiler forwards them into the body. */
#define GT__KERNEL_GROUP_(MAP, name, size, locals, ...)                                                 \
    typedef struct gt__locals_##name {                                                                  \
        GT__UNPAREN locals char gt__end;                                                                \
    } gt__locals_##name;                                                                                \
    static inline __attribute__((always_inline)) void gt__gbody_##name(                                 \
        const gt_group_ctx *gt__w, size_t gt__g0, gt__locals_##name *gt__l MAP(GT__PARAM_DECL, 0, __VA_ARGS__)); \
    static GT__SHORT_LOOPS void gt__group_##name(const gt_group_ctx *gt__ctx, void *const *gt__args)    \
    {                                                                                                   \
        (void)gt__args;                                                                                 \
        MAP(GT__PARAM_UNPACK, 0, __VA_ARGS__)                                                           \
        gt_group_ctx gt__local = *gt__ctx;                                                              \
        gt__locals_##name gt__lm __attribute__((aligned(64)));                                          \
        const int gt__shaped = gt__group_has_shape(gt__ctx, GT__SIZE_X size, GT__SIZE_Y size, GT__SIZE_Z size); \
        gt__local.span = 1; /* the record refuses spans; a runtime that passes one still gets each */  \
        for (uint32_t gt__s = 0; gt__s < gt__ctx->span; gt__s++) {                                      \
            gt__local.group_id[0] = gt__ctx->group_id[0] + gt__s;                                       \
            if (gt__ctx->walk != GT_WALK_LINEAR) {                                                      \
                GT__CALL_GROUP_BODY(gt__gbody_##name, GT__PASS(MAP, __VA_ARGS__));                      \
            } else if (!gt__shaped) {                                                                   \
                gt__local.walk = GT_WALK_LINEAR;                                                        \
                GT__CALL_GROUP_BODY(gt__gbody_##name, GT__PASS(MAP, __VA_ARGS__));                      \
            } else {                                                                                    \
                gt__local.walk = GT_WALK_LINEAR;                                                        \
                gt__local.local_size[0] = GT__SIZE_X size;                                              \
                gt__local.local_size[1] = GT__SIZE_Y size;                                              \
                gt__local.local_size[2] = GT__SIZE_Z size;                                              \
                gt__local.nitems = (size_t)(GT__SIZE_X size) * (GT__SIZE_Y size) * (GT__SIZE_Z size);   \
                GT__CALL_GROUP_BODY(gt__gbody_##name, GT__PASS(MAP, __VA_ARGS__));                      \
            }                                                                                           \
        }                                                                                               \
    }                                                                                                   \
    GT__RECORD(MAP, name, gt__group_##name, GT_KERNEL_WORKGROUP | GT_KERNEL_NO_SPANS,                   \
               (uint32_t)__builtin_offsetof(gt__locals_##name, gt__end), __VA_ARGS__)                  \
    static inline __attribute__((always_inline)) void gt__gbody_##name(                                 \
        const gt_group_ctx *gt__w, size_t gt__g0 __attribute__((unused)),                               \
        gt__locals_##name *gt__l __attribute__((unused)) MAP(GT__PARAM_DECL, 0, __VA_ARGS__))

/* ---- buffer extents --------------------------------------------------------------------------
 * GT_BUFFER_EXTENT(kernel, param, bytes_per_item) declares that buffer parameter param of kernel
 * is indexed by work-item: a launch must pass a buffer of at least bytes_per_item bytes for
 * every work-item of its range. A runtime refuses a smaller buffer before any workgroup runs,
 * instead of letting the kernel read or write past its end. Write it after the GT_KERNEL, at
 * file scope; a parameter without one is not checked (its size cannot be known). */
struct gt_buffer_extent {
    const char *kernel;      /* the GT_KERNEL's name */
    const char *param;       /* the name of one of its buffer parameters */
    uint64_t bytes_per_item; /* at least 1 */
};

#define GT_BUFFER_EXTENT(kernel, param, bytes_per_item)                                                   \
    _Static_assert(sizeof(gt_kernel_desc_##kernel) > 0, "GT_BUFFER_EXTENT after GT_KERNEL(" #kernel ")"); \
    static const gt_buffer_extent gt__extent_##kernel##_##param = {#kernel, #param, (bytes_per_item)};   \
    static const gt_buffer_extent *const gt__extent_entry_##kernel##_##param                              \
        __attribute__((used, section("gt_extents"), aligned(sizeof(void *)))) = &gt__extent_##kernel##_##param

/* ---- launch preconditions -------------------------------------------------------------------
 * GT_REQUIRE(kernel, expression) states a condition every launch of kernel must meet, over the
 * launch's range, its scalar arguments and its buffers' sizes:
 *
 *     GT_REQUIRE(transpose, gt_work_dim() == 2);
 *     GT_REQUIRE(transpose, (uint64_t)gt_param(n) * gt_param(n) <= gt_buffer_bytes(dst) / sizeof(float));
 *
 * A runtime evaluates each once per launch, before any workgroup runs, and refuses the launch
 * with the expression's text when one is false (zero). Inside the expression:
 *   gt_param(a)         argument a of the kernel, with the type GT_KERNEL gives it;
 *   gt_buffer_bytes(a)  the size in bytes of buffer argument a (a uint64_t; a compile error for
 *                       a scalar);
 *   gt_global_size(d), gt_local_size(d), gt_num_groups(d), gt_work_dim()  the launch's range.
 * There is no work-item: gt_global_id and gt_local_id do not compile there.
 * Write it after the GT_KERNEL, at file scope; a kernel may have several, which are evaluated in
 * the order written until one fails, so a later one may rely on an earlier one (n > 0 first).
 * The expression must not overflow, whatever the arguments: compute in uint64_t from values
 * that are known to be small (an int32_t times an int32_t fits), or divide the buffer's size
 * rather than multiplying counts by an element size. Signed overflow is undefined behaviour,
 * and a wrapped unsigned product would let a too-small buffer pass. */
typedef struct gt_launch_view {
    const gt_group_ctx *range; /* the launch's range; group_id is all 0 and items NULL */
    void *const *args;         /* args[i] points at parameter i's value, as a workgroup function's */
    const uint64_t *bytes;     /* bytes[i]: the size of buffer argument i; 0 for a scalar */
} gt_launch_view;

/* Returns non-zero when the precondition holds for the launch. */
typedef int gt_precondition_fn(const gt_launch_view *launch);

struct gt_precondition {
    const char *kernel;     /* the GT_KERNEL's name */
    const char *expression; /* as written */
    uint32_t order;         /* increases in the order written (within one file) */
    gt_precondition_fn *holds;
};

#define gt_param(a) (gt__a.a)
/* A struct declared inside sizeof carries the static assertion into an expression. */
#define gt_buffer_bytes(a)                                                                               \
    (gt__b.a + 0 * sizeof(struct {                                                                       \
         _Static_assert(__builtin_classify_type(gt__a.a) == 5, "gt_buffer_bytes(" #a "): not a buffer"); \
         char gt__c;                                                                                     \
     }))

/* The expression's text is taken here, before its macros (gt_param and the rest) expand;
 * __COUNTER__ names the record and orders it. */
#define GT_REQUIRE(kernel, ...) GT__REQUIRE(kernel, #kernel, __COUNTER__, #__VA_ARGS__, __VA_ARGS__)
#define GT__REQUIRE(kernel, kernel_text, id, text, ...) GT__REQUIRE_(kernel, kernel_text, id, text, __VA_ARGS__)
#define GT__REQUIRE_(kernel, kernel_text, id, text, ...)                                                \
    _Static_assert(sizeof(gt_kernel_desc_##kernel) > 0, "GT_REQUIRE after GT_KERNEL(" kernel_text ")"); \
    static int gt__require_##id(const gt_launch_view *gt__v)                                            \
    {                                                                                                   \
        const gt__args_##kernel gt__a __attribute__((unused)) = gt__args_of_##kernel(gt__v);            \
        const gt__bytes_##kernel gt__b __attribute__((unused)) = gt__bytes_of_##kernel(gt__v);          \
        const gt_group_ctx *const gt__w __attribute__((unused)) = gt__v->range;                         \
        return (__VA_ARGS__) ? 1 : 0;                                                                   \
    }                                                                                                   \
    static const gt_precondition gt__require_record_##id = {kernel_text, text, id, gt__require_##id};   \
    static const gt_precondition *const gt__require_entry_##id                                          \
        __attribute__((used, section("gt_preconditions"), aligned(sizeof(void *)))) = &gt__require_record_##id

/* The section's bounds are hidden symbols of the module itself, so each module sees only its
 * own kernels. The accessor is weak: one copy per module however many files include this. */
extern const gt_kernel_desc *const __start_gt_kernels[] __attribute__((weak, visibility("hidden")));
extern const gt_kernel_desc *const __stop_gt_kernels[] __attribute__((weak, visibility("hidden")));

__attribute__((weak)) const gt_kernel_desc *const *gt_module_kernels(size_t *count)
{
    *count = __start_gt_kernels ? (size_t)(__stop_gt_kernels - __start_gt_kernels) : 0;
    return __start_gt_kernels;
}

/* The module's buffer extents, found the same way (empty when it declares none). */
extern const gt_buffer_extent *const __start_gt_extents[] __attribute__((weak, visibility("hidden")));
extern const gt_buffer_extent *const __stop_gt_extents[] __attribute__((weak, visibility("hidden")));

__attribute__((weak)) const gt_buffer_extent *const *gt_module_extents(size_t *count)
{
    *count = __start_gt_extents ? (size_t)(__stop_gt_extents - __start_gt_extents) : 0;
    return __start_gt_extents;
}

/* The module's preconditions, found the same way (empty when it declares none). */
extern const gt_precondition *const __start_gt_preconditions[] __attribute__((weak, visibility("hidden")));
extern const gt_precondition *const __stop_gt_preconditions[] __attribute__((weak, visibility("hidden")));

__attribute__((weak)) const gt_precondition *const *gt_module_preconditions(size_t *count)
{
    *count = __start_gt_preconditions ? (size_t)(__stop_gt_preconditions - __start_gt_preconditions) : 0;
    return __start_gt_preconditions;
}

#ifdef __cplusplus
}
#endif

#endif
