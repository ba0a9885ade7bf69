/* handle.h: the structs behind libgridtune's opaque types, shared by the library's files.
 * A client owns the buffers and kernels made through it (kept in lists, so that gt_disconnect
 * can free what the application left), its socket, which the waiting calls take turns to read,
 * handing each reply to its call (connection.c), and the per-thread error sentences (last_error.c). Every
 * handle is also in the process-wide set of live handles (handle_registry.h) from before it is
 * handed out until just before it is freed; nothing here may be read before that check. */
#ifndef GT_CLIENT_HANDLE_H
#define GT_CLIENT_HANDLE_H

#include <gridtune/gridtune.h>

#include "last_error.h"

#include "protocol/wire.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct gt_buffer {
    gt_client *client;
    uint64_t id; /* the daemon's name for it */
    void *data;  /* MAP_SHARED over the memfd the daemon maps too */
    size_t size;
    gt_buffer *prev, *next;
};

struct gt_kernel {
    gt_client *client;
    uint64_t id;
    unsigned nargs;
    gt_kernel *prev, *next;
};

/* One request in flight, on its caller's stack; the call that reads fills in the reply. */
typedef struct gt_pending gt_pending;

struct gt_client {
    int fd; /* -1 until connected */
    int buffer_store; /* the user's tmpfs for buffers, sent with the hello answer; -1: none, memfds */
    gt_wire_reader *wire;      /* used by the call that reads (reading) only */
    pthread_mutex_t send_lock; /* one frame at a time on the socket */

    pthread_mutex_t lock; /* guards everything from here to the error table */
    bool reading;         /* a waiting call reads the socket for all (connection.c) */
    uint64_t next_id;
    gt_pending *pending;
    int lost;       /* 0, or the negative errno the connection was lost with */
    char *lost_why; /* the sentence for it */
    gt_buffer *buffers;
    gt_kernel *kernels;

    gt_error_table errors;
};

/* Frees the local side of the buffers and kernels c still holds, sending nothing: the daemon
 * frees a connection's objects when it ends. For gt_disconnect. */
void gt_buffers_free_all(gt_client *c);
void gt_kernels_free_all(gt_client *c);

#endif
