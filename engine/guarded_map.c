/* guarded_map.c: buffers between guard regions (guarded_map.h). */
#include "guarded_map.h"

#include "tuner/sentence.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_ALIGN ((size_t)2 << 20)

int gt_guarded_map_open(int fd, size_t size, gt_guarded_map *out, char *err, size_t errlen)
{
    size_t page = 4096, span = (size + page - 1) / page * page;
    size_t align = size >= HUGE_ALIGN ? HUGE_ALIGN : page;
    if (size == 0 || span < size || span > SIZE_MAX - GT_GUARD_BEFORE - GT_GUARD_AFTER - align)
        return gt_sentence_fail(err, errlen, -EINVAL, "a buffer of %zu bytes cannot be mapped", size);
    size_t total = GT_GUARD_BEFORE + span + GT_GUARD_AFTER + align;
    /* The reservation is never accessible: its pages cost nothing but address space. */
    char *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return gt_sentence_fail(err, errlen, -ENOMEM, "cannot reserve %zu bytes of address space: %s", total,
                                strerror(errno));
    uintptr_t first = ((uintptr_t)base + GT_GUARD_BEFORE + align - 1) / align * align;
    void *data = mmap((void *)first, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (data == MAP_FAILED) {
        int e = errno;
        munmap(base, total);
        return gt_sentence_fail(err, errlen, -e, "cannot map the buffer's %zu bytes: %s", size, strerror(e));
    }
    *out = (gt_guarded_map){.data = data, .base = base, .total = total};
    return 0;
}

void gt_guarded_map_close(gt_guarded_map *m)
{
    if (m->base)
        munmap(m->base, m->total);
    *m = (gt_guarded_map){0};
}
