/* json.c: exact number text and axis lists for cJSON trees. */
#include "json.h"

#include "space.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *gt_json_real(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    char text[40];
    /* The shortest of 15, 16 or 17 significant digits that reads back to the same double. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    const char *point = localeconv()->decimal_point;
    char *p = point && point[0] && point[0] != '.' && !point[1] ? strchr(text, point[0]) : NULL;
    if (p)
        *p = '.';
    return cJSON_CreateRaw(text);
}

cJSON *gt_json_int(int64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    return cJSON_CreateRaw(text);
}

cJSON *gt_json_uint(uint64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return cJSON_CreateRaw(text);
}

cJSON *gt_json_axes(unsigned axes)
{
    cJSON *list = cJSON_CreateArray();
    for (int a = 0; list && a < GT_AXIS_COUNT; a++) {
        cJSON *name = axes & (1u << a) ? cJSON_CreateString(gt_axis_name((gt_axis)a)) : NULL;
        if ((axes & (1u << a)) && !cJSON_AddItemToArray(list, name)) {
            cJSON_Delete(name);
            cJSON_Delete(list);
            return NULL;
        }
    }
    return list;
}
