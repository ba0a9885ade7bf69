/* loaded_kernel.h: one kernel of a loaded module, with its identity for the wisdom.
 * Opened on the kernel thread (loading and hashing touch the disk), then reference-counted on
 * the event loop's thread like buffers: the session and every queued launch of it hold one.
 *
 * With executor processes gridtuned never opens the module: a loader process describes the
 * kernel (describe_run.h), and gridtuned holds that description only. In-process (--isolation
 * none) gridtuned opens the module itself and runs the kernel's code. */
#ifndef GT_LOADED_KERNEL_H
#define GT_LOADED_KERNEL_H

#include "kernel_info.h"
#include "engine/module.h"
#include "tuner/machine.h"
#include "tuner/tune.h"

#include <sys/types.h>

typedef struct gt_loaded_kernel {
    gt_module *module;          /* in-process only; NULL when the kernel runs in executors */
    const gt_kernel_desc *desc; /* the module's, or info.desc (without code) */
    gt_kernel_info info;        /* the record and extents as data, either way */
    char hash[GT_HASH_TEXT_MAX];
    char *path;      /* the module's file, which an executor process loads too */
    uint64_t serial; /* unique in gridtuned's life: the kernel's name for executor processes */
    uid_t uid;       /* whose it is: the executor that loads it */
    unsigned refs;
    /* When set, called with the kernel as its last reference goes, before it is closed. */
    void (*released)(void *ctx, const struct gt_loaded_kernel *k);
    void *released_ctx;
} gt_loaded_kernel;

/* Opens kernel `name` of the module at path: through the loader program at loader when it is
 * not NULL (gridtuned then runs none of the module's code), else in this process. Returns 0, or
 * a negative errno with a sentence: -ENOENT (no file, or no such kernel in it: the sentence
 * lists the ones there), -EINVAL, and from a loader -ETIMEDOUT. */
int gt_loaded_kernel_open(const char *path, const char *name, const char *loader, gt_loaded_kernel **out, char *err,
                          size_t errlen);
/* What the tuner and the reports know of a launch of k over range on machine (both borrowed). */
gt_tune_launch gt_loaded_kernel_launch(const gt_loaded_kernel *k, const char *machine, const gt_range *range);
gt_loaded_kernel *gt_loaded_kernel_ref(gt_loaded_kernel *k);
void gt_loaded_kernel_unref(gt_loaded_kernel *k);

#endif
