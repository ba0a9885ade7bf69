/* loaded_kernel.c: kernels as the daemon holds them (loaded_kernel.h). */
#include "loaded_kernel.h"

#include "tuner/sentence.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void list_kernels(const gt_module *m, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < gt_module_count(m) && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", gt_module_kernel(m, i)->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int gt_loaded_kernel_open(const char *path, const char *name, gt_loaded_kernel **out, char *err, size_t errlen)
{
    gt_loaded_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = gt_module_open(path, &k->module, err, errlen);
    if (rc == 0 && !(k->desc = gt_module_find(k->module, name))) {
        char names[256];
        list_kernels(k->module, names, sizeof names);
        snprintf(err, errlen, "the module %s has no kernel \"%s\"; it has: %s", path, name,
                 names[0] ? names : "none");
        rc = -ENOENT;
    }
    if (rc == 0)
        rc = gt_kernel_identity(path, name, k->hash, err, errlen);
    if (rc == 0 && !(k->path = strdup(path)))
        rc = gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
    if (rc) {
        if (k->module)
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
    gt_module_close(k->module);
    free(k->path);
    free(k);
}

static const char *kind_name(gt_param_kind kind)
{
    return kind == GT_PARAM_BUFFER ? "buffer" : kind == GT_PARAM_BUFFER_RO ? "buffer_ro" : "scalar";
}

cJSON *gt_loaded_kernel_params(const gt_loaded_kernel *k)
{
    cJSON *params = cJSON_CreateArray();
    for (uint32_t i = 0; params && i < k->desc->nparams; i++) {
        const gt_param_desc *p = &k->desc->params[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(params, o) || !cJSON_AddStringToObject(o, "name", p->name) ||
            !cJSON_AddStringToObject(o, "type", p->type) || !cJSON_AddStringToObject(o, "kind", kind_name(p->kind)) ||
            !cJSON_AddNumberToObject(o, "size", p->size)) {
            cJSON_Delete(params);
            return NULL;
        }
    }
    return params;
}
