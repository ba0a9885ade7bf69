/* executors.c: the executor processes by user (executors.h). */
#include "executors.h"

#include "tuner/grow.h"

#include <stdlib.h>

struct gt_executors {
    gt_exec_proc_config cfg;
    gt_exec_proc **v;
    size_t n, cap;
};

gt_executors *gt_executors_new(const gt_exec_proc_config *cfg)
{
    gt_executors *e = calloc(1, sizeof *e);
    if (e)
        e->cfg = *cfg;
    return e;
}

void gt_executors_free(gt_executors *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        gt_exec_proc_free(e->v[i]);
    free(e->v);
    free(e);
}

gt_exec_proc *gt_executors_for(gt_executors *e, uid_t uid)
{
    for (size_t i = 0; i < e->n; i++)
        if (gt_exec_proc_uid(e->v[i]) == uid)
            return e->v[i];
    if (!gt_grow((void **)&e->v, &e->cap, e->n, sizeof *e->v))
        return NULL;
    gt_exec_proc *p = gt_exec_proc_new(&e->cfg, uid);
    if (p)
        e->v[e->n++] = p;
    return p;
}

void gt_executors_unmap(gt_executors *e, uint64_t buffer)
{
    for (size_t i = 0; i < e->n; i++)
        gt_exec_proc_unmap(e->v[i], buffer);
}

void gt_executors_forget(gt_executors *e, uint64_t kernel)
{
    for (size_t i = 0; i < e->n; i++)
        gt_exec_proc_forget(e->v[i], kernel);
}
