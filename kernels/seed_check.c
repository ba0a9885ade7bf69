/* seed_check.c: a seed case's launch checked as gridtuned checks one (seedbench.h): the
 * arguments, the buffers against the module's extents, the launch against its preconditions.
 * It needs the module loader, so it is a target of its own (gt_seed_check), and what only
 * makes and verifies cases (the gridtune command) does not link the engine. */
#include "kernels/seedbench.h"

#include "engine/module.h"
#include "tuner/grid.h"

#include <string.h>

int gt_seed_case_check(const gt_seed_case *c, const gt_module *m, const gt_kernel_desc *k, char *err, size_t errlen)
{
    size_t bytes[GT_SEED_MAX_ARGS] = {0}; /* the buffers are the first arguments */
    memcpy(bytes, c->buffer_bytes, c->nbuffers * sizeof bytes[0]);
    gt_range r = gt_range_normalized(&c->range);
    int rc = gt_args_check(k, c->args, c->nargs, err, errlen);
    if (rc == 0)
        rc = gt_extents_check(m, k, (uint64_t)r.global[0] * r.global[1] * r.global[2], bytes, err, errlen);
    if (rc == 0)
        rc = gt_preconditions_check(m, k, &c->range, c->args, bytes, err, errlen);
    return rc;
}
