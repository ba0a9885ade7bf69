/* guarded_map.h: a buffer's mapping between two inaccessible guard regions, so that a kernel
 * that runs off either end of its buffer by a little faults instead of writing into whatever
 * mapping lies next to it. An executor process maps every client buffer this way. */
#ifndef GT_GUARDED_MAP_H
#define GT_GUARDED_MAP_H

#include <stddef.h>

/* The guards: a page before, and 64 KiB after, where overruns of a row or a tile land
 * (SIGSEGV). Bytes between the buffer's end and its last page's end stay accessible: the page
 * is the unit. */
#define GT_GUARD_BEFORE 4096u
#define GT_GUARD_AFTER (64u << 10)
/* The kernel mappings (vm.max_map_count counts them) a buffer takes: its data and a guard on
 * either side; 2 where the reservations lie side by side and neighbours' guards merge, as they
 * mostly do, 3 at most. */
#define GT_GUARDED_MAP_MAPPINGS 3u

typedef struct gt_guarded_map {
    void *data;  /* the buffer's first byte */
    void *base;  /* the whole reservation, guards and alignment slack included */
    size_t total;
} gt_guarded_map;

/* Maps size bytes of fd shared, readable and writable, between the guards. The buffer's start
 * is aligned to 2 MiB when it is at least that large, so that it can get huge pages. Returns 0,
 * or a negative errno with a sentence in err. */
int gt_guarded_map_open(int fd, size_t size, gt_guarded_map *out, char *err, size_t errlen);
/* Unmaps the buffer and its guards. */
void gt_guarded_map_close(gt_guarded_map *m);

#endif
