/* number.c: strict decimal parsing for the text forms.
 * strtoul accepts signs, spaces and trailing junk, and needs a terminator; our texts are slices
 * of longer strings, so this reads exactly the characters it is given. */
#include "number.h"

#include <errno.h>

int gt_parse_u32(const char *text, size_t len, uint32_t min, uint32_t max, uint32_t *out)
{
    if (len == 0)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -EINVAL;
        v = v * 10 + (uint64_t)(text[i] - '0');
        if (v > UINT32_MAX)
            return -ERANGE;
    }
    if (v < min || v > max)
        return -ERANGE;
    *out = (uint32_t)v;
    return 0;
}
