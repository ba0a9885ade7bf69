/* channel.c: the shared mailboxes and the socket that wakes and carries descriptors
 * (channel.h). */
#include "channel.h"

#include "spin.h"

#include "tuner/clock.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHANNEL_MAGIC 0x67746368u /* "gtch" */
#define HEAD_BYTES 4096u
#define REQUEST_OFFSET HEAD_BYTES
#define REPLY_OFFSET (REQUEST_OFFSET + GT_CHANNEL_REQUEST_MAX)
#define CHANNEL_BYTES ((size_t)REPLY_OFFSET + GT_CHANNEL_REPLY_MAX)

enum { TAG_WAKE = 'W', TAG_FDS = 'F' };

/* One direction. The writer fills the area, stores len, then bumps seq; the reader, seeing a
 * new seq, reads len and the area. seq and sleeping are sequentially consistent, so that a
 * reader that says it sleeps and then finds seq unchanged, and a writer that bumps seq and then
 * finds the reader asleep, cannot both miss each other (the writer then sends a wake byte). */
typedef struct box {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleeping;
    _Atomic uint32_t len;
    _Atomic uint32_t taken; /* the last seq the reader has copied out: the slot is free again */
} box;

typedef struct shared {
    uint32_t magic;
    uint32_t bytes_mib;
    gt_channel_crash crash;
    box request, reply;
} shared;

_Static_assert(sizeof(shared) <= HEAD_BYTES, "the channel's head fits its page");

struct gt_channel {
    unsigned char *map;
    int mem, sock;
    bool daemon_side;
    uint32_t sent, seen; /* our last outgoing and incoming sequence numbers */
    uint64_t spin_ns;
    int fds[GT_CHANNEL_FD_QUEUE];
    unsigned nfds;
};

static shared *head(gt_channel *c)
{
    return (shared *)c->map;
}

static box *outgoing(gt_channel *c)
{
    return c->daemon_side ? &head(c)->request : &head(c)->reply;
}

static box *incoming(gt_channel *c)
{
    return c->daemon_side ? &head(c)->reply : &head(c)->request;
}

static unsigned char *area(gt_channel *c, bool request)
{
    return c->map + (request ? REQUEST_OFFSET : REPLY_OFFSET);
}

static gt_channel *channel_new(int mem, int sock, bool daemon_side, char *err, size_t errlen)
{
    gt_channel *c = calloc(1, sizeof *c);
    void *map = MAP_FAILED;
    if (c)
        map = mmap(NULL, CHANNEL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
    if (!c || map == MAP_FAILED) {
        gt_sentence_fail(err, errlen, -ENOMEM, "cannot map the executor's channel: %s",
                         strerror(c ? errno : ENOMEM));
        free(c);
        return NULL;
    }
    *c = (gt_channel){.map = map, .mem = mem, .sock = sock, .daemon_side = daemon_side};
    return c;
}

int gt_channel_create(gt_channel **out, int *child_mem, int *child_sock, char *err, size_t errlen)
{
    int mem = memfd_create("gridtune-channel", MFD_CLOEXEC | MFD_ALLOW_SEALING), sv[2] = {-1, -1};
    int rc = 0;
    if (mem < 0 || ftruncate(mem, (off_t)CHANNEL_BYTES) != 0 ||
        fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0)
        rc = gt_sentence_fail(err, errlen, -errno, "cannot make the executor's channel: %s", strerror(errno));
    gt_channel *c = rc ? NULL : channel_new(mem, sv[0], true, err, errlen);
    if (!c) {
        if (mem >= 0)
            close(mem);
        if (sv[0] >= 0) {
            close(sv[0]);
            close(sv[1]);
        }
        return rc ? rc : -ENOMEM;
    }
    *head(c) = (shared){.magic = CHANNEL_MAGIC, .bytes_mib = (uint32_t)(CHANNEL_BYTES >> 20)};
    *child_mem = mem; /* the same open file: the child maps it too */
    *child_sock = sv[1];
    *out = c;
    return 0;
}

int gt_channel_attach(int mem, int sock, gt_channel **out, char *err, size_t errlen)
{
    int flags = fcntl(sock, F_GETFL);
    if (flags < 0 || fcntl(sock, F_SETFL, flags | O_NONBLOCK) != 0)
        return gt_sentence_fail(err, errlen, -EBADF, "the channel's socket (descriptor %d) is not open", sock);
    gt_channel *c = channel_new(mem, sock, false, err, errlen);
    if (!c)
        return -ENOMEM;
    if (head(c)->magic != CHANNEL_MAGIC) {
        gt_channel_close(c);
        return gt_sentence_fail(err, errlen, -EINVAL, "descriptor %d is not a gridtune channel", mem);
    }
    *out = c;
    return 0;
}

void gt_channel_close(gt_channel *c)
{
    if (!c)
        return;
    munmap(c->map, CHANNEL_BYTES);
    close(c->mem);
    close(c->sock);
    for (unsigned i = 0; i < c->nfds; i++)
        close(c->fds[i]);
    free(c);
}

void gt_channel_set_spin(gt_channel *c, unsigned spin_us)
{
    c->spin_ns = (uint64_t)spin_us * 1000u;
}

gt_channel_crash *gt_channel_crash_record(gt_channel *c)
{
    return &head(c)->crash;
}

static int send_tagged(gt_channel *c, char tag, const int *fds, unsigned nfds)
{
    union {
        char buf[CMSG_SPACE(GT_CHANNEL_MAX_FDS * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {.iov_base = &tag, .iov_len = 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        memset(&control, 0, sizeof control);
        m.msg_control = control.buf;
        m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
    }
    for (;;) {
        if (sendmsg(c->sock, &m, MSG_NOSIGNAL) == 1)
            return 0;
        if (errno == EINTR)
            continue;
        /* A wake byte that does not fit is not needed: the peer has wake bytes to read. */
        if (errno == EAGAIN && tag == TAG_WAKE)
            return 0;
        return errno == EAGAIN ? -EAGAIN : -EPIPE;
    }
}

int gt_channel_send(gt_channel *c, const void *msg, size_t len, const int *fds, unsigned nfds)
{
    size_t max = c->daemon_side ? GT_CHANNEL_REQUEST_MAX : GT_CHANNEL_REPLY_MAX;
    if (len > max || nfds > GT_CHANNEL_MAX_FDS)
        return -EMSGSIZE;
    if (nfds) {
        int rc = send_tagged(c, TAG_FDS, fds, nfds);
        if (rc)
            return rc;
    }
    box *b = outgoing(c);
    /* One slot: a second message waits until the reader has copied out the first (the
       executor's report after a launch's reply). gridtuned never waits here, as it sends a
       request only once the previous one is answered. */
    for (unsigned tries = 0; atomic_load(&b->taken) != c->sent; tries++) {
        if (tries < 1000)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    memcpy(area(c, c->daemon_side), msg, len);
    atomic_store_explicit(&b->len, (uint32_t)len, memory_order_relaxed);
    atomic_store(&b->seq, ++c->sent);
    if (atomic_exchange(&b->sleeping, 0))
        return send_tagged(c, TAG_WAKE, NULL, 0);
    return 0;
}

static void keep_fds(gt_channel *c, struct msghdr *m)
{
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int fds[GT_CHANNEL_MAX_FDS];
        memcpy(fds, CMSG_DATA(cm), (n < GT_CHANNEL_MAX_FDS ? n : GT_CHANNEL_MAX_FDS) * sizeof(int));
        for (size_t i = 0; i < n && i < GT_CHANNEL_MAX_FDS; i++) {
            if (c->nfds < GT_CHANNEL_FD_QUEUE)
                c->fds[c->nfds++] = fds[i];
            else
                close(fds[i]);
        }
    }
}

/* Reads every socket message there is. 0, or -EPIPE when the peer has closed its end. */
static int drain(gt_channel *c)
{
    for (;;) {
        char tag;
        union {
            char buf[CMSG_SPACE(GT_CHANNEL_MAX_FDS * sizeof(int))];
            struct cmsghdr align;
        } control;
        struct iovec iov = {.iov_base = &tag, .iov_len = 1};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                           .msg_controllen = sizeof control.buf};
        ssize_t n = recvmsg(c->sock, &m, MSG_CMSG_CLOEXEC);
        if (n > 0) {
            keep_fds(c, &m);
            continue;
        }
        if (n == 0)
            return -EPIPE;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN ? 0 : -EPIPE;
    }
}

static bool take_message(gt_channel *c, void *buf, size_t cap, size_t *len)
{
    box *b = incoming(c);
    uint32_t seq = atomic_load(&b->seq);
    if (seq == c->seen)
        return false;
    c->seen = seq;
    size_t max = c->daemon_side ? GT_CHANNEL_REPLY_MAX : GT_CHANNEL_REQUEST_MAX;
    size_t n = atomic_load_explicit(&b->len, memory_order_relaxed);
    if (n > max) /* only a peer that scribbled over the head writes this */
        n = max;
    memcpy(buf, area(c, !c->daemon_side), n < cap ? n : cap);
    atomic_store(&b->taken, seq);
    *len = n;
    return true;
}

/* take_message's arguments, for gt_spin_until. */
struct taking {
    gt_channel *c;
    void *buf;
    size_t cap;
    size_t *len;
};

static bool message_taken(void *ctx)
{
    struct taking *t = ctx;
    return take_message(t->c, t->buf, t->cap, t->len);
}

int gt_channel_receive(gt_channel *c, void *buf, size_t cap, size_t *len, int watch_fd, int timeout_ms)
{
    box *b = incoming(c);
    int64_t start = (int64_t)gt_clock_ns();
    int64_t end = timeout_ms < 0 ? INT64_MAX : start + (int64_t)timeout_ms * 1000000;
    struct taking t = {c, buf, cap, len};
    if (gt_spin_until(c->spin_ns, message_taken, &t))
        return 0;
    for (;;) {
        atomic_store(&b->sleeping, 1);
        if (take_message(c, buf, cap, len)) {
            atomic_store(&b->sleeping, 0);
            return 0;
        }
        int64_t now = (int64_t)gt_clock_ns();
        if (now >= end) {
            atomic_store(&b->sleeping, 0);
            return -ETIMEDOUT;
        }
        int wait = end == INT64_MAX ? -1 : (int)((end - now + 999999) / 1000000);
        struct pollfd p[2] = {{.fd = c->sock, .events = POLLIN}, {.fd = watch_fd, .events = POLLIN}};
        int n = poll(p, watch_fd >= 0 ? 2 : 1, wait);
        if (n < 0 && errno != EINTR) {
            atomic_store(&b->sleeping, 0);
            return -errno;
        }
        int closed = (n > 0 && p[0].revents) ? drain(c) : 0;
        if (take_message(c, buf, cap, len)) {
            atomic_store(&b->sleeping, 0);
            return 0;
        }
        if (closed || (watch_fd >= 0 && n > 0 && p[1].revents)) {
            atomic_store(&b->sleeping, 0);
            return closed ? closed : -EINTR;
        }
    }
}

int gt_channel_take_fd(gt_channel *c)
{
    /* The peer sends descriptors before the message that uses them, so they are in the
       socket by now even when the message was seen while spinning. */
    if (c->nfds == 0)
        (void)drain(c);
    if (c->nfds == 0)
        return -1;
    int fd = c->fds[0];
    memmove(c->fds, c->fds + 1, --c->nfds * sizeof *c->fds);
    return fd;
}
