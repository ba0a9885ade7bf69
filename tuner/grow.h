/* grow.h: room for one more element of an array that doubles as it fills, the one growth rule
 * the array-of-records owners above share. */
#ifndef GT_GROW_H
#define GT_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Makes *v (of *cap elements of size bytes, n of them used) hold at least n + 1; false without
 * memory, *v and *cap unchanged. */
static inline bool gt_grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t more = *cap ? *cap * 2 : 16;
    void *q = realloc(*v, more * size);
    if (!q)
        return false;
    *v = q;
    *cap = more;
    return true;
}

#endif
