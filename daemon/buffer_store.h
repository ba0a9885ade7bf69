/* buffer_store.h: where clients make their buffers, so that buffers get huge pages.
 *
 * A memfd lives on the kernel's internal shared-memory mount, which gives huge pages only when
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled allows them, a machine-wide switch that is
 * "never" on many machines (this one included). A tmpfs instance of gridtuned's own, mounted
 * nowhere (fsopen and fsmount) with huge=within_size, gets them whatever that switch says (short of
 * "deny"): a kernel walking a large buffer down its columns then misses the TLB once per 2 MiB
 * instead of once per 4 KiB, as it would in a program's private memory.
 *
 * Each user has a store of their own, whose root only that user may write (mode 0700), so one
 * user's files never fill another's. A client gets its user's store with the hello answer (one
 * descriptor) and makes each buffer there as an unnamed file (O_TMPFILE). Such a file cannot be
 * sealed, so gridtuned takes it unsealed when it comes from the sender's own store. That is safe
 * because gridtuned then maps no buffer itself: executor processes do, and a client that shrinks
 * its buffer under them faults its own user's launch, which fails naming the buffer while the
 * executor restarts. With --isolation none gridtuned maps buffers, so there is no store and
 * every buffer is a sealed memfd, as it is when a store cannot be made.
 *
 * Everything here runs on the event loop's thread. */
#ifndef GT_BUFFER_STORE_H
#define GT_BUFFER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The huge-page mode of every store. */
#define GT_BUFFER_STORE_HUGE "within_size"

/* A new store for uid: a detached tmpfs mount with huge=within_size whose root belongs to uid
 * with mode 0700. Made directly with CAP_SYS_ADMIN; otherwise, for gridtuned's own user only,
 * in a child process with a user and mount namespace of its own, which passes the mount back.
 * Returns the mount's descriptor (O_CLOEXEC), with *namespaced (when not NULL) saying whether the
 * child made it, or a negative errno with a sentence in err. */
int gt_buffer_store_mount(uid_t uid, bool *namespaced, char *err, size_t errlen);

typedef struct gt_buffer_stores gt_buffer_stores;

/* The stores of every user. enabled false: there are none, for the reason in off_why (a
 * sentence, copied). NULL without memory. */
gt_buffer_stores *gt_buffer_stores_new(bool enabled, const char *off_why);
/* Closes every store's descriptor (files made there live on while mapped or open). */
void gt_buffer_stores_free(gt_buffer_stores *s);
/* uid's store, made on the first call: its descriptor, which stays the stores', or -1 when uid
 * has none (the reason is logged once, and then kept for the status). */
int gt_buffer_stores_get(gt_buffer_stores *s, uid_t uid);
/* True when fd is a regular file on uid's store. */
bool gt_buffer_stores_holds(const gt_buffer_stores *s, uid_t uid, int fd);
/* "tmpfs" when stores are made, "memfd" when buffers stay memfds; *why then says why. */
const char *gt_buffer_stores_kind(const gt_buffer_stores *s, const char **why);

#endif
