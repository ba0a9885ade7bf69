/* wire.c: frames on gridtune's Unix stream socket (wire.h), for libgridtune and gridtuned.
 * The sender writes header, JSON and descriptors with one sendmsg where it can; the reader
 * keeps the bytes and the descriptors it received in two separate queues, and a frame is
 * cut from the bytes once whole, taking its descriptors from the front of the other queue. */
#include "wire.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Free space asked of the buffer before each recvmsg, and the buffer's first size. */
#define READ_MIN 4096
#define BUFFER_FIRST 16384
/* An emptied buffer larger than this is freed, so a client that once sent a large frame
 * does not keep the daemon holding its memory. */
#define BUFFER_KEEP (64 * 1024)

struct gt_wire_reader {
    size_t max_frame;
    unsigned char *buf;
    size_t cap, start, end; /* the unconsumed bytes are buf[start, end) */
    int fds[GT_WIRE_FD_QUEUE];
    unsigned nfds;
};

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

void gt_wire_header(uint32_t len, uint32_t nfds, unsigned char out[GT_WIRE_HEADER])
{
    put_be32(out, len);
    put_be32(out + 4, nfds);
}

/* ---- sending ---- */

static int check_send(size_t len, const int *fds, unsigned nfds, char *err, size_t errlen)
{
    if (len > UINT32_MAX) {
        snprintf(err, errlen, "frame of %zu bytes is over the limit of %" PRIu32 " (the header holds a 32-bit length)",
                 len, UINT32_MAX);
        return -EINVAL;
    }
    if (nfds > GT_WIRE_MAX_FDS) {
        snprintf(err, errlen, "frame carries %u file descriptors; at most %d may travel with one frame", nfds,
                 GT_WIRE_MAX_FDS);
        return -EINVAL;
    }
    if (nfds && !fds) {
        snprintf(err, errlen, "frame announces %u file descriptors but none were given", nfds);
        return -EINVAL;
    }
    return 0;
}

/* Drops the first n written bytes from msg's iovecs. */
static void advance(struct msghdr *msg, size_t n)
{
    while (n > 0 && n >= msg->msg_iov->iov_len) {
        n -= msg->msg_iov->iov_len;
        msg->msg_iov++;
        msg->msg_iovlen--;
    }
    if (n > 0) {
        msg->msg_iov->iov_base = (char *)msg->msg_iov->iov_base + n;
        msg->msg_iov->iov_len -= n;
    }
}

/* The caller may hand over a non-blocking socket: waiting for room here keeps the promise
 * that gt_wire_send returns only once the whole frame is written. */
static int wait_writable(int sock)
{
    struct pollfd p = {.fd = sock, .events = POLLOUT};
    while (poll(&p, 1, -1) < 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

/* Room for the most descriptors a frame carries, aligned as CMSG_FIRSTHDR needs. */
typedef union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int) * GT_WIRE_MAX_FDS)];
} send_control;

static void attach_fds(struct msghdr *msg, send_control *control, const int *fds, unsigned nfds)
{
    memset(control, 0, sizeof *control);
    msg->msg_control = control->buf;
    msg->msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    struct cmsghdr *c = CMSG_FIRSTHDR(msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
}

/* A whole frame as one message: the header and the JSON, with the descriptors attached. It
   points into itself, so it is built in place and never copied. */
typedef struct frame_msg {
    unsigned char header[GT_WIRE_HEADER];
    struct iovec iov[2];
    struct msghdr msg;
    send_control control;
} frame_msg;

static void frame_msg_init(frame_msg *f, const char *json, size_t len, const int *fds, unsigned nfds)
{
    gt_wire_header((uint32_t)len, nfds, f->header);
    f->iov[0] = (struct iovec){.iov_base = f->header, .iov_len = sizeof f->header};
    f->iov[1] = (struct iovec){.iov_base = (char *)json, .iov_len = len};
    f->msg = (struct msghdr){.msg_iov = f->iov, .msg_iovlen = 2};
    if (nfds)
        attach_fds(&f->msg, &f->control, fds, nfds);
}

long gt_wire_send_start(int sock, const char *json, size_t len, const int *fds, unsigned nfds)
{
    char err[128];
    int rc = check_send(len, fds, nfds, err, sizeof err);
    if (rc)
        return rc;
    frame_msg f;
    frame_msg_init(&f, json, len, fds, nfds);
    ssize_t n;
    while ((n = sendmsg(sock, &f.msg, MSG_DONTWAIT | MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return n > 0 ? (long)n : n == 0 ? -EAGAIN : -errno;
}

int gt_wire_send(int sock, const char *json, size_t len, const int *fds, unsigned nfds, char *err, size_t errlen)
{
    int rc = check_send(len, fds, nfds, err, errlen);
    if (rc)
        return rc;
    frame_msg f;
    frame_msg_init(&f, json, len, fds, nfds);
    struct msghdr msg = f.msg; /* advanced as bytes go; its iovecs are f's */
    size_t left = sizeof f.header + len;
    while (left > 0) {
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            rc = errno == EINTR ? 0 : errno == EWOULDBLOCK ? wait_writable(sock) : -errno;
            if (rc) {
                snprintf(err, errlen, "cannot send a frame of %zu bytes: %s", len, strerror(-rc));
                return rc;
            }
            continue;
        }
        /* the descriptors went with the bytes just written: sending them again would give the
         * peer a second copy that no frame claims */
        msg.msg_control = NULL;
        msg.msg_controllen = 0;
        left -= (size_t)n;
        advance(&msg, (size_t)n);
    }
    return 0;
}

/* ---- receiving ---- */

gt_wire_reader *gt_wire_reader_new(size_t max_frame)
{
    gt_wire_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    /* a frame's length plus header and terminator must not wrap a size_t (32-bit hosts) */
    r->max_frame = max_frame < SIZE_MAX / 2 ? max_frame : SIZE_MAX / 2;
    return r;
}

void gt_wire_reader_free(gt_wire_reader *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < r->nfds; i++)
        close(r->fds[i]);
    free(r->buf);
    free(r);
}

size_t gt_wire_pending(const gt_wire_reader *r)
{
    return r->end - r->start;
}

unsigned gt_wire_queued_fds(const gt_wire_reader *r)
{
    return r->nfds;
}

/* Makes room for at least READ_MIN more bytes, reusing consumed space before growing. */
static int reserve(gt_wire_reader *r)
{
    if (r->cap - r->end >= READ_MIN)
        return 0;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
        if (r->cap - r->end >= READ_MIN)
            return 0;
    }
    size_t cap = r->cap ? r->cap * 2 : BUFFER_FIRST;
    unsigned char *buf = realloc(r->buf, cap);
    if (!buf)
        return -ENOMEM;
    r->buf = buf;
    r->cap = cap;
    return 0;
}

/* Queues the descriptors that came with a recvmsg. A truncated control message lost some of
 * them, so the frames they belong to can no longer be matched: all are closed. */
static int queue_fds(gt_wire_reader *r, struct msghdr *msg)
{
    bool truncated = (msg->msg_flags & MSG_CTRUNC) != 0;
    bool lost = truncated;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const unsigned char *data = CMSG_DATA(c);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, data + i * sizeof fd, sizeof fd); /* CMSG_DATA need not be int-aligned */
            if (truncated || r->nfds == GT_WIRE_FD_QUEUE) {
                close(fd);
                lost = true;
            } else {
                r->fds[r->nfds++] = fd;
            }
        }
    }
    return lost ? -EMFILE : 0;
}

long gt_wire_read(gt_wire_reader *r, int sock)
{
    int rc = reserve(r);
    if (rc)
        return rc;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * GT_WIRE_FD_QUEUE)]; /* a whole queue's worth */
    } control;
    struct iovec iov = {.iov_base = r->buf + r->end, .iov_len = r->cap - r->end};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    r->end += (size_t)n;
    rc = queue_fds(r, &msg);
    return rc ? rc : (long)n;
}

/* Refuses a header as soon as it is whole, so an oversized frame is never waited for. */
static int check_header(const gt_wire_reader *r, uint32_t len, uint32_t nfds, char *err, size_t errlen)
{
    if (len > r->max_frame) {
        snprintf(err, errlen, "frame of %" PRIu32 " bytes is over the limit of %zu", len, r->max_frame);
        return -EMSGSIZE;
    }
    if (nfds > GT_WIRE_MAX_FDS) {
        snprintf(err, errlen, "frame announces %" PRIu32 " file descriptors; at most %d may travel with one frame",
                 nfds, GT_WIRE_MAX_FDS);
        return -EPROTO;
    }
    return 0;
}

static void take_fds(gt_wire_reader *r, int *out, unsigned n)
{
    memcpy(out, r->fds, n * sizeof *out);
    r->nfds -= n;
    memmove(r->fds, r->fds + n, r->nfds * sizeof *r->fds);
}

static void consume(gt_wire_reader *r, size_t n)
{
    r->start += n;
    if (r->start < r->end)
        return;
    r->start = r->end = 0;
    if (r->cap > BUFFER_KEEP) {
        free(r->buf);
        r->buf = NULL;
        r->cap = 0;
    }
}

int gt_wire_next(gt_wire_reader *r, gt_wire_frame *f, char *err, size_t errlen)
{
    size_t avail = r->end - r->start;
    if (avail < GT_WIRE_HEADER)
        return 0;
    const unsigned char *p = r->buf + r->start;
    uint32_t len = get_be32(p), nfds = get_be32(p + 4);
    int rc = check_header(r, len, nfds, err, errlen);
    if (rc)
        return rc;
    if (avail - GT_WIRE_HEADER < len)
        return 0;
    if (nfds > r->nfds) {
        snprintf(err, errlen, "frame announces %" PRIu32 " file descriptors but %u have arrived", nfds, r->nfds);
        return -EPROTO;
    }
    char *json = malloc((size_t)len + 1);
    if (!json) {
        snprintf(err, errlen, "no memory for a frame of %" PRIu32 " bytes", len);
        return -ENOMEM;
    }
    memcpy(json, p + GT_WIRE_HEADER, len);
    json[len] = '\0';
    *f = (gt_wire_frame){.json = json, .len = len, .nfds = nfds};
    for (unsigned i = 0; i < GT_WIRE_MAX_FDS; i++)
        f->fds[i] = -1;
    take_fds(r, f->fds, nfds);
    consume(r, GT_WIRE_HEADER + (size_t)len);
    return 1;
}
