/* channel.h: the line between gridtuned and one executor process. A sealed memfd holds two
 * mailboxes (requests one way, replies the other) and a crash record; a SOCK_SEQPACKET
 * socketpair carries descriptors (new buffers) and wakes a side that sleeps. One request is
 * outstanding at a time, so each mailbox has one slot; a second message waits for the slot.
 *
 * A side that expects a message soon spins on the mailbox's sequence number for a while, so a
 * launch answered within that time costs no system call and no wake-up; after that it says it
 * sleeps and blocks on the socket, and the writer then sends one byte.
 *
 * gridtuned trusts nothing the executor writes: the executor runs clients' kernels, which can
 * scribble over the whole mapping. Lengths are clamped and every message is copied out before
 * it is read, and the memfd's size is sealed so that the executor cannot make gridtuned fault. */
#ifndef GT_CHANNEL_H
#define GT_CHANNEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GT_CHANNEL_REQUEST_MAX (64u << 10) /* a launch with its wisdom entry is a few KiB */
#define GT_CHANNEL_REPLY_MAX (16u << 20)   /* a launch's report; pages are touched only as written */
#define GT_CHANNEL_MAX_FDS 4               /* descriptors one socket message carries */
#define GT_CHANNEL_FD_QUEUE 16             /* descriptors received and not yet taken */

/* What the executor's fatal-signal handler leaves for gridtuned to read after its death. */
typedef struct gt_channel_crash {
    _Atomic uint32_t signal; /* 0: none recorded */
    int32_t code;            /* si_code */
    int32_t syscall;         /* SIGSYS: the forbidden system call's number, else -1 */
    uint32_t pad;
    uint64_t addr;           /* si_addr */
} gt_channel_crash;

typedef struct gt_channel gt_channel;

/* gridtuned's side: makes the memfd and the socketpair. *child_mem and *child_sock are the
 * executor's ends, to be passed to it (not close-on-exec: dup2 them in the child); the caller
 * closes its copies once the executor has started. Returns 0 or a negative errno with a
 * sentence. The caller owns *out (gt_channel_close). */
int gt_channel_create(gt_channel **out, int *child_mem, int *child_sock, char *err, size_t errlen);
/* The executor's side, from the two descriptors it was given (it owns them from here on).
 * Returns 0 or a negative errno with a sentence. */
int gt_channel_attach(int mem, int sock, gt_channel **out, char *err, size_t errlen);
void gt_channel_close(gt_channel *c);

/* How long a side that expects a message polls before it sleeps (0: it sleeps at once). */
void gt_channel_set_spin(gt_channel *c, unsigned spin_us);

/* Sends len bytes (at most the direction's maximum) as the next message, with nfds descriptors
 * (which stay the caller's) sent ahead of it on the socket, once the peer has taken the
 * previous message. gridtuned sends requests, the executor replies. Returns 0 or a negative
 * errno (-EMSGSIZE, -EPIPE when the peer is gone). */
int gt_channel_send(gt_channel *c, const void *msg, size_t len, const int *fds, unsigned nfds);

/* Waits for the next message and copies it into buf (cap bytes; longer messages are cut to
 * cap, and *len says how long it was). Descriptors that arrived are queued for
 * gt_channel_take_fd. Also returns when watch_fd (may be -1) becomes readable, with -EINTR, or
 * after timeout_ms (-1: none), with -ETIMEDOUT. Returns 0, -EPIPE when the peer closed its end,
 * or another negative errno. */
int gt_channel_receive(gt_channel *c, void *buf, size_t cap, size_t *len, int watch_fd, int timeout_ms);

/* The oldest descriptor received and not yet taken, now the caller's; -1 when none. */
int gt_channel_take_fd(gt_channel *c);

/* The crash record in the shared mapping: the executor writes it from its signal handler,
 * gridtuned reads it after the executor died (and must not trust it). */
gt_channel_crash *gt_channel_crash_record(gt_channel *c);

#endif
