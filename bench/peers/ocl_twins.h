/* ocl_twins.h: the OpenCL C twins of the seed benchmarks (seeds.cl), run through the first
 * OpenCL CPU device found (pocl's pthread device on Debian). Each twin is the same kernel as
 * its GT_KERNEL, launched with the same global and workgroup sizes over the seed case's own
 * buffers (CL_MEM_USE_HOST_PTR), so the output is checked with the same reference. When no
 * OpenCL platform or CPU device can be opened, gt_ocl_open says why, and the caller goes on
 * without this peer. */
#ifndef GT_OCL_TWINS_H
#define GT_OCL_TWINS_H

#include "kernels/seedbench.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gt_ocl gt_ocl;
typedef struct gt_ocl_case gt_ocl_case;

/* Opens the first CPU device of the first platform that has one, and builds seeds.cl for it.
 * Returns 0, or a negative errno with a sentence naming the failing call and OpenCL's code
 * (for example "no OpenCL platform: clGetPlatformIDs: -1001 (no ICD found)") in err: -ENODEV
 * when there is no platform or no CPU device (go on without this peer), -EIO or -ENOMEM for
 * anything else, a seeds.cl that does not build included (its log follows the sentence).
 * The caller closes the result with gt_ocl_close. */
int gt_ocl_open(gt_ocl **out, char *err, size_t errlen);
void gt_ocl_close(gt_ocl *o);
/* The platform and device, for tables and JSON ("Portable Computing Language / pthread-..."). */
const char *gt_ocl_device_name(const gt_ocl *o);

/* Binds c's buffers and its benchmark's kernel with c's arguments. One case at a time per
 * gt_ocl. Returns 0, or a negative errno with a sentence in err. The caller owns the returned
 * case and closes it with gt_ocl_case_close before destroying c and before closing o. Between
 * open and close the host may read and write c's buffers whenever no run is in progress. */
int gt_ocl_case_open(gt_ocl *o, gt_seed_case *c, gt_ocl_case **out, char *err, size_t errlen);
/* One launch: clEnqueueNDRangeKernel with the case's range, then clFinish. What the host
 * wrote into the case's buffers before the call is what the kernel reads, and the output is
 * in the case's output buffer when it returns 0 (the buffers are unmapped around the launch
 * and mapped again after it; see ocl_twins.c). Negative errno with a sentence otherwise. */
int gt_ocl_case_run(gt_ocl_case *oc, char *err, size_t errlen);
void gt_ocl_case_close(gt_ocl_case *oc);

/* The launch round trip of an empty kernel over one work-item: clEnqueueNDRangeKernel plus
 * clFinish, reps times after a few untimed ones; each time in ns into ns[0..reps). */
int gt_ocl_empty_roundtrip(gt_ocl *o, unsigned reps, uint64_t *ns, char *err, size_t errlen);

#endif
