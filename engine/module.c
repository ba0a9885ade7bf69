/* module.c: loading kernel modules and checking launches against kernel signatures.
 * A module is untrusted input in the sense that it may be stale or built against another
 * header: every descriptor is validated when the module opens, so later code can rely on
 * names, parameter records and the workgroup function being present and sane. */
#include "module.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* gt_arg_value carries scalars in 8 bytes; larger ones cannot be passed. */
#define GT_MAX_SCALAR_BYTES 8

struct gt_module {
    void *handle;
    size_t count;
    const gt_kernel_desc *const *kernels;
    size_t nextents;
    const gt_buffer_extent *const *extents;
    size_t npreconditions;
    const gt_precondition **preconditions; /* ours: the module's, sorted by kernel, then as written */
};

typedef const gt_kernel_desc *const *module_kernels_fn(size_t *count);
typedef const gt_buffer_extent *const *module_extents_fn(size_t *count);
typedef const gt_precondition *const *module_preconditions_fn(size_t *count);

static int check_param(const gt_kernel_desc *k, uint32_t i, char *err, size_t errlen)
{
    const gt_param_desc *p = &k->params[i];
    if (!p->name || !p->type || p->kind > GT_PARAM_BUFFER_RO) {
        snprintf(err, errlen, "kernel %s: parameter %u has a malformed record", k->name, i);
        return -EINVAL;
    }
    if (p->kind == GT_PARAM_SCALAR && (p->size == 0 || p->size > GT_MAX_SCALAR_BYTES)) {
        snprintf(err, errlen, "kernel %s: parameter %u (%s %s) is a %u-byte scalar; scalars of 1 to %d bytes are supported",
                 k->name, i, p->type, p->name, p->size, GT_MAX_SCALAR_BYTES);
        return -EINVAL;
    }
    return 0;
}

int gt_kernel_desc_check(const gt_kernel_desc *k, char *err, size_t errlen)
{
    int rc = gt_kernel_record_check(k, err, errlen);
    if (rc == 0 && !k->run) {
        snprintf(err, errlen, "kernel descriptor \"%s\" is malformed: it has no workgroup function", k->name);
        return -EINVAL;
    }
    return rc;
}

int gt_kernel_record_check(const gt_kernel_desc *k, char *err, size_t errlen)
{
    if (!k || k->abi_version != GT_KERNEL_ABI_VERSION) {
        snprintf(err, errlen, "kernel descriptor has ABI version %u; this gridtune expects %u (rebuild the module)",
                 k ? k->abi_version : 0, GT_KERNEL_ABI_VERSION);
        return -EINVAL;
    }
    if (!k->name || !*k->name || (k->nparams && !k->params) || k->nparams > GT_MODULE_MAX_PARAMS) {
        snprintf(err, errlen, "kernel descriptor \"%s\" is malformed", k->name ? k->name : "(unnamed)");
        return -EINVAL;
    }
    if (k->flags & ~(GT_KERNEL_NO_SPANS | GT_KERNEL_WORKGROUP)) {
        snprintf(err, errlen, "kernel %s has flags 0x%x this gridtune does not know (rebuild the module)", k->name,
                 k->flags);
        return -EINVAL;
    }
    bool group = k->flags & GT_KERNEL_WORKGROUP;
    if ((group && !(k->flags & GT_KERNEL_NO_SPANS)) || (!group && k->local_bytes)) {
        snprintf(err, errlen, "kernel descriptor \"%s\" is malformed: %s", k->name,
                 group ? "a workgroup kernel must refuse spans" : "only a workgroup kernel has local memory");
        return -EINVAL;
    }
    if (k->local_bytes > GT_MAX_LOCAL_BYTES) {
        snprintf(err, errlen, "kernel %s declares %u bytes of local memory; gridtune allows at most %u (%u KiB)",
                 k->name, k->local_bytes, GT_MAX_LOCAL_BYTES, GT_MAX_LOCAL_BYTES >> 10);
        return -EINVAL;
    }
    for (uint32_t i = 0; i < k->nparams; i++) {
        int rc = check_param(k, i, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_kernels(const gt_module *m, const char *path, char *err, size_t errlen)
{
    if (m->count == 0) {
        snprintf(err, errlen, "%s defines no kernels (no GT_KERNEL in the module)", path);
        return -EINVAL;
    }
    for (size_t i = 0; i < m->count; i++) {
        int rc = gt_kernel_desc_check(m->kernels[i], err, errlen);
        if (rc)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->kernels[i]->name, m->kernels[j]->name) == 0) {
                snprintf(err, errlen, "%s defines kernel %s twice", path, m->kernels[i]->name);
                return -EINVAL;
            }
    }
    return 0;
}

static int param_index(const gt_kernel_desc *k, const char *name)
{
    for (uint32_t i = 0; i < k->nparams; i++)
        if (strcmp(k->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Every extent must name a buffer parameter of one of the module's kernels, once. */
static int check_extents(const gt_module *m, const char *path, char *err, size_t errlen)
{
    for (size_t i = 0; i < m->nextents; i++) {
        const gt_buffer_extent *e = m->extents[i];
        const gt_kernel_desc *k = e && e->kernel && e->param ? gt_module_find(m, e->kernel) : NULL;
        int p = k ? param_index(k, e->param) : -1;
        if (p < 0 || k->params[p].kind == GT_PARAM_SCALAR || e->bytes_per_item == 0) {
            snprintf(err, errlen, "%s: GT_BUFFER_EXTENT(%s, %s, %llu) must name a buffer parameter of one of its "
                     "kernels and at least 1 byte per work-item", path, e && e->kernel ? e->kernel : "?",
                     e && e->param ? e->param : "?", e ? (unsigned long long)e->bytes_per_item : 0ULL);
            return -EINVAL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->extents[j]->kernel, e->kernel) == 0 && strcmp(m->extents[j]->param, e->param) == 0) {
                snprintf(err, errlen, "%s declares the extent of %s's %s twice", path, e->kernel, e->param);
                return -EINVAL;
            }
    }
    return 0;
}

static int compare_preconditions(const void *a, const void *b)
{
    const gt_precondition *x = *(const gt_precondition *const *)a, *y = *(const gt_precondition *const *)b;
    int c = strcmp(x->kernel, y->kernel);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Every precondition must name one of the module's kernels and carry its text and function.
 * The section's order is the linker's, so the loader sorts them into the order written. */
static int load_preconditions(gt_module *m, const gt_precondition *const *list, size_t count, const char *path,
                              char *err, size_t errlen)
{
    for (size_t i = 0; i < count; i++) {
        const gt_precondition *p = list[i];
        if (!p || !p->kernel || !p->expression || !p->holds || !gt_module_find(m, p->kernel)) {
            snprintf(err, errlen, "%s: GT_REQUIRE(%s, %s) must name one of its kernels and carry its expression",
                     path, p && p->kernel ? p->kernel : "?", p && p->expression ? p->expression : "?");
            return -EINVAL;
        }
    }
    if (count == 0)
        return 0;
    m->preconditions = malloc(count * sizeof *m->preconditions);
    if (!m->preconditions) {
        snprintf(err, errlen, "out of memory reading the preconditions of %s", path);
        return -ENOMEM;
    }
    memcpy(m->preconditions, list, count * sizeof *m->preconditions);
    m->npreconditions = count;
    qsort(m->preconditions, count, sizeof *m->preconditions, compare_preconditions);
    return 0;
}

int gt_module_open(const char *path, gt_module **out, char *err, size_t errlen)
{
    /* without a slash dlopen would search the library path; a module path is a file path */
    char local[4096];
    if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
        path = local;
    /* dlopen of a FIFO or a device would block the loading thread, and every client's loads
       behind it, until someone writes to it: only a regular file can be a module */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file; a kernel module is a shared object file", path);
        return -EINVAL;
    }
    gt_module *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory opening %s", path);
        return -ENOMEM;
    }
    m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->handle) {
        snprintf(err, errlen, "cannot load kernel module: %s", dlerror());
        free(m);
        return -ENOENT;
    }
    module_kernels_fn *list;
    *(void **)&list = dlsym(m->handle, "gt_module_kernels");
    if (!list) {
        snprintf(err, errlen, "%s is not a gridtune kernel module (it has no gt_module_kernels; build it with <gridtune/kernel.h>)",
                 path);
        gt_module_close(m);
        return -EINVAL;
    }
    m->kernels = list(&m->count);
    module_extents_fn *extents;
    *(void **)&extents = dlsym(m->handle, "gt_module_extents"); /* absent from older modules: none declared */
    if (extents)
        m->extents = extents(&m->nextents);
    module_preconditions_fn *preconditions;
    *(void **)&preconditions = dlsym(m->handle, "gt_module_preconditions"); /* likewise */
    int rc = check_kernels(m, path, err, errlen);
    if (rc == 0)
        rc = check_extents(m, path, err, errlen);
    if (rc == 0 && preconditions) {
        size_t count;
        const gt_precondition *const *records = preconditions(&count);
        rc = load_preconditions(m, records, count, path, err, errlen);
    }
    if (rc) {
        gt_module_close(m);
        return rc;
    }
    *out = m;
    return 0;
}

void gt_module_close(gt_module *m)
{
    if (!m)
        return;
    if (m->handle)
        dlclose(m->handle);
    free(m->preconditions);
    free(m);
}

size_t gt_module_count(const gt_module *m)
{
    return m->count;
}

const gt_kernel_desc *gt_module_kernel(const gt_module *m, size_t i)
{
    return i < m->count ? m->kernels[i] : NULL;
}

const gt_kernel_desc *gt_module_find(const gt_module *m, const char *name)
{
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->kernels[i]->name, name) == 0)
            return m->kernels[i];
    return NULL;
}

int gt_module_lookup(const gt_module *m, const char *path, const char *name, const gt_kernel_desc **out, char *err,
                     size_t errlen)
{
    if ((*out = gt_module_find(m, name)))
        return 0;
    char names[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < m->count && used < sizeof names; i++) {
        int n = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", m->kernels[i]->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    snprintf(err, errlen, "the module %s has no kernel \"%s\"; it has: %s", path, name, names[0] ? names : "none");
    return -ENOENT;
}

uint64_t gt_module_extent(const gt_module *m, const gt_kernel_desc *k, uint32_t param)
{
    for (size_t i = 0; i < m->nextents; i++)
        if (strcmp(m->extents[i]->kernel, k->name) == 0 && strcmp(m->extents[i]->param, k->params[param].name) == 0)
            return m->extents[i]->bytes_per_item;
    return 0;
}

int gt_extent_check(const gt_kernel_desc *k, uint32_t p, uint64_t bytes_per_item, uint64_t items, size_t bytes,
                    char *err, size_t errlen)
{
    uint64_t need;
    bool overflow = __builtin_mul_overflow(items, bytes_per_item, &need);
    if (bytes_per_item == 0 || (!overflow && bytes >= need))
        return 0;
    char need_text[32] = "more than 2^64";
    if (!overflow)
        snprintf(need_text, sizeof need_text, "%llu", (unsigned long long)need);
    snprintf(err, errlen, "argument %u (%s) of %s: the buffer has %zu bytes, but %llu work-items of %llu bytes each "
             "need %s", p, k->params[p].name, k->name, bytes, (unsigned long long)items,
             (unsigned long long)bytes_per_item, need_text);
    return -EINVAL;
}

int gt_extents_check(const gt_module *m, const gt_kernel_desc *k, uint64_t items, const size_t *bytes, char *err,
                     size_t errlen)
{
    for (size_t i = 0; i < m->nextents; i++) {
        const gt_buffer_extent *e = m->extents[i];
        if (strcmp(e->kernel, k->name) != 0)
            continue;
        int p = param_index(k, e->param);
        int rc = gt_extent_check(k, (uint32_t)p, e->bytes_per_item, items, bytes[p], err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* A scalar as the kernel reads it (its first size bytes, as its declared type): floating,
 * unsigned or signed by the type's name; a typedef gridtune cannot see through reads as signed. */
static void describe_scalar(const gt_param_desc *p, const gt_arg_value *a, char *buf, size_t len)
{
    const unsigned char *b = a->v.bytes;
    if (strstr(p->type, "float") || strstr(p->type, "double")) {
        float f;
        double d;
        memcpy(&f, b, sizeof f);
        memcpy(&d, b, sizeof d);
        snprintf(buf, len, "%g", p->size == sizeof f ? (double)f : d);
        return;
    }
    int8_t s8;
    int16_t s16;
    int32_t s32;
    int64_t s64;
    memcpy(&s8, b, sizeof s8);
    memcpy(&s16, b, sizeof s16);
    memcpy(&s32, b, sizeof s32);
    memcpy(&s64, b, sizeof s64);
    int64_t s = p->size == 1 ? s8 : p->size == 2 ? s16 : p->size == 4 ? s32 : s64;
    uint64_t u = p->size == 1 ? (uint8_t)s8 : p->size == 2 ? (uint16_t)s16 : p->size == 4 ? (uint32_t)s32 : (uint64_t)s64;
    if (strstr(p->type, "unsigned") || strstr(p->type, "uint") || strstr(p->type, "size_t") || strstr(p->type, "bool"))
        snprintf(buf, len, "%llu", (unsigned long long)u);
    else
        snprintf(buf, len, "%lld", (long long)s);
}

__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, *used < len ? len - *used : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

/* "range 64x64/16x16, dst 16384 bytes, src 16384 bytes, n = 100000": what a precondition saw. */
static void describe_launch(const gt_kernel_desc *k, const gt_range *range, const gt_arg_value *args,
                            const size_t *bytes, char *buf, size_t len)
{
    size_t used = 0;
    append(buf, len, &used, "range ");
    for (unsigned d = 0; d < range->dims; d++)
        append(buf, len, &used, "%s%zu", d ? "x" : "", range->global[d]);
    for (unsigned d = 0; d < range->dims; d++)
        append(buf, len, &used, "%s%zu", d ? "x" : "/", range->local[d]);
    for (uint32_t i = 0; i < k->nparams; i++) {
        const gt_param_desc *p = &k->params[i];
        char value[64];
        if (p->kind == GT_PARAM_SCALAR) {
            describe_scalar(p, &args[i], value, sizeof value);
            append(buf, len, &used, ", %s = %s", p->name, value);
        } else {
            append(buf, len, &used, ", %s %zu bytes", p->name, bytes[i]);
        }
    }
}

int gt_preconditions_check(const gt_module *m, const gt_kernel_desc *k, const gt_range *range,
                           const gt_arg_value *args, const size_t *bytes, char *err, size_t errlen)
{
    gt_group_ctx ctx = {.dims = range->dims, .span = 1, .nitems = 1};
    for (unsigned d = 0; d < GT_MAX_DIMS; d++) {
        /* beyond the range's dimensions, sizes are 1, as the builtins promise */
        ctx.global_size[d] = d < range->dims ? range->global[d] : 1;
        ctx.local_size[d] = d < range->dims ? range->local[d] : 1;
        ctx.num_groups[d] = ctx.global_size[d] / ctx.local_size[d];
        ctx.nitems *= ctx.local_size[d];
    }
    void *slots[GT_MODULE_MAX_PARAMS];
    uint64_t sizes[GT_MODULE_MAX_PARAMS];
    gt_args_bind(args, k->nparams, slots);
    for (uint32_t i = 0; i < k->nparams; i++)
        sizes[i] = k->params[i].kind == GT_PARAM_SCALAR ? 0 : bytes[i];
    const gt_launch_view view = {.range = &ctx, .args = slots, .bytes = sizes};
    for (size_t i = 0; i < m->npreconditions; i++) {
        const gt_precondition *p = m->preconditions[i];
        if (strcmp(p->kernel, k->name) != 0 || p->holds(&view))
            continue;
        char launch[512];
        describe_launch(k, range, args, bytes, launch, sizeof launch);
        snprintf(err, errlen, "%s: the precondition `%s` does not hold (%s)", k->name, p->expression, launch);
        return -EINVAL;
    }
    return 0;
}
