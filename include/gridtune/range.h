/* gridtune launch range: the global size and the workgroup (local) size, 1 to 3 dimensions.
 * Shared by the client API, the tuner and the executor. */
#ifndef GRIDTUNE_RANGE_H
#define GRIDTUNE_RANGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions beyond dims are ignored and treated as size 1. Each global size must be a
 * multiple of the local size in that dimension, as in OpenCL 1.2. */
typedef struct {
    unsigned dims;
    size_t global[3];
    size_t local[3];
} gt_range;

#ifdef __cplusplus
}
#endif

#endif
