/* kernel_info.c: kernels described as data (kernel_info.h). */
#include "kernel_info.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON numbers are doubles: integers above 2^53 would not read back as written. */
#define EXACT_INTEGER_MAX 9007199254740992.0

static const char *const kind_names[] = {[GT_PARAM_SCALAR] = "scalar", [GT_PARAM_BUFFER] = "buffer",
                                         [GT_PARAM_BUFFER_RO] = "buffer_ro"};

static const char *kind_name(gt_param_kind kind)
{
    return kind <= GT_PARAM_BUFFER_RO ? kind_names[kind] : "?";
}

static cJSON *describe_param(const gt_param_desc *p, uint64_t extent)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "name", p->name) || !cJSON_AddStringToObject(o, "type", p->type) ||
        !cJSON_AddStringToObject(o, "kind", kind_name(p->kind)) || !cJSON_AddNumberToObject(o, "size", p->size) ||
        (extent && !cJSON_AddNumberToObject(o, "extent", (double)extent))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *gt_kernel_info_describe(const gt_module *m, const gt_kernel_desc *k)
{
    cJSON *o = cJSON_CreateObject(), *params = cJSON_CreateArray();
    if (!o || !params || !cJSON_AddItemToObject(o, "params", params)) {
        cJSON_Delete(params);
        cJSON_Delete(o);
        return NULL;
    }
    bool ok = cJSON_AddStringToObject(o, "name", k->name) && cJSON_AddNumberToObject(o, "flags", k->flags) &&
              cJSON_AddNumberToObject(o, "local_bytes", k->local_bytes);
    for (uint32_t i = 0; ok && i < k->nparams; i++) {
        cJSON *p = describe_param(&k->params[i], gt_module_extent(m, k, i));
        ok = p && cJSON_AddItemToArray(params, p);
        if (!ok)
            cJSON_Delete(p);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int bad(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "the kernel's description is malformed: %s", what);
    return -EINVAL;
}

/* A copy of a string field of at most GT_KERNEL_INFO_TEXT_MAX bytes, or NULL (err set). */
static char *read_text(const cJSON *o, const char *key, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char what[96];
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= GT_KERNEL_INFO_TEXT_MAX) {
        snprintf(what, sizeof what, "\"%s\" must be a string of 1 to %d bytes", key, GT_KERNEL_INFO_TEXT_MAX - 1);
        bad(err, errlen, what);
        return NULL;
    }
    char *copy = strdup(v->valuestring);
    if (!copy)
        snprintf(err, errlen, "out of memory reading the kernel's description");
    return copy;
}

/* An integer field in [0, max]; absent reads as 0 when optional. */
static bool read_integer(const cJSON *o, const char *key, bool optional, double max, uint64_t *out, char *err,
                         size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v && optional)
        return true;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > max ||
        v->valuedouble != (double)(uint64_t)v->valuedouble) {
        char what[96];
        snprintf(what, sizeof what, "\"%s\" must be an integer from 0 to %.0f", key, max);
        bad(err, errlen, what);
        return false;
    }
    *out = (uint64_t)v->valuedouble;
    return true;
}

static int read_kind(const cJSON *o, gt_param_kind *out, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "kind");
    for (unsigned k = 0; cJSON_IsString(v) && k < sizeof kind_names / sizeof kind_names[0]; k++)
        if (strcmp(v->valuestring, kind_names[k]) == 0) {
            *out = (gt_param_kind)k;
            return 0;
        }
    return bad(err, errlen, "a parameter's \"kind\" must be scalar, buffer or buffer_ro");
}

static int read_param(const cJSON *o, gt_param_desc *p, uint64_t *extent, char *err, size_t errlen)
{
    uint64_t size;
    if (!cJSON_IsObject(o))
        return bad(err, errlen, "a parameter must be an object");
    if (!(p->name = read_text(o, "name", err, errlen)) || !(p->type = read_text(o, "type", err, errlen)))
        return -EINVAL;
    if (read_kind(o, &p->kind, err, errlen) || !read_integer(o, "size", false, 64, &size, err, errlen) ||
        !read_integer(o, "extent", true, EXACT_INTEGER_MAX, extent, err, errlen))
        return -EINVAL;
    p->size = (uint32_t)size;
    if (*extent && p->kind == GT_PARAM_SCALAR)
        return bad(err, errlen, "a scalar parameter has an extent");
    return 0;
}

int gt_kernel_info_read(const cJSON *json, gt_kernel_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->desc = (gt_kernel_desc){.abi_version = GT_KERNEL_ABI_VERSION, .params = out->params};
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(json, "params");
    uint64_t flags, local_bytes;
    int rc = 0;
    if (!cJSON_IsObject(json))
        rc = bad(err, errlen, "it is not an object");
    else if (!(out->desc.name = read_text(json, "name", err, errlen)))
        rc = -EINVAL;
    else if (!read_integer(json, "flags", false, UINT32_MAX, &flags, err, errlen) ||
             !read_integer(json, "local_bytes", false, UINT32_MAX, &local_bytes, err, errlen))
        rc = -EINVAL;
    else if (!cJSON_IsArray(params) || cJSON_GetArraySize(params) > GT_MODULE_MAX_PARAMS)
        rc = bad(err, errlen, "\"params\" must be an array of at most 64 parameters");
    const cJSON *p = params ? params->child : NULL;
    for (uint32_t i = 0; rc == 0 && p; i++, p = p->next) {
        out->desc.nparams = i + 1;
        rc = read_param(p, &out->params[i], &out->extent[i], err, errlen);
    }
    if (rc == 0) {
        out->desc.flags = (uint32_t)flags;
        out->desc.local_bytes = (uint32_t)local_bytes;
        rc = gt_kernel_record_check(&out->desc, err, errlen);
    }
    if (rc)
        gt_kernel_info_free(out);
    return rc;
}

void gt_kernel_info_free(gt_kernel_info *info)
{
    for (uint32_t i = 0; i < info->desc.nparams; i++) {
        free((char *)info->params[i].name);
        free((char *)info->params[i].type);
    }
    free((char *)info->desc.name);
    memset(info, 0, sizeof *info);
}

int gt_kernel_info_check_extents(const gt_kernel_info *info, uint64_t items, const size_t *bytes, char *err,
                                 size_t errlen)
{
    for (uint32_t i = 0; i < info->desc.nparams; i++) {
        int rc = gt_extent_check(&info->desc, i, info->extent[i], items, bytes[i], err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

cJSON *gt_kernel_info_params(const gt_kernel_info *info)
{
    cJSON *params = cJSON_CreateArray();
    for (uint32_t i = 0; params && i < info->desc.nparams; i++) {
        cJSON *p = describe_param(&info->params[i], 0);
        if (!p || !cJSON_AddItemToArray(params, p)) {
            cJSON_Delete(p);
            cJSON_Delete(params);
            return NULL;
        }
    }
    return params;
}
