/* connection.c: the socket to gridtuned (connection.h). Each call puts a pending entry with
 * its own condition variable on the handle's list and sends its frame under the send lock.
 * Then one waiting call at a time reads the socket for all of them (a leader): it hands each
 * answer to the entry whose id it carries and wakes it, and when its own answer has come it
 * wakes another waiting call to read on. So an answer reaches its caller without a hop
 * through another thread. When the stream ends or breaks, every entry is woken and the handle
 * is marked lost, so no call can wait for an answer that will never come. */
#include "connection.h"

#include "last_error.h"
#include "message.h"

#include "protocol/protocol.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Longest request type kept for sentences; the protocol's longest is "buffer_release". */
#define TYPE_MAX 32
/* Room for sentences the wire layer writes. */
#define WIRE_SENTENCE 256
/* Above this an "errno" cannot be one (Linux's are below 4096, as the kernel's own -errno
 * returns are). */
#define ERRNO_MAX 4095

struct gt_pending {
    uint64_t id;
    pthread_cond_t cond;
    cJSON *reply; /* the answer, once the reader found it */
    bool done;    /* answered, or the connection was lost */
    int fd;       /* the first descriptor that came with the answer, or -1 */
    gt_pending *next;
};

int gt_conn_dial(const char *path, int *fd, char *err, size_t errlen)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        snprintf(err, errlen, "the socket path %s is longer than a Unix socket allows (%zu bytes)", path,
                 sizeof addr.sun_path - 1);
        return -ENAMETOOLONG;
    }
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot make a Unix socket to reach gridtuned at %s: %s", path, strerror(-rc));
        return rc;
    }
    int r;
    /* an interrupted connect to a full backlog leaves the socket unconnected: try again */
    while ((r = connect(s, (struct sockaddr *)&addr, sizeof addr)) < 0 && errno == EINTR)
        ;
    if (r < 0 && errno != EISCONN) {
        int rc = -errno;
        close(s);
        snprintf(err, errlen, "cannot connect to gridtuned at %s: %s", path, strerror(-rc));
        return rc;
    }
    *fd = s;
    return 0;
}

int gt_conn_init(gt_client *c)
{
    c->fd = -1;
    c->buffer_store = -1;
    c->next_id = 1;
    int rc = pthread_mutex_init(&c->lock, NULL);
    if (rc)
        return -rc;
    rc = pthread_mutex_init(&c->send_lock, NULL);
    if (rc) {
        pthread_mutex_destroy(&c->lock);
        return -rc;
    }
    return 0;
}

/* Marks the connection lost (the first cause is the one kept), wakes every waiting call and
 * shuts the socket, which ends the read of the call that reads, if it is not the caller.
 * c->lock is held. */
static void lose_locked(gt_client *c, int rc, const char *why)
{
    if (!c->lost) {
        c->lost = rc < 0 ? rc : -EPIPE;
        c->lost_why = strdup(why);
        shutdown(c->fd, SHUT_RDWR);
    }
    for (gt_pending *p = c->pending; p; p = p->next) {
        p->done = true;
        pthread_cond_signal(&p->cond);
    }
}

static void lose(gt_client *c, int rc, const char *why)
{
    pthread_mutex_lock(&c->lock);
    lose_locked(c, rc, why);
    pthread_mutex_unlock(&c->lock);
}

/* The failure of a call on a lost connection. c->lock is held. */
static int fail_lost_locked(gt_client *c)
{
    return gt_fail(c, c->lost, "the connection to gridtuned was lost: %s",
                   c->lost_why ? c->lost_why : strerror(-c->lost));
}

/* The negated errno an error message carries: its positive "errno", else EIO. */
static int error_code(const cJSON *msg)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "errno");
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1 && e->valuedouble <= ERRNO_MAX))
        return -EIO;
    return -(int)e->valuedouble;
}

/* An error with a null id answers a frame gridtuned could not read as a request, so no call
 * can be told which one it was: the whole connection fails with its sentence. */
static void lose_to_unmatched_error(gt_client *c, const cJSON *msg)
{
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "message"));
    char why[512];
    snprintf(why, sizeof why, "gridtuned could not read a request: %s", text ? text : "(no message)");
    lose(c, error_code(msg), why);
}

/* The answer's first descriptor goes to its call, which closes it unless it takes it; the
 * others no answer has. */
static void dispatch(gt_client *c, gt_wire_frame *f)
{
    int fd = f->nfds > 0 ? f->fds[0] : -1;
    for (unsigned i = 1; i < f->nfds; i++)
        close(f->fds[i]);
    cJSON *msg = cJSON_ParseWithLength(f->json, f->len);
    free(f->json);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"));
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!cJSON_IsObject(msg) || !type) {
        lose(c, -EPROTO, "gridtuned sent a frame that is not a message (a JSON object with a \"type\")");
    } else if (!cJSON_IsNumber(id) || !(id->valuedouble >= 1 && id->valuedouble <= (double)GT_JSON_INT_MAX)) {
        if (!strcmp(type, "error"))
            lose_to_unmatched_error(c, msg);
        else
            lose(c, -EPROTO, "gridtuned sent a message without a valid id");
    } else {
        pthread_mutex_lock(&c->lock);
        for (gt_pending *p = c->pending; p; p = p->next) {
            if (p->id == (uint64_t)id->valuedouble && !p->done) {
                p->reply = msg;
                p->fd = fd;
                p->done = true;
                msg = NULL;
                fd = -1;
                pthread_cond_signal(&p->cond);
                break;
            }
        }
        pthread_mutex_unlock(&c->lock);
    }
    cJSON_Delete(msg); /* an answer to no call in flight is dropped */
    if (fd >= 0)
        close(fd);
}

/* One read from the socket, and every whole frame it completed handed to its call; called by
 * the one call that reads (c->reading), without c->lock. */
static void read_once(gt_client *c)
{
    char err[WIRE_SENTENCE];
    long n = gt_wire_read(c->wire, c->fd);
    if (n == 0) {
        lose(c, -EPIPE, gt_wire_pending(c->wire) ? "gridtuned closed it in the middle of a frame" : "gridtuned closed it");
        return;
    }
    if (n < 0) {
        snprintf(err, sizeof err, "reading from the socket failed: %s", strerror((int)-n));
        lose(c, (int)n, err);
        return;
    }
    gt_wire_frame f;
    int rc;
    while ((rc = gt_wire_next(c->wire, &f, err, sizeof err)) == 1)
        dispatch(c, &f);
    if (rc < 0) {
        char why[WIRE_SENTENCE + 64];
        snprintf(why, sizeof why, "gridtuned sent a broken frame: %s", err);
        lose(c, rc, why);
    }
}

int gt_conn_start(gt_client *c, int fd)
{
    c->fd = fd;
    c->wire = gt_wire_reader_new(GT_DEFAULT_MAX_FRAME);
    if (!c->wire)
        return gt_fail(c, -ENOMEM, "no memory for the reader of the connection to gridtuned");
    return 0;
}

void gt_conn_free(gt_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->buffer_store >= 0)
        close(c->buffer_store);
    c->fd = c->buffer_store = -1;
    gt_wire_reader_free(c->wire);
    c->wire = NULL;
    free(c->lost_why);
    c->lost_why = NULL;
    pthread_mutex_destroy(&c->send_lock);
    pthread_mutex_destroy(&c->lock);
}

static void unlink_pending(gt_client *c, gt_pending *p)
{
    for (gt_pending **pp = &c->pending; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

/* Turns the answer to a `type` request into the call's return. */
static int take_reply(gt_client *c, const char *type, cJSON *reply, cJSON **result)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "type"));
    int rc = 0;
    if (kind && !strcmp(kind, "result")) {
        if (result) {
            *result = reply;
            return 0;
        }
    } else if (kind && !strcmp(kind, "error")) {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "message"));
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "code"));
        rc = text ? gt_fail(c, error_code(reply), "%s", text)
                  : gt_fail(c, error_code(reply), "gridtuned refused the %s request (%s) without saying why", type,
                            code ? code : "no code");
    } else {
        rc = gt_fail(c, -EPROTO, "gridtuned answered a %s request with a \"%s\" message; expected a result or an error",
                     type, kind);
    }
    cJSON_Delete(reply);
    return rc;
}

/* Sends the request and marks the connection lost if that fails: a frame cut off halfway
 * leaves a stream that can no longer be read as frames. */
static void send_request(gt_client *c, gt_pending *p, cJSON *request, const int *fds, unsigned nfds)
{
    char *text = gt_msg_add_id(request, "id", p->id) ? NULL : cJSON_PrintUnformatted(request);
    if (!text) {
        pthread_mutex_lock(&c->lock);
        p->done = true; /* no reply and not lost: the caller reports the missing memory */
        pthread_mutex_unlock(&c->lock);
        return;
    }
    char err[WIRE_SENTENCE];
    pthread_mutex_lock(&c->send_lock);
    int rc = gt_wire_send(c->fd, text, strlen(text), fds, nfds, err, sizeof err);
    pthread_mutex_unlock(&c->send_lock);
    free(text);
    if (rc)
        lose(c, rc, err);
}

int gt_conn_call(gt_client *c, cJSON *request, const int *fds, unsigned nfds, cJSON **result)
{
    return gt_conn_call_fd(c, request, fds, nfds, result, NULL);
}

int gt_conn_call_fd(gt_client *c, cJSON *request, const int *fds, unsigned nfds, cJSON **result, int *received)
{
    if (result)
        *result = NULL;
    if (received)
        *received = -1;
    char type[TYPE_MAX];
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(request, "type"));
    snprintf(type, sizeof type, "%s", t ? t : "?");
    gt_pending p = {.reply = NULL, .fd = -1};
    int rc = -pthread_cond_init(&p.cond, NULL);
    if (rc) {
        cJSON_Delete(request);
        return gt_fail(c, rc, "cannot make the condition variable a %s request waits on: %s", type, strerror(-rc));
    }
    pthread_mutex_lock(&c->lock);
    if (c->lost) {
        rc = fail_lost_locked(c);
        pthread_mutex_unlock(&c->lock);
        pthread_cond_destroy(&p.cond);
        cJSON_Delete(request);
        return rc;
    }
    p.id = c->next_id++;
    p.next = c->pending;
    c->pending = &p;
    pthread_mutex_unlock(&c->lock);

    send_request(c, &p, request, fds, nfds);
    cJSON_Delete(request);

    pthread_mutex_lock(&c->lock);
    while (!p.done) {
        if (c->reading) {
            pthread_cond_wait(&p.cond, &c->lock);
            continue;
        }
        c->reading = true;
        pthread_mutex_unlock(&c->lock);
        read_once(c);
        pthread_mutex_lock(&c->lock);
        c->reading = false;
    }
    unlink_pending(c, &p);
    /* The reading passes to a call still waiting, if this one had it (a spare wake-up else). */
    for (gt_pending *q = c->pending; q && !c->reading; q = q->next)
        if (!q->done) {
            pthread_cond_signal(&q->cond);
            break;
        }
    if (!p.reply)
        rc = c->lost ? fail_lost_locked(c) : gt_fail(c, -ENOMEM, "no memory for a %s request", type);
    pthread_mutex_unlock(&c->lock);
    pthread_cond_destroy(&p.cond);
    if (p.reply)
        rc = take_reply(c, type, p.reply, result);
    if (p.fd >= 0 && received && rc == 0)
        *received = p.fd;
    else if (p.fd >= 0)
        close(p.fd);
    return rc;
}
