/* fuzz_kernel_info.c: a kernel's description as the module loader writes it (daemon/
 * kernel_info.h, gridtune-exec --describe), which gridtuned reads as untrusted JSON: the
 * loader ran a client's module. A description that is read must hold up in every use gridtuned
 * makes of it: the protocol's params, an extent check, and described again, read back the same. */
#include "fuzz.h"

#include "daemon/kernel_info.h"

#include <cjson/cJSON.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *json = cJSON_ParseWithLength((const char *)data, size);
    gt_kernel_info info;
    char err[512];
    if (!json || gt_kernel_info_read(json, &info, err, sizeof err) != 0) {
        cJSON_Delete(json);
        return 0;
    }
    cJSON_Delete(json);
    cJSON *params = gt_kernel_info_params(&info);
    FUZZ_CHECK(params && cJSON_GetArraySize(params) == (int)info.desc.nparams);
    cJSON_Delete(params);
    size_t bytes[GT_MODULE_MAX_PARAMS] = {0};
    int rc = gt_kernel_info_check_extents(&info, 1000, bytes, err, sizeof err);
    bool any_extent = false;
    for (uint32_t i = 0; i < info.desc.nparams; i++)
        any_extent = any_extent || info.extent[i] != 0;
    FUZZ_CHECK((rc != 0) == any_extent); /* empty buffers hold no extent of 1000 items */
    gt_kernel_info_free(&info);
    return 0;
}
