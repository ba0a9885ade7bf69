/* session.h: one client connection: its socket, its frames in and out, and the objects it
 * owns (buffers, kernels, launch events). Everything a client made is freed when it goes,
 * also in the middle of a launch: queued launches see `closed` and are cancelled, a running
 * one finishes, and the references its job holds keep its buffers mapped until then.
 * Replies are queued and written as the socket accepts them, so a client that does not read
 * never blocks the daemon; one that lets too much pile up is dropped. Everything here is the
 * loop thread's, except that a launch job may write its answer from the launcher thread. */
#ifndef GT_SESSION_H
#define GT_SESSION_H

#include "daemon.h"
#include "idtable.h"

#include "protocol/wire.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <event2/buffer.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

/* How long a refused connection waits for its hello, to answer it with the refusal, and how
 * many may wait at once (beyond that, a refusal is answered at once and the connection closed,
 * so that a client connecting in a loop cannot hold the daemon's descriptors). */
#define GT_REFUSED_LINGER_S 5
#define GT_REFUSED_LINGER_MAX 32
/* Connections whose "connected" and "session closed" lines are logged in a second, at most;
 * the lines of the others are held (said in the next that passes), so that a client
 * connecting in a loop cannot fill the log or the disk. */
#define GT_SESSION_LOG_BURST 20

struct gt_session {
    gt_daemon *d;
    uint64_t serial; /* numbers connections in the log and the trace */
    int fd;
    uid_t uid;
    pid_t pid;
    struct event *read_ev, *write_ev;
    struct event *frame_timer; /* armed until the hello, and while a frame is partly received (--frame-timeout) */
    size_t partial_counted;    /* this session's share of d->partial_bytes */
    unsigned fds_counted;      /* and of d->queued_fds */
    bool counted;              /* counted in d->usage as a client */
    char refusal[256];         /* over a connection limit: the answer to its hello, or "" */
    int refusal_errno;
    bool lingering;            /* refused, and counted in d->refused_lingering */
    bool log_held;             /* its connected line was held (GT_SESSION_LOG_BURST): so is its close */
    struct evbuffer *out;
    size_t out_counted; /* out's length as counted in d->output_bytes; under out_lock */
    /* out and writes to fd: the loop's thread and a job answering from its own thread
       (gt_session_send_now) take turns */
    pthread_mutex_t out_lock;
    /* Launches answered from the launcher thread that the loop has not yet taken back
       (requests/launches.c). Until it has, the session's later requests wait, and its socket is
       not read, so that each sees its earlier launches done: counted, reported, released. */
    atomic_uint early_answers;
    gt_wire_reader *reader;
    bool ended; /* the client shut its side: nothing more to read */
    bool greeted;
    atomic_bool closed;
    unsigned refs; /* the daemon's list, and every job of this session not yet done */
    gt_idtable buffers, kernels, events;
    uint64_t next_id;
    uint64_t buffer_bytes;
    unsigned inflight; /* launches queued or running */
    unsigned waiting;  /* requests awaiting their launches: the waiters of this session's events */
    unsigned kernels_loading;
    gt_session *prev, *next;
};

/* Takes fd (a connected, non-blocking socket) and starts reading it. A client over the
 * connection limits (usage.h) is not counted: its hello is answered with a `limit` error
 * and the connection closed (also when no hello comes in GT_REFUSED_LINGER_S). NULL without
 * memory, or for a refusal answered at once (fd is then closed). */
gt_session *gt_session_open(gt_daemon *d, int fd, uid_t uid, pid_t pid);
/* Stops serving the client and frees what it owns; idempotent. reason goes to the log.
 * This drops the daemon's reference, which may be the last: a caller that uses s afterwards
 * must hold a reference of its own (gt_session_ref). So may every call that sends, since a
 * failed write closes the session. */
void gt_session_close(gt_session *s, const char *reason);
gt_session *gt_session_ref(gt_session *s);
void gt_session_unref(gt_session *s);
uint64_t gt_session_new_id(gt_session *s);

/* Queues a frame holding msg (type and id already set) and takes msg. request names the
 * request it answers, for the trace. */
void gt_session_send(gt_session *s, cJSON *msg, const char *request);
/* The same with fd (which stays the caller's) attached, so the client receives its own copy.
 * Descriptors travel with a frame's first byte, so fd goes only when nothing is queued before
 * the frame and the socket takes a first byte now; otherwise the frame goes without it (its
 * header says so), and the client does without. */
void gt_session_send_fd(gt_session *s, cJSON *msg, const char *request, int fd);
/* The same from any thread that holds a reference to s: the frame is queued whole and written
 * at once as far as the socket takes it (the rest is left for the loop to write), so that an
 * answer need not wait for the loop's thread. Never closes s: after a failed write the loop's
 * own write fails and closes it. false when the frame was not queued: s is closed, or no
 * memory. msg is taken either way. */
bool gt_session_send_now(gt_session *s, cJSON *msg, const char *request);
/* Handles the requests that waited for early_answers to come back to 0, and reads the socket
 * again (or acts on the end of the stream seen before); from the loop's thread. */
void gt_session_resume(gt_session *s);
/* Writes what is queued now, as far as the socket takes it (used at shutdown). */
void gt_session_flush(gt_session *s);

#endif
