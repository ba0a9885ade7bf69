/* shm.c: checking and mapping clients' memfds (shm.h). */
#include "shm.h"

#include "usage.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <unistd.h>

static int not_read_write(char *err, size_t errlen)
{
    snprintf(err, errlen, "the descriptor sent with the buffer is not open for reading and writing; open or create "
             "it O_RDWR");
    return -EINVAL;
}

int gt_shm_map(int fd, uint64_t size, bool map, bool from_store, gt_shm **out, char *err, size_t errlen)
{
    /* Kernels write their buffers, in an executor that maps them shared, for reading and
       writing: a descriptor that cannot be mapped so is refused here, not at its first launch. */
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_PATH))
        return not_read_write(err, errlen);
    int seals = from_store && !map ? F_SEAL_SHRINK : fcntl(fd, F_GET_SEALS);
    if (seals < 0) {
        snprintf(err, errlen, "the descriptor sent with the buffer is not a memfd that allows sealing (%s); "
                 "create it with memfd_create(..., MFD_ALLOW_SEALING)", strerror(errno));
        return -EINVAL;
    }
    if (!(seals & F_SEAL_SHRINK)) {
        snprintf(err, errlen, "the buffer's memfd is not sealed with F_SEAL_SHRINK, and it is no file of the buffer store "
                 "the hello answer brought; gridtuned refuses buffers that could shrink under a running kernel");
        return -EPERM;
    }
    if ((flags & O_ACCMODE) != O_RDWR)
        return not_read_write(err, errlen);
    if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
        snprintf(err, errlen, "the buffer's memfd is sealed against writes (F_SEAL_WRITE or F_SEAL_FUTURE_WRITE); "
                 "kernels write their buffers");
        return -EPERM;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
        snprintf(err, errlen, "the buffer's memfd holds %jd bytes, but the message says %" PRIu64,
                 (intmax_t)st.st_size, size);
        return -EINVAL;
    }
    if (size == 0 || size > SIZE_MAX) {
        snprintf(err, errlen, "buffer size %" PRIu64 ": expected at least 1 byte", size);
        return -EINVAL;
    }
    gt_shm *b = malloc(sizeof *b);
    void *data = !b ? MAP_FAILED : map ? mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : NULL;
    if (data == MAP_FAILED) {
        int e = b ? errno : ENOMEM;
        snprintf(err, errlen, "cannot map the buffer's %" PRIu64 " bytes: %s%s", size, strerror(e),
                 e == EPERM ? " (is the memfd sealed against writes?)" : "");
        free(b);
        return e == EPERM || e == EACCES ? -EPERM : -ENOMEM;
    }
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) {
        int e = errno;
        if (data)
            munmap(data, (size_t)size);
        free(b);
        snprintf(err, errlen, "cannot keep the buffer's descriptor: %s", strerror(e));
        return e == EMFILE || e == ENFILE ? -EMFILE : -ENOMEM;
    }
    if (data)
        (void)madvise(data, (size_t)size, MADV_HUGEPAGE);
    static _Atomic uint64_t serials;
    *b = (gt_shm){.data = data, .size = (size_t)size, .refs = 1, .fd = copy, .serial = atomic_fetch_add(&serials, 1) + 1};
    *out = b;
    return 0;
}

int gt_shm_populate(gt_shm *b)
{
    return madvise(b->data, b->size, MADV_POPULATE_WRITE) == 0 ? 0 : -errno;
}

gt_shm *gt_shm_ref(gt_shm *b)
{
    b->refs++;
    return b;
}

void gt_shm_unref(gt_shm *b)
{
    if (!b || --b->refs > 0)
        return;
    if (b->released)
        b->released(b->released_ctx, b);
    if (b->usage)
        gt_usage_buffer_remove(b->usage, b->uid, b->size);
    if (b->data)
        munmap(b->data, b->size);
    if (b->fd >= 0)
        close(b->fd);
    free(b);
}
