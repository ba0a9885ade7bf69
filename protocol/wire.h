/* wire.h: the framing of gridtune's protocol on a Unix stream socket, shared by libgridtune
 * and gridtuned.
 *
 * A frame is an 8-byte header, then a JSON text: the header holds the text's length and the
 * number of file descriptors the frame carries, both as 32-bit big-endian integers. The
 * descriptors travel as SCM_RIGHTS ancillary data sent with the frame's first bytes.
 * As in Wayland's connection.c, received descriptors wait in their own queue, and a complete
 * frame takes as many from its front as its header announced. */
#ifndef GT_WIRE_H
#define GT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_WIRE_HEADER 8
/* Most descriptors one frame may carry, and most waiting in a reader's queue. */
#define GT_WIRE_MAX_FDS 4
#define GT_WIRE_FD_QUEUE 64

/* Sends one frame, blocking until all of it is written (EINTR is retried). Returns 0, or a
 * negative errno with a sentence in err. For the client and for tests. */
int gt_wire_send(int sock, const char *json, size_t len, const int *fds, unsigned nfds, char *err, size_t errlen);

/* One non-blocking write of the frame's start, with the descriptors on its first byte: for a
 * sender that queues the rest itself (gridtuned's sessions). Returns the bytes written (at
 * least 1; the descriptors went with them), or a negative errno when none was (-EAGAIN: the
 * socket is full), and then nothing went. */
long gt_wire_send_start(int sock, const char *json, size_t len, const int *fds, unsigned nfds);

/* Writes the 8-byte header of a frame into out. */
void gt_wire_header(uint32_t len, uint32_t nfds, unsigned char out[GT_WIRE_HEADER]);

/* The receiving side: bytes and descriptors read from one socket, and the frames in them. */
typedef struct gt_wire_reader gt_wire_reader;

/* A reader that refuses frames longer than max_frame bytes of JSON. NULL without memory. */
gt_wire_reader *gt_wire_reader_new(size_t max_frame);
/* Closes the descriptors still queued and frees the reader. */
void gt_wire_reader_free(gt_wire_reader *r);

/* Reads what the socket has (one recvmsg). Returns the bytes read (> 0), 0 at end of file,
 * -EAGAIN when nothing was there on a non-blocking socket, or another negative errno.
 * Descriptors that arrive beyond GT_WIRE_FD_QUEUE are closed and make it return -EMFILE. */
long gt_wire_read(gt_wire_reader *r, int sock);

typedef struct gt_wire_frame {
    char *json;            /* NUL-terminated; the caller frees it */
    size_t len;
    int fds[GT_WIRE_MAX_FDS];
    unsigned nfds;         /* the caller owns and closes these */
} gt_wire_frame;

/* Takes the next complete frame. Returns 1 and fills *f, 0 when no whole frame is buffered
 * yet, or a negative errno with a sentence in err when the stream is broken: -EMSGSIZE for a
 * frame over the limit, -EPROTO for a frame announcing more than GT_WIRE_MAX_FDS descriptors
 * or more than have arrived, -ENOMEM. After an error the stream cannot be resynchronised. */
int gt_wire_next(gt_wire_reader *r, gt_wire_frame *f, char *err, size_t errlen);

/* Bytes buffered that do not yet make a frame (a truncated frame at end of file). */
size_t gt_wire_pending(const gt_wire_reader *r);
/* Descriptors received and not yet taken by a frame. */
unsigned gt_wire_queued_fds(const gt_wire_reader *r);

#endif
