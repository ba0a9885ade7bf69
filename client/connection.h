/* connection.h: a client's socket to gridtuned. Requests get ids and are sent one frame at a
 * time; one waiting call at a time reads the socket and hands each reply to the call waiting
 * for that id, so replies may come in any order and one thread may wait on a launch while
 * others go on. */
#ifndef GT_CLIENT_CONNECTION_H
#define GT_CLIENT_CONNECTION_H

#include "handle.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* A socket connected to path (SOCK_CLOEXEC) in *fd; 0, or a negative errno (-ENOENT and
 * -ECONNREFUSED when no daemon listens there) with a sentence naming the path in err. */
int gt_conn_dial(const char *path, int *fd, char *err, size_t errlen);

/* The connection part of a new handle: locks, no socket yet. 0 or a negative errno. */
int gt_conn_init(gt_client *c);
/* Takes fd over; 0, or a negative errno with a sentence on c. */
int gt_conn_start(gt_client *c, int fd);
/* Closes the socket and frees what gt_conn_init made. No call may be in flight. */
void gt_conn_free(gt_client *c);

/* Sends request (taken over, whatever happens) with nfds descriptors (the caller keeps and
 * closes them) and waits for its answer. A result: 0, with the whole reply in *result when
 * result is not NULL (cJSON_Delete it). An error reply: its -errno (-EIO when it has none) and
 * its message as c's sentence. A lost connection: its negative errno (-EPIPE when gridtuned
 * closed it) and a sentence that says so, for this call and every later one. */
int gt_conn_call(gt_client *c, cJSON *request, const int *fds, unsigned nfds, cJSON **result);
/* The same, keeping in *received (the caller's to close) the descriptor that came with a
 * result, or -1 when none came. */
int gt_conn_call_fd(gt_client *c, cJSON *request, const int *fds, unsigned nfds, cJSON **result, int *received);

#endif
