/* server.h: gridtuned's listening socket. It makes the socket's directory private (per-user
 * mode) or group-owned (system mode), takes a lock beside the socket so that two daemons
 * never serve one path, replaces a stale socket, and checks every peer with SO_PEERCRED. */
#ifndef GT_SERVER_H
#define GT_SERVER_H

#include "daemon.h"

#include <stddef.h>

typedef struct gt_server gt_server;

/* Returns 0, -EADDRINUSE when another gridtuned holds the socket, or another negative
 * errno; with a sentence in err. */
int gt_server_start(gt_daemon *d, gt_server **out, char *err, size_t errlen);
/* Stops accepting (the socket file is removed); sessions stay. */
void gt_server_stop_accepting(gt_server *srv);
/* Closes the listener if still open and releases the lock. */
void gt_server_free(gt_server *srv);

#endif
