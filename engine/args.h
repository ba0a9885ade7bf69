/* args.h: launch arguments as a caller supplies them, checked against a kernel's signature and
 * bound to the slots its workgroup function reads. It needs no module loaded and no worker
 * pool: the seed cases (kernels/seedbench.h) hold their arguments in this form. */
#ifndef GT_ARGS_H
#define GT_ARGS_H

#include <gridtune/kernel.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One launch argument as supplied by a caller. */
typedef struct gt_arg_value {
    bool is_buffer;
    uint32_t size; /* a scalar's byte count; ignored for buffers */
    union {
        void *ptr; /* buffer base */
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
        unsigned char bytes[8];
    } v;
} gt_arg_value;

/* Checks count, buffer versus scalar, and scalar sizes against the kernel's signature.
 * Returns 0 or -EINVAL with a sentence naming the parameter, e.g.
 * "argument 2 (n) of transpose: expected a 4-byte scalar (int32_t), got a buffer". */
int gt_args_check(const gt_kernel_desc *k, const gt_arg_value *args, unsigned nargs, char *err, size_t errlen);

/* Fills slots[i] with the address the workgroup function reads parameter i from. The slots
 * point into args, so args must outlive every batch that uses the slots. */
void gt_args_bind(const gt_arg_value *args, unsigned nargs, void **slots);

#endif
