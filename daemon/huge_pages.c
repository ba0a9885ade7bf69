/* huge_pages.c: reading the kernel's shared-memory huge-page mode. */
#include "huge_pages.h"

#include <stdio.h>
#include <string.h>

bool gt_huge_pages_mode(const char *path, char *mode, size_t len)
{
    char text[256] = "";
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
    if (!close || close == open + 1) {
        snprintf(mode, len, "unknown");
        return false;
    }
    snprintf(mode, len, "%.*s", (int)(close - open - 1), open + 1);
    /* deny and never refuse them; force, always and within_size give them even unasked */
    return strcmp(mode, "advise") == 0 || strcmp(mode, "always") == 0 || strcmp(mode, "within_size") == 0 ||
           strcmp(mode, "force") == 0;
}
