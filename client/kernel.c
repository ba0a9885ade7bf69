/* kernel.c: kernels (gt_kernel_*): a module the daemon loads, or C source it compiles.
 * Either way the daemon answers with the kernel's id and its parameter list, whose length is
 * kept for gt_kernel_nargs; the daemon checks each launch's arguments against the list. */
#include "connection.h"
#include "handle.h"
#include "handle_registry.h"
#include "last_error.h"
#include "message.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void link_kernel(gt_client *c, gt_kernel *k)
{
    pthread_mutex_lock(&c->lock);
    k->next = c->kernels;
    if (c->kernels)
        c->kernels->prev = k;
    c->kernels = k;
    pthread_mutex_unlock(&c->lock);
}

static void unlink_kernel(gt_client *c, gt_kernel *k)
{
    pthread_mutex_lock(&c->lock);
    if (k->prev)
        k->prev->next = k->next;
    else
        c->kernels = k->next;
    if (k->next)
        k->next->prev = k->prev;
    pthread_mutex_unlock(&c->lock);
}

/* Sends a kernel_load or kernel_build request and makes the kernel from its result. The
 * handle is made and entered first, so that no memory failure comes after the daemon made a
 * kernel this side would not know of. */
static int request_kernel(gt_client *c, cJSON *req, const char *type, gt_kernel **out)
{
    gt_kernel *k = calloc(1, sizeof *k);
    if (!k || gt_handle_add(k, GT_HANDLE_KERNEL, c)) {
        free(k);
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a kernel handle");
    }
    cJSON *result;
    int rc = gt_conn_call(c, req, NULL, 0, &result);
    if (!rc)
        rc = gt_msg_result_id(c, result, type, "kernel", &k->id);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(result, "params");
    if (!rc && !cJSON_IsArray(params))
        rc = gt_fail(c, -EPROTO, "gridtuned answered %s without a \"params\" list", type);
    if (rc) {
        gt_handle_remove(k, GT_HANDLE_KERNEL);
        free(k);
    } else {
        k->client = c;
        k->nargs = (unsigned)cJSON_GetArraySize(params);
        link_kernel(c, k);
        *out = k;
    }
    cJSON_Delete(result);
    return rc;
}

/* module_path made absolute, since the daemon does not share our working directory. A path
 * realpath cannot resolve (a missing file) is still sent, made absolute by hand, so that the
 * daemon's sentence says why it cannot be loaded, as it does for every other module. */
static char *absolute_path(const char *path)
{
    char *real = realpath(path, NULL);
    if (real || path[0] == '/')
        return real ? real : strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return strdup(path);
    char *abs = NULL;
    return asprintf(&abs, "%s/%s", cwd, path) < 0 ? NULL : abs;
}

int gt_kernel_load(gt_client *c, const char *module_path, const char *name, gt_kernel **out)
{
    if (out)
        *out = NULL;
    int rc = gt_handle_check_client(c, "gt_kernel_load");
    if (rc)
        return rc;
    if (!c || !out || !module_path || !name)
        return gt_fail(c, -EINVAL,
                       "gt_kernel_load needs a handle, a module path, a kernel name and a place for the kernel "
                       "(got NULL)");
    char *path = absolute_path(module_path);
    cJSON *req = path ? gt_msg_request("kernel_load") : NULL;
    bool ok = req && cJSON_AddStringToObject(req, "path", path) && cJSON_AddStringToObject(req, "name", name);
    free(path);
    if (!ok) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a kernel_load request for %s", module_path);
    }
    return request_kernel(c, req, "kernel_load", out);
}

int gt_kernel_build(gt_client *c, const char *c_source, const char *name, const char *options, gt_kernel **out)
{
    if (out)
        *out = NULL;
    int rc = gt_handle_check_client(c, "gt_kernel_build");
    if (rc)
        return rc;
    if (!c || !out || !c_source || !name)
        return gt_fail(c, -EINVAL,
                       "gt_kernel_build needs a handle, C source, a kernel name and a place for the kernel (got NULL)");
    cJSON *req = gt_msg_request("kernel_build");
    bool ok = req && cJSON_AddStringToObject(req, "source", c_source) && cJSON_AddStringToObject(req, "name", name) &&
              cJSON_AddStringToObject(req, "options", options ? options : "");
    if (!ok) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a kernel_build request of %zu bytes of source", strlen(c_source));
    }
    return request_kernel(c, req, "kernel_build", out);
}

int gt_kernel_release(gt_kernel *k)
{
    if (!k)
        return 0;
    /* taken out first: of two threads releasing k at once, only one frees it */
    if (!gt_handle_remove(k, GT_HANDLE_KERNEL))
        return gt_fail_dead(NULL, "gt_kernel_release", k, GT_HANDLE_KERNEL);
    gt_client *c = k->client;
    unlink_kernel(c, k);
    cJSON *req = gt_msg_request("kernel_release");
    /* as for buffers: this side is freed whatever the daemon answers */
    if (req && !gt_msg_add_id(req, "kernel", k->id))
        gt_conn_call(c, req, NULL, 0, NULL);
    else
        cJSON_Delete(req);
    free(k);
    return 0;
}

unsigned gt_kernel_nargs(const gt_kernel *k)
{
    if (!k) {
        gt_fail(NULL, -EINVAL, "gt_kernel_nargs was given no kernel (NULL)");
        return 0;
    }
    if (!gt_handle_owner(k, GT_HANDLE_KERNEL)) {
        gt_fail_dead(NULL, "gt_kernel_nargs", k, GT_HANDLE_KERNEL);
        return 0;
    }
    return k->nargs;
}

void gt_kernels_free_all(gt_client *c)
{
    for (gt_kernel *k = c->kernels, *next; k; k = next) {
        next = k->next;
        gt_handle_remove(k, GT_HANDLE_KERNEL);
        free(k);
    }
    c->kernels = NULL;
}
