/* test_wire.c: frames cross a real Unix socketpair whole and in order, carrying real memfds
 * that arrive attached to the right frame; frames split into single bytes are assembled;
 * broken streams (oversized, too many or missing descriptors, truncation) are refused with a
 * sentence; a closed peer gives -EPIPE, and no descriptor leaks from a reader. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "protocol/wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FRAME (1u << 20)

/* sv[0] sends, sv[1] reads. The reading end is non-blocking so that a frame that never
 * completes fails the test with -EAGAIN instead of hanging it. */
static void make_pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
}

static void close_pair(int sv[2])
{
    for (int i = 0; i < 2; i++)
        if (sv[i] >= 0)
            close(sv[i]);
}

static int memfd_holding(const char *name, const char *content)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
    return fd;
}

/* Asserts that the file behind fd holds exactly content. */
static void assert_fd_holds(int fd, const char *content)
{
    char buf[64] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    assert_int_equal(n, (ssize_t)strlen(content));
    assert_string_equal(buf, content);
}

static void send_ok(int sock, const char *json, const int *fds, unsigned nfds)
{
    char err[256] = "";
    int rc = gt_wire_send(sock, json, strlen(json), fds, nfds, err, sizeof err);
    if (rc)
        fail_msg("gt_wire_send failed (%d): %s", rc, err);
}

/* Writes raw bytes, for headers gt_wire_send would never produce. */
static void write_all(int fd, const void *buf, size_t len)
{
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static void write_header(int fd, uint32_t len, uint32_t nfds)
{
    unsigned char h[GT_WIRE_HEADER];
    gt_wire_header(len, nfds, h);
    write_all(fd, h, sizeof h);
}

/* Reads until the reader holds a frame. On the non-blocking end, where everything was sent
 * before, -EAGAIN means the frame will never be whole: a failure, not a wait. */
static void next_frame(gt_wire_reader *r, int sock, gt_wire_frame *f)
{
    char err[256] = "";
    int rc;
    while ((rc = gt_wire_next(r, f, err, sizeof err)) == 0) {
        long n = gt_wire_read(r, sock);
        if (n <= 0)
            fail_msg("gt_wire_read returned %ld before a whole frame (%zu bytes pending)", n, gt_wire_pending(r));
    }
    if (rc != 1)
        fail_msg("gt_wire_next failed (%d): %s", rc, err);
}

/* Reads everything sent so far. */
static void read_all(gt_wire_reader *r, int sock)
{
    long n;
    while ((n = gt_wire_read(r, sock)) > 0)
        ;
    assert_true(n == -EAGAIN || n == 0);
}

static int next_after_reading(gt_wire_reader *r, int sock, gt_wire_frame *f, char *err, size_t errlen)
{
    read_all(r, sock);
    return gt_wire_next(r, f, err, errlen);
}

static void frame_free(gt_wire_frame *f)
{
    for (unsigned i = 0; i < f->nfds; i++)
        close(f->fds[i]);
    free(f->json);
}

/* Open descriptors, counted in /proc/self/fd (the directory's own one included each time). */
static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void test_header_is_big_endian(void **state)
{
    (void)state;
    unsigned char h[GT_WIRE_HEADER];
    gt_wire_header(0x01020304u, 0x0a0b0c0du, h);
    const unsigned char want[GT_WIRE_HEADER] = {1, 2, 3, 4, 10, 11, 12, 13};
    assert_memory_equal(h, want, sizeof want);
}

static void test_round_trip(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    assert_non_null(r);
    const char *json = "{\"type\":\"hello\",\"id\":1,\"protocol\":1}";
    send_ok(sv[0], json, NULL, 0);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    assert_int_equal(f.len, strlen(json));
    assert_string_equal(f.json, json);
    assert_int_equal(f.nfds, 0);
    char err[256] = "";
    gt_wire_frame none;
    assert_int_equal(gt_wire_next(r, &none, err, sizeof err), 0);
    assert_int_equal(gt_wire_pending(r), 0);
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_empty_frame(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    char err[256] = "";
    assert_int_equal(gt_wire_send(sv[0], NULL, 0, NULL, 0, err, sizeof err), 0);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    assert_int_equal(f.len, 0);
    assert_string_equal(f.json, "");
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_nul_bytes_are_copied(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    const char bytes[] = {'a', '\0', 'b'};
    char err[256] = "";
    assert_int_equal(gt_wire_send(sv[0], bytes, sizeof bytes, NULL, 0, err, sizeof err), 0);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    assert_int_equal(f.len, 3);
    assert_memory_equal(f.json, bytes, sizeof bytes);
    assert_int_equal(f.json[3], '\0');
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_fds_carry_their_files(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    int fds[2] = {memfd_holding("first", "alpha"), memfd_holding("second", "beta")};
    send_ok(sv[0], "{\"type\":\"buffer_create\"}", fds, 2);
    /* the received descriptors must stand on their own once the sender's are gone */
    close(fds[0]);
    close(fds[1]);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    assert_string_equal(f.json, "{\"type\":\"buffer_create\"}");
    assert_int_equal(f.nfds, 2);
    assert_fd_holds(f.fds[0], "alpha");
    assert_fd_holds(f.fds[1], "beta");
    assert_int_equal(f.fds[2], -1);
    assert_int_equal(f.fds[3], -1);
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_received_fds_are_cloexec(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    int fd = memfd_holding("x", "x");
    /* the sender's copy without FD_CLOEXEC, so the flag can only come from the receiving side */
    assert_int_equal(fcntl(fd, F_SETFD, 0), 0);
    send_ok(sv[0], "{}", &fd, 1);
    close(fd);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    assert_int_equal(f.nfds, 1);
    assert_true(fcntl(f.fds[0], F_GETFD) & FD_CLOEXEC);
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_frames_in_order_with_their_fds(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    int a = memfd_holding("a", "file a"), b = memfd_holding("b", "file b"), c = memfd_holding("c", "file c");
    send_ok(sv[0], "{\"n\":1}", &a, 1);
    send_ok(sv[0], "{\"n\":2}", NULL, 0);
    send_ok(sv[0], "{\"n\":3}", (int[]){b, c}, 2);
    send_ok(sv[0], "{\"n\":4}", NULL, 0);
    close(a);
    close(b);
    close(c);
    /* all read before any frame is taken, so the queue holds the descriptors of two frames */
    read_all(r, sv[1]);
    gt_wire_frame f[4];
    for (int i = 0; i < 4; i++)
        next_frame(r, sv[1], &f[i]);
    assert_string_equal(f[0].json, "{\"n\":1}");
    assert_int_equal(f[0].nfds, 1);
    assert_fd_holds(f[0].fds[0], "file a");
    assert_string_equal(f[1].json, "{\"n\":2}");
    assert_int_equal(f[1].nfds, 0);
    assert_string_equal(f[2].json, "{\"n\":3}");
    assert_int_equal(f[2].nfds, 2);
    assert_fd_holds(f[2].fds[0], "file b");
    assert_fd_holds(f[2].fds[1], "file c");
    assert_string_equal(f[3].json, "{\"n\":4}");
    assert_int_equal(f[3].nfds, 0);
    for (int i = 0; i < 4; i++)
        frame_free(&f[i]);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_one_byte_writes_assemble(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    const char *json = "{\"type\":\"status\",\"id\":7}";
    unsigned char bytes[64];
    size_t len = strlen(json), total = GT_WIRE_HEADER + len;
    gt_wire_header((uint32_t)len, 0, bytes);
    memcpy(bytes + GT_WIRE_HEADER, json, len);
    char err[256] = "";
    gt_wire_frame f;
    /* each byte is read before the next is written, so the reader really sees it alone */
    for (size_t i = 0; i < total; i++) {
        assert_int_equal(gt_wire_next(r, &f, err, sizeof err), 0);
        write_all(sv[0], bytes + i, 1);
        assert_int_equal(gt_wire_read(r, sv[1]), 1);
        assert_int_equal(gt_wire_pending(r), i + 1);
    }
    assert_int_equal(gt_wire_next(r, &f, err, sizeof err), 1);
    assert_string_equal(f.json, json);
    assert_int_equal(gt_wire_pending(r), 0);
    frame_free(&f);
    gt_wire_reader_free(r);
    close_pair(sv);
}

struct sender {
    int sock;
    const char *json;
    size_t len;
    int fd;
    int rc;
    char err[256];
};

static void *send_in_thread(void *arg)
{
    struct sender *s = arg;
    s->rc = gt_wire_send(s->sock, s->json, s->len, &s->fd, 1, s->err, sizeof s->err);
    shutdown(s->sock, SHUT_WR); /* a reader still waiting then sees end of file, not a hang */
    return NULL;
}

/* A frame several times the socket's buffer, from a non-blocking sender: its sendmsg writes
 * part, waits, and goes on, and the descriptor must come across once, with the first part.
 * A thread sends while the test reads. */
static void test_large_frame_written_in_parts(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
    assert_int_equal(fcntl(sv[1], F_SETFL, 0), 0); /* the sender may not have written yet */
    size_t len = MAX_FRAME;
    char *json = malloc(len);
    assert_non_null(json);
    for (size_t i = 0; i < len; i++)
        json[i] = (char)('a' + i % 26);
    struct sender s = {.sock = sv[0], .json = json, .len = len, .fd = memfd_holding("big", "big")};
    int before = count_fds();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, send_in_thread, &s), 0);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    gt_wire_frame f;
    next_frame(r, sv[1], &f);
    /* a sender still writing (a frame taken too early) then fails with EPIPE, not blocks */
    shutdown(sv[1], SHUT_RD);
    assert_int_equal(pthread_join(t, NULL), 0);
    if (s.rc)
        fail_msg("gt_wire_send failed (%d): %s", s.rc, s.err);
    assert_int_equal(f.len, len);
    assert_memory_equal(f.json, json, len);
    assert_int_equal(f.nfds, 1);
    assert_fd_holds(f.fds[0], "big");
    assert_int_equal(gt_wire_pending(r), 0);
    /* only the frame's own descriptor arrived: none is left queued behind it */
    assert_int_equal(count_fds(), before + 1);
    frame_free(&f);
    free(json);
    close(s.fd);
    gt_wire_reader_free(r);
    close_pair(sv);
}

#define VARIED_FRAMES 40
#define VARIED_MAX 24576

/* Frame i of test_frames_of_varied_sizes: up to VARIED_MAX bytes, all the same letter. */
static size_t varied_len(int i)
{
    return (size_t)(i * 7919 % VARIED_MAX) + 1;
}

static void *send_varied(void *arg)
{
    struct sender *s = arg;
    char *buf = malloc(VARIED_MAX + 1);
    for (int i = 0; i < VARIED_FRAMES && !s->rc && buf; i++) {
        memset(buf, 'A' + i % 26, varied_len(i));
        s->rc = gt_wire_send(s->sock, buf, varied_len(i), NULL, 0, s->err, sizeof s->err);
    }
    if (!buf)
        s->rc = -ENOMEM;
    free(buf);
    shutdown(s->sock, SHUT_WR); /* a reader still waiting then sees end of file, not a hang */
    return NULL;
}

/* Many frames of uneven sizes, taken as they complete: reads end inside frames, so the reader
 * keeps partial frames behind consumed ones and must reuse or grow its buffer without losing
 * bytes. */
static void test_frames_of_varied_sizes(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    assert_int_equal(fcntl(sv[1], F_SETFL, 0), 0); /* the sender may not have written yet */
    struct sender s = {.sock = sv[0]};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, send_varied, &s), 0);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    for (int i = 0; i < VARIED_FRAMES; i++) {
        gt_wire_frame f;
        next_frame(r, sv[1], &f);
        assert_int_equal(f.len, varied_len(i));
        for (size_t k = 0; k < f.len; k++)
            if (f.json[k] != 'A' + i % 26)
                fail_msg("frame %d: byte %zu is %d, not %c", i, k, f.json[k], 'A' + i % 26);
        frame_free(&f);
    }
    shutdown(sv[1], SHUT_RD); /* as in test_large_frame_written_in_parts */
    assert_int_equal(pthread_join(t, NULL), 0);
    if (s.rc)
        fail_msg("gt_wire_send failed (%d): %s", s.rc, s.err);
    assert_int_equal(gt_wire_pending(r), 0);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_truncated_frame_at_eof(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    write_header(sv[0], 10, 0);
    write_all(sv[0], "{\"a\"", 4);
    close(sv[0]);
    sv[0] = -1;
    assert_int_equal(gt_wire_read(r, sv[1]), GT_WIRE_HEADER + 4);
    char err[256] = "";
    gt_wire_frame f;
    assert_int_equal(gt_wire_next(r, &f, err, sizeof err), 0);
    assert_int_equal(gt_wire_read(r, sv[1]), 0);
    assert_int_equal(gt_wire_next(r, &f, err, sizeof err), 0);
    assert_int_equal(gt_wire_pending(r), GT_WIRE_HEADER + 4);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_oversized_header_refused_before_body(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    write_header(sv[0], 2000000, 0); /* and no body at all */
    char err[256] = "";
    gt_wire_frame f;
    assert_int_equal(next_after_reading(r, sv[1], &f, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "2000000"));
    assert_non_null(strstr(err, "1048576"));
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_five_fds_announced(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    write_header(sv[0], 2, 5);
    write_all(sv[0], "{}", 2);
    char err[256] = "";
    gt_wire_frame f;
    assert_int_equal(next_after_reading(r, sv[1], &f, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "announces 5"));
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_announced_fd_never_sent(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    write_header(sv[0], 2, 1);
    write_all(sv[0], "{}", 2);
    char err[256] = "";
    gt_wire_frame f;
    assert_int_equal(next_after_reading(r, sv[1], &f, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "1 file descriptors but 0"));
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_send_to_closed_peer(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    close(sv[1]);
    sv[1] = -1;
    /* SIGPIPE's default action kills the test, so -EPIPE can only come back if it was avoided */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
    assert_int_equal(sigaction(SIGPIPE, &dfl, &old), 0);
    char err[256] = "";
    int rc = gt_wire_send(sv[0], "{}", 2, NULL, 0, err, sizeof err);
    assert_int_equal(sigaction(SIGPIPE, &old, NULL), 0);
    assert_int_equal(rc, -EPIPE);
    assert_true(strlen(err) > 0);
    close(sv[0]);
}

static void test_send_rejects_five_fds(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    int fds[5] = {sv[0], sv[0], sv[0], sv[0], sv[0]};
    char err[256] = "";
    assert_int_equal(gt_wire_send(sv[0], "{}", 2, fds, 5, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "carries 5"));
    close_pair(sv);
}

static void test_send_rejects_length_over_32_bits(void **state)
{
    (void)state;
    if (SIZE_MAX <= UINT32_MAX)
        skip();
    int sv[2];
    make_pair(sv);
    char err[256] = "";
    /* refused from the length alone, before a byte of the (two-byte) text is read */
    size_t len = (size_t)UINT32_MAX + 1;
    assert_int_equal(gt_wire_send(sv[0], "{}", len, NULL, 0, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "4294967296"));
    close_pair(sv);
}

static void test_read_empty_nonblocking(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    assert_int_equal(gt_wire_read(r, sv[1]), -EAGAIN);
    assert_int_equal(gt_wire_pending(r), 0);
    gt_wire_reader_free(r);
    close_pair(sv);
}

static void test_free_closes_queued_fds(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    int fds[2] = {memfd_holding("a", "a"), memfd_holding("b", "b")};
    send_ok(sv[0], "{}", fds, 2);
    close(fds[0]);
    close(fds[1]);
    int before = count_fds();
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    assert_true(gt_wire_read(r, sv[1]) > 0);
    assert_int_equal(count_fds(), before + 2); /* queued, no frame taken */
    gt_wire_reader_free(r);
    assert_int_equal(count_fds(), before);
    close_pair(sv);
}

static void test_fd_queue_overflow(void **state)
{
    (void)state;
    int sv[2];
    make_pair(sv);
    int fds[GT_WIRE_MAX_FDS];
    for (int i = 0; i < GT_WIRE_MAX_FDS; i++)
        fds[i] = memfd_holding("q", "q");
    /* one frame more than the queue holds */
    int frames = GT_WIRE_FD_QUEUE / GT_WIRE_MAX_FDS + 1;
    for (int i = 0; i < frames; i++)
        send_ok(sv[0], "{}", fds, GT_WIRE_MAX_FDS);
    for (int i = 0; i < GT_WIRE_MAX_FDS; i++)
        close(fds[i]);
    int before = count_fds();
    gt_wire_reader *r = gt_wire_reader_new(MAX_FRAME);
    long n;
    bool refused = false;
    while ((n = gt_wire_read(r, sv[1])) != -EAGAIN) {
        if (n == -EMFILE)
            refused = true;
        else
            assert_true(n > 0);
    }
    assert_true(refused);
    /* the queue is full, and the descriptors that did not fit were closed, not leaked */
    assert_int_equal(count_fds(), before + GT_WIRE_FD_QUEUE);
    gt_wire_reader_free(r);
    assert_int_equal(count_fds(), before);
    close_pair(sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_is_big_endian),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_empty_frame),
        cmocka_unit_test(test_nul_bytes_are_copied),
        cmocka_unit_test(test_fds_carry_their_files),
        cmocka_unit_test(test_received_fds_are_cloexec),
        cmocka_unit_test(test_frames_in_order_with_their_fds),
        cmocka_unit_test(test_one_byte_writes_assemble),
        cmocka_unit_test(test_large_frame_written_in_parts),
        cmocka_unit_test(test_frames_of_varied_sizes),
        cmocka_unit_test(test_truncated_frame_at_eof),
        cmocka_unit_test(test_oversized_header_refused_before_body),
        cmocka_unit_test(test_five_fds_announced),
        cmocka_unit_test(test_announced_fd_never_sent),
        cmocka_unit_test(test_send_to_closed_peer),
        cmocka_unit_test(test_send_rejects_five_fds),
        cmocka_unit_test(test_send_rejects_length_over_32_bits),
        cmocka_unit_test(test_read_empty_nonblocking),
        cmocka_unit_test(test_free_closes_queued_fds),
        cmocka_unit_test(test_fd_queue_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
