/* module.h: loading kernel modules and checking launches against their extents and preconditions.
 * A module is a shared object built against <gridtune/kernel.h>; its kernels are found
 * through the gt_module_kernels() accessor every such module exports. */
#ifndef GT_MODULE_H
#define GT_MODULE_H

#include "args.h"

#include <gridtune/kernel.h>
#include <gridtune/range.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_module gt_module;

/* The most parameters a kernel's record may declare (a launch passes at most GT_MAX_ARGS). */
#define GT_MODULE_MAX_PARAMS 64

/* dlopens path (RTLD_LOCAL) and validates every descriptor (ABI version, names, parameter
 * records) and every extent and precondition record. Returns 0, or -ENOENT / -EINVAL (or
 * -ENOMEM) with a sentence in err. */
int gt_module_open(const char *path, gt_module **out, char *err, size_t errlen);
void gt_module_close(gt_module *m);
size_t gt_module_count(const gt_module *m);
const gt_kernel_desc *gt_module_kernel(const gt_module *m, size_t i);
/* NULL when the module has no kernel of that name. */
const gt_kernel_desc *gt_module_find(const gt_module *m, const char *name);
/* The same, or -ENOENT with a sentence naming the module (as path) and the kernels it has. */
int gt_module_lookup(const gt_module *m, const char *path, const char *name, const gt_kernel_desc **out, char *err,
                     size_t errlen);

/* Checks a descriptor that did not come through gt_module_open (a kernel linked in). */
int gt_kernel_desc_check(const gt_kernel_desc *k, char *err, size_t errlen);
/* The same checks of the record as data (ABI version, name, flags, parameter records), without
 * asking for a workgroup function: for a description of a kernel whose code is elsewhere. */
int gt_kernel_record_check(const gt_kernel_desc *k, char *err, size_t errlen);

/* Checks the buffer arguments of a launch of k (a kernel of m) over items work-items against
 * the extents m declares for them (GT_BUFFER_EXTENT); bytes[i] is the size of argument i's
 * buffer (ignored for scalars). Returns 0 or -EINVAL with a sentence naming the argument,
 * its size and the size needed. Parameters without a declared extent are not checked. */
int gt_extents_check(const gt_module *m, const gt_kernel_desc *k, uint64_t items, const size_t *bytes, char *err,
                     size_t errlen);
/* The bytes per work-item m declares for parameter param of k (GT_BUFFER_EXTENT), or 0. */
uint64_t gt_module_extent(const gt_module *m, const gt_kernel_desc *k, uint32_t param);
/* One extent's check, as gt_extents_check makes it: parameter p of k has a buffer of bytes bytes,
 * and bytes_per_item (0: none declared) for each of items work-items. */
int gt_extent_check(const gt_kernel_desc *k, uint32_t p, uint64_t bytes_per_item, uint64_t items, size_t bytes,
                    char *err, size_t errlen);

/* Evaluates the preconditions m declares for k (GT_REQUIRE), in the order written, over a
 * launch of range (checked by gt_range_check) with args (checked by gt_args_check against k);
 * bytes[i] is the size of argument i's buffer (ignored for scalars). Returns 0, or -EINVAL
 * with a sentence quoting the first that does not hold and the launch's values, e.g.
 * "transpose: the precondition `gt_work_dim() == 2` does not hold (range 65536, dst 262144
 * bytes, src 262144 bytes, n = 256)". A kernel without preconditions passes. */
int gt_preconditions_check(const gt_module *m, const gt_kernel_desc *k, const gt_range *range,
                           const gt_arg_value *args, const size_t *bytes, char *err, size_t errlen);

#endif
