/* args.c: launch arguments checked against a kernel's signature and bound for its workgroup
 * function (args.h). */
#include "args.h"

#include <errno.h>
#include <stdio.h>

static void describe_param(const gt_param_desc *p, char *buf, size_t len)
{
    if (p->kind == GT_PARAM_SCALAR)
        snprintf(buf, len, "a %u-byte scalar (%s)", p->size, p->type);
    else
        snprintf(buf, len, "a %sbuffer (%s)", p->kind == GT_PARAM_BUFFER_RO ? "read-only " : "", p->type);
}

static void describe_arg(const gt_arg_value *a, char *buf, size_t len)
{
    if (a->is_buffer)
        snprintf(buf, len, "a buffer");
    else
        snprintf(buf, len, "a %u-byte scalar", a->size);
}

int gt_args_check(const gt_kernel_desc *k, const gt_arg_value *args, unsigned nargs, char *err, size_t errlen)
{
    if (nargs != k->nparams) {
        snprintf(err, errlen, "kernel %s takes %u argument%s; got %u", k->name, k->nparams, k->nparams == 1 ? "" : "s",
                 nargs);
        return -EINVAL;
    }
    for (unsigned i = 0; i < nargs; i++) {
        const gt_param_desc *p = &k->params[i];
        bool want_buffer = p->kind != GT_PARAM_SCALAR;
        if (want_buffer == args[i].is_buffer && (want_buffer || args[i].size == p->size))
            continue;
        char want[128], got[64];
        describe_param(p, want, sizeof want);
        describe_arg(&args[i], got, sizeof got);
        snprintf(err, errlen, "argument %u (%s) of %s: expected %s, got %s", i, p->name, k->name, want, got);
        return -EINVAL;
    }
    return 0;
}

void gt_args_bind(const gt_arg_value *args, unsigned nargs, void **slots)
{
    for (unsigned i = 0; i < nargs; i++)
        slots[i] = (void *)&args[i].v; /* the pointer for a buffer, the scalar's bytes otherwise */
}
