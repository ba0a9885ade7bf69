/* kernel.c: kernels (gt_kernel_*): a module the daemon loads, or C source it compiles.
 * Either way the daemon answers with the kernel's id and its parameter list, whose length is
 * kept for gt_kernel_nargs; the daemon checks each launch's arguments against the list. */
#include "connection.h"
#include "handle.h"
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

/* Sends a kernel_load or kernel_build request and makes the kernel from its result. */
static int request_kernel(gt_client *c, cJSON *req, const char *type, gt_kernel **out)
{
    cJSON *result;
    int rc = gt_conn_call(c, req, NULL, 0, &result);
    if (rc)
        return rc;
    uint64_t id;
    rc = gt_msg_result_id(c, result, type, "kernel", &id);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(result, "params");
    if (!rc && !cJSON_IsArray(params))
        rc = gt_fail(c, -EPROTO, "gridtuned answered %s without a \"params\" list", type);
    gt_kernel *k = rc ? NULL : calloc(1, sizeof *k);
    if (!rc && !k)
        rc = gt_fail(c, -ENOMEM, "no memory for a kernel handle");
    if (k) {
        k->client = c;
        k->id = id;
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
    if (!c || !out || !module_path || !name)
        return gt_fail(c, -EINVAL,
                       "gt_kernel_load needs a handle, a module path, a kernel name and a place for the kernel "
                       "(got NULL)");
    *out = NULL;
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
    if (!c || !out || !c_source || !name)
        return gt_fail(c, -EINVAL,
                       "gt_kernel_build needs a handle, C source, a kernel name and a place for the kernel (got NULL)");
    *out = NULL;
    cJSON *req = gt_msg_request("kernel_build");
    bool ok = req && cJSON_AddStringToObject(req, "source", c_source) && cJSON_AddStringToObject(req, "name", name) &&
              cJSON_AddStringToObject(req, "options", options ? options : "");
    if (!ok) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a kernel_build request of %zu bytes of source", strlen(c_source));
    }
    return request_kernel(c, req, "kernel_build", out);
}

void gt_kernel_release(gt_kernel *k)
{
    if (!k)
        return;
    gt_client *c = k->client;
    unlink_kernel(c, k);
    cJSON *req = gt_msg_request("kernel_release");
    /* as for buffers: this side is freed whatever the daemon answers */
    if (req && !gt_msg_add_id(req, "kernel", k->id))
        gt_conn_call(c, req, NULL, 0, NULL);
    else
        cJSON_Delete(req);
    free(k);
}

unsigned gt_kernel_nargs(const gt_kernel *k)
{
    return k ? k->nargs : 0;
}

void gt_kernels_free_all(gt_client *c)
{
    for (gt_kernel *k = c->kernels, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    c->kernels = NULL;
}
