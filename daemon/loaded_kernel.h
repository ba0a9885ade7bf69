/* loaded_kernel.h: one kernel of a loaded module, with its identity for the wisdom.
 * Opened on the kernel thread (dlopen and hashing touch the disk), then reference-counted on
 * the event loop's thread like buffers: the session and every queued launch of it hold one. */
#ifndef GT_LOADED_KERNEL_H
#define GT_LOADED_KERNEL_H

#include "engine/module.h"
#include "tuner/machine.h"

#include <cjson/cJSON.h>

typedef struct gt_loaded_kernel {
    gt_module *module;
    const gt_kernel_desc *desc;
    char hash[GT_HASH_TEXT_MAX];
    char *path;      /* the module's file, which an executor process loads too */
    uint64_t serial; /* unique in gridtuned's life: the kernel's name for executor processes */
    unsigned refs;
    /* When set, called with the kernel as its last reference goes, before it is closed. */
    void (*released)(void *ctx, const struct gt_loaded_kernel *k);
    void *released_ctx;
} gt_loaded_kernel;

/* Opens kernel `name` of the module at path. Returns 0, or a negative errno with a sentence:
 * -ENOENT (no file, or no such kernel in it: the sentence lists the ones there), -EINVAL. */
int gt_loaded_kernel_open(const char *path, const char *name, gt_loaded_kernel **out, char *err, size_t errlen);
gt_loaded_kernel *gt_loaded_kernel_ref(gt_loaded_kernel *k);
void gt_loaded_kernel_unref(gt_loaded_kernel *k);
/* The kernel's parameters as the protocol's params array; NULL without memory. */
cJSON *gt_loaded_kernel_params(const gt_loaded_kernel *k);

#endif
