/* fuzz_wire.c: the frame reader (protocol/wire.h) as gridtuned drives it, fed through a
 * socketpair since gt_wire_read takes its bytes and descriptors from a socket. Every whole
 * frame is parsed as session.c parses it. The input: byte 0 says how many descriptors travel
 * with the first bytes (& 7), byte 1 how many bytes each write carries (0: all at once), and
 * the rest is the stream (make_corpus.py writes such files). */
#include "fuzz.h"

#include "protocol/wire.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Small, so that the fuzzer reaches the size limit with inputs it can still mutate. */
#define MAX_FRAME 4096

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* What the daemon does with a frame (session.c, handle_frame), with the reader's promises
 * checked: a frame is the next header and JSON of the stream, in order. */
static void take_frame(gt_wire_frame *f, const uint8_t *stream, size_t size, size_t *at)
{
    FUZZ_CHECK(*at + GT_WIRE_HEADER + f->len <= size);
    FUZZ_CHECK(be32(stream + *at) == f->len && be32(stream + *at + 4) == f->nfds);
    FUZZ_CHECK(memcmp(stream + *at + GT_WIRE_HEADER, f->json, f->len) == 0 && f->json[f->len] == '\0');
    FUZZ_CHECK(f->nfds <= GT_WIRE_MAX_FDS);
    *at += GT_WIRE_HEADER + f->len;
    const char *end = NULL;
    cJSON *msg = cJSON_ParseWithLengthOpts(f->json, f->len, &end, false);
    while (msg && end < f->json + f->len && strchr(" \t\r\n", *end) && *end)
        end++;
    FUZZ_CHECK(!msg || (end >= f->json && end <= f->json + f->len));
    cJSON_Delete(msg);
    for (unsigned i = 0; i < GT_WIRE_MAX_FDS; i++) {
        FUZZ_CHECK(i < f->nfds ? fcntl(f->fds[i], F_GETFD) >= 0 : f->fds[i] == -1);
        if (i < f->nfds)
            close(f->fds[i]);
    }
    free(f->json);
}

/* Reads what the socket holds and takes the frames. False once the stream is broken. */
static bool drain(gt_wire_reader *r, int sock, const uint8_t *stream, size_t size, size_t *at, bool *eof)
{
    for (;;) {
        long n = gt_wire_read(r, sock);
        if (n == -EAGAIN)
            return true;
        FUZZ_CHECK(n >= 0);
        *eof = n == 0;
        gt_wire_frame f;
        char err[256] = "";
        int rc;
        while ((rc = gt_wire_next(r, &f, err, sizeof err)) == 1)
            take_frame(&f, stream, size, at);
        if (rc < 0) {
            FUZZ_CHECK(err[0] && (rc == -EMSGSIZE || rc == -EPROTO));
            return false;
        }
        if (*eof)
            return true;
    }
}

/* Sends the first bytes with nfds descriptors, as a client's sendmsg does. */
static long send_first(int sock, const uint8_t *p, size_t len, unsigned nfds)
{
    int fds[8];
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof fds)];
    } control;
    for (unsigned i = 0; i < nfds; i++)
        fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    struct iovec iov = {.iov_base = (void *)p, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        *c = (struct cmsghdr){.cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS, .cmsg_len = CMSG_LEN(sizeof(int) * nfds)};
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    long n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    for (unsigned i = 0; i < nfds; i++)
        close(fds[i]);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned nfds = data[0] & 7;
    size_t chunk = data[1] ? data[1] : SIZE_MAX;
    const uint8_t *stream = data + 2;
    size -= 2;
    int sv[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    FUZZ_CHECK(r);
    size_t sent = 0, at = 0;
    bool ok = true, eof = false;
    /* a client writes while the daemon reads: a stream larger than the socket holds must not
       block; descriptors need bytes to travel with */
    while (ok && sent < size) {
        size_t len = size - sent < chunk ? size - sent : chunk;
        long n = nfds ? send_first(sv[0], stream + sent, len, nfds) : send(sv[0], stream + sent, len, MSG_NOSIGNAL);
        FUZZ_CHECK(n >= 0 || errno == EAGAIN);
        if (n > 0) {
            sent += (size_t)n;
            nfds = 0;
        }
        ok = drain(r, sv[1], stream, size, &at, &eof);
    }
    shutdown(sv[0], SHUT_WR);
    while (ok && !eof)
        ok = drain(r, sv[1], stream, size, &at, &eof);
    /* at end of file, the bytes not taken are the truncated frame the daemon reports */
    if (ok)
        FUZZ_CHECK(at + gt_wire_pending(r) == size);
    gt_wire_reader_free(r);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
