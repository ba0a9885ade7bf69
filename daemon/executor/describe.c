/* describe.c: the loader process's side of describing a kernel (describe.h). */
#include "describe.h"

#include "daemon/kernel_info.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Opens the module and finds the kernel; its description, or NULL with errno and a sentence. */
static cJSON *describe(const char *path, const char *name, int *rc, char *err, size_t errlen)
{
    gt_module *m;
    if ((*rc = gt_module_open(path, &m, err, errlen)) != 0)
        return NULL;
    const gt_kernel_desc *k;
    cJSON *d = NULL;
    if ((*rc = gt_module_lookup(m, path, name, &k, err, errlen)) == 0 && !(d = gt_kernel_info_describe(m, k))) {
        snprintf(err, errlen, "out of memory describing kernel %s", name);
        *rc = -ENOMEM;
    }
    gt_module_close(m);
    return d;
}

int gt_describe_main(const char *module, const char *kernel)
{
    char err[1024];
    int rc;
    cJSON *kernel_json = describe(module, kernel, &rc, err, sizeof err), *out = cJSON_CreateObject();
    bool ok = out && (kernel_json ? cJSON_AddItemToObject(out, "kernel", kernel_json)
                                  : cJSON_AddStringToObject(out, "error", err) &&
                                        cJSON_AddNumberToObject(out, "errno", -rc));
    if (!ok)
        cJSON_Delete(kernel_json);
    char *text = ok ? cJSON_PrintUnformatted(out) : NULL;
    cJSON_Delete(out);
    if (!text) {
        fprintf(stderr, "gridtune-exec --describe: out of memory\n");
        return 1;
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(GT_DESCRIBE_ANSWER_FD, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    ok = done == len;
    free(text);
    return ok ? 0 : 1;
}
