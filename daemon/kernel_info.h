/* kernel_info.h: what gridtuned knows of a kernel without running any of its module's code: its
 * record (name, flags, parameters) and its buffers' extents, as data.
 *
 * With executor processes, gridtuned never opens a module: a loader process (gridtune-exec
 * --describe, describe.c) opens it, writes this description as JSON, and exits; gridtuned reads
 * the JSON as untrusted input (gt_kernel_info_read). The module's preconditions are code, so
 * they are evaluated where the kernel runs, just before it runs. In-process, gridtuned describes
 * the module it opened itself the same way, so both paths read one format. */
#ifndef GT_KERNEL_INFO_H
#define GT_KERNEL_INFO_H

#include "engine/module.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Longest name or type text a description may carry. */
#define GT_KERNEL_INFO_TEXT_MAX 256

typedef struct gt_kernel_info {
    gt_kernel_desc desc; /* its run is NULL: a description, not code */
    gt_param_desc params[GT_MODULE_MAX_PARAMS];
    uint64_t extent[GT_MODULE_MAX_PARAMS]; /* bytes per work-item (GT_BUFFER_EXTENT), or 0: none */
} gt_kernel_info;

/* Kernel k of module m as JSON: {"name", "flags", "params": [{"name", "type", "kind", "size",
 * "extent"}]}. NULL without memory. */
cJSON *gt_kernel_info_describe(const gt_module *m, const gt_kernel_desc *k);
/* Reads a description (from a process gridtuned does not trust) into out, checking every field:
 * types, lengths, kinds, sizes, known flags, extents only on buffers and below 2^53. Returns 0,
 * or -EINVAL (-ENOMEM) with a sentence in err; out then holds nothing to free. */
int gt_kernel_info_read(const cJSON *json, gt_kernel_info *out, char *err, size_t errlen);
void gt_kernel_info_free(gt_kernel_info *info);

/* The buffer arguments of a launch over items work-items against the declared extents, as
 * gt_extents_check: bytes[i] is argument i's buffer size (ignored for scalars). */
int gt_kernel_info_check_extents(const gt_kernel_info *info, uint64_t items, const size_t *bytes, char *err,
                                 size_t errlen);
/* The parameters as the protocol's params array (kernel_load's answer); NULL without memory. */
cJSON *gt_kernel_info_params(const gt_kernel_info *info);

#endif
