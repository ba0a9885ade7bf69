/* describe_run.h: gridtuned's side of describing a kernel. It starts the loader (gridtune-exec
 * --describe, describe.h), reads its answer within a deadline and checks it as untrusted input,
 * so that no code of a client's module ever runs inside gridtuned. Runs on the kernel thread:
 * it blocks until the loader is done. */
#ifndef GT_DESCRIBE_RUN_H
#define GT_DESCRIBE_RUN_H

#include "daemon/kernel_info.h"
#include "describe.h"

#include <stddef.h>

/* The longest a module may take to load (its constructors run then), and the longest answer. */
#define GT_DESCRIBE_TIMEOUT_MS 10000
#define GT_DESCRIBE_ANSWER_MAX (64 * 1024)

/* Describes kernel name of the module at path with the loader program at loader. Returns 0, or
 * a negative errno with a sentence in err: the loader's own (-ENOENT: no file or no such kernel,
 * -EINVAL: not a valid module), -EINVAL when the loader died of a signal or said something
 * malformed, -ETIMEDOUT when it ran past the deadline (it is killed), or what starting it
 * failed with. */
int gt_describe_run(const char *loader, const char *path, const char *name, gt_kernel_info *out, char *err,
                    size_t errlen);

#endif
