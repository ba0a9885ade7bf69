/* loaded_kernel.c: kernels as the daemon holds them (loaded_kernel.h). */
#include "loaded_kernel.h"

#include "executor/describe_run.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In-process: the module opened here, and the kernel's description read back as a loader's
 * would be, so that both ways hold the same checked data. */
static int open_here(const char *path, const char *name, gt_loaded_kernel *k, char *err, size_t errlen)
{
    int rc = gt_module_open(path, &k->module, err, errlen);
    if (rc == 0)
        rc = gt_module_lookup(k->module, path, name, &k->desc, err, errlen);
    if (rc)
        return rc;
    cJSON *json = gt_kernel_info_describe(k->module, k->desc);
    rc = json ? gt_kernel_info_read(json, &k->info, err, errlen)
              : gt_sentence_fail(err, errlen, -ENOMEM, "out of memory describing kernel %s", name);
    cJSON_Delete(json);
    return rc;
}

static int open_in_loader(const char *loader, const char *path, const char *name, gt_loaded_kernel *k, char *err,
                          size_t errlen)
{
    int rc = gt_describe_run(loader, path, name, &k->info, err, errlen);
    if (rc == 0 && strcmp(k->info.desc.name, name) != 0) {
        gt_kernel_info_free(&k->info);
        return gt_sentence_fail(err, errlen, -EINVAL, "the loader of %s described another kernel than \"%s\"", path,
                                name);
    }
    k->desc = &k->info.desc;
    return rc;
}

int gt_loaded_kernel_open(const char *path, const char *name, const char *loader, gt_loaded_kernel **out, char *err,
                          size_t errlen)
{
    gt_loaded_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
    int rc = loader ? open_in_loader(loader, path, name, k, err, errlen) : open_here(path, name, k, err, errlen);
    if (rc == 0)
        rc = gt_kernel_identity(path, name, k->hash, err, errlen);
    if (rc == 0 && !(k->path = strdup(path)))
        rc = gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
    if (rc) {
        gt_kernel_info_free(&k->info);
        gt_module_close(k->module);
        free(k);
        return rc;
    }
    static _Atomic uint64_t serials;
    k->serial = atomic_fetch_add(&serials, 1) + 1;
    k->refs = 1;
    *out = k;
    return 0;
}

gt_loaded_kernel *gt_loaded_kernel_ref(gt_loaded_kernel *k)
{
    k->refs++;
    return k;
}

void gt_loaded_kernel_unref(gt_loaded_kernel *k)
{
    if (!k || --k->refs > 0)
        return;
    if (k->released)
        k->released(k->released_ctx, k);
    gt_kernel_info_free(&k->info);
    gt_module_close(k->module);
    free(k->path);
    free(k);
}

gt_tune_launch gt_loaded_kernel_launch(const gt_loaded_kernel *k, const char *machine, const gt_range *range)
{
    return (gt_tune_launch){.kernel = k->desc->name, .kernel_hash = k->hash, .machine = machine, .range = *range,
                            .workgroup = k->desc->flags & GT_KERNEL_WORKGROUP, .local_bytes = k->desc->local_bytes};
}
