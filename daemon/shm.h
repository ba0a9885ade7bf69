/* shm.h: a client's buffer as the daemon holds it: a sealed memfd mapped shared, so the
 * client and the kernels see the same bytes with no copy. Reference-counted on the event
 * loop's thread: the session holds one reference, each queued launch that names it another,
 * so a buffer released (or a client gone) mid-launch stays mapped until the launch is done. */
#ifndef GT_SHM_H
#define GT_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gt_usage gt_usage;

typedef struct gt_shm {
    void *data; /* NULL when not mapped in gridtuned */
    size_t size;
    unsigned refs;
    gt_usage *usage; /* when set, the mapping is counted there for uid until it is unmapped */
    uid_t uid;
    uint64_t serial; /* unique in gridtuned's life: the buffer's name for executor processes */
    int fd;          /* gridtuned's own copy of the memfd, to send to an executor */
    /* When set, called with the buffer as its last reference goes, before it is unmapped; it
       may take the descriptor (setting fd to -1). */
    void (*released)(void *ctx, struct gt_shm *b);
    void *released_ctx;
} gt_shm;

/* Maps fd (which stays the caller's; the buffer keeps a copy), unless map is false (kernels
 * run in executor processes, which map it: gridtuned then never maps a client's bytes), after
 * checking that it is a memfd sealed against shrinking (a client that shrank a mapped buffer
 * would kill the daemon with SIGBUS) and exactly size bytes long. from_store: fd is a file on
 * its sender's buffer store (buffer_store.h), which cannot be sealed; taken unsealed when map
 * is false, since only the sender's own executor then maps it. Returns 0, or a negative errno with a sentence: -EPERM for a
 * missing seal, -EINVAL for a file that is not a memfd or of another size, -ENOMEM. */
int gt_shm_map(int fd, uint64_t size, bool map, bool from_store, gt_shm **out, char *err, size_t errlen);
/* Maps every page of the buffer into gridtuned now (MADV_POPULATE_WRITE), as a first write
 * would, without changing its bytes: the launches that use it then take no page faults. Any
 * thread; 0, or a negative errno (-EINVAL from kernels before 5.14, which lack it). */
int gt_shm_populate(gt_shm *b);
gt_shm *gt_shm_ref(gt_shm *b);
void gt_shm_unref(gt_shm *b);

#endif
