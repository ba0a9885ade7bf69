/* session.c: a client connection's frames in and out, and its lifetime (session.h). */
#include "session.h"

#include "loaded_kernel.h"
#include "log.h"
#include "shm.h"
#include "usage.h"

#include "daemon/executor/exec_jobs.h"
#include "daemon/requests/dispatch.h"
#include "daemon/requests/launches.h"

#include <errno.h>
#include <event2/buffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line of --trace: a frame received ("in", with "fds" when descriptors came with it) or
 * an answer ("out", with the type of the request it answers). */
static void trace(gt_session *s, const char *dir, const char *request, const cJSON *msg, unsigned nfds)
{
    FILE *f = s->d->trace;
    if (!f)
        return;
    cJSON *line = cJSON_CreateObject();
    cJSON *copy = cJSON_Duplicate(msg, 1);
    if (line && copy && cJSON_AddNumberToObject(line, "conn", (double)s->serial) &&
        cJSON_AddStringToObject(line, "dir", dir) &&
        (strcmp(dir, "in") == 0 ? nfds == 0 || cJSON_AddNumberToObject(line, "fds", (double)nfds)
         : request ? cJSON_AddStringToObject(line, "request", request) != NULL
                   : cJSON_AddNullToObject(line, "request") != NULL) &&
        cJSON_AddItemToObject(line, "msg", copy)) {
        copy = NULL;
        char *text = cJSON_PrintUnformatted(line);
        if (text) {
            fprintf(f, "%s\n", text);
            fflush(f);
        }
        free(text);
    }
    cJSON_Delete(copy);
    cJSON_Delete(line);
}

/* Writes what is queued as far as the socket takes it. s->out_lock is held. Returns false when
 * the write failed. */
static bool write_queued(gt_session *s)
{
    while (evbuffer_get_length(s->out) > 0) {
        int n = evbuffer_write(s->out, s->fd);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        if (n <= 0)
            return false;
    }
    return true;
}

/* Brings d->output_bytes up to date with what s->out holds. s->out_lock is held. */
static void count_output_locked(gt_session *s)
{
    size_t now = evbuffer_get_length(s->out);
    if (now >= s->out_counted)
        atomic_fetch_add(&s->d->output_bytes, now - s->out_counted);
    else
        atomic_fetch_sub(&s->d->output_bytes, s->out_counted - now);
    s->out_counted = now;
}

/* Why the session is to be dropped for the answers it has not read, or NULL: more than
 * --max-output, or, while all clients' answers queued pass --max-total-output, more than its
 * share of that (so that a client that reads is never dropped for those that do not). On the
 * loop's thread, s->out_lock held. */
static const char *unread_output_locked(gt_session *s)
{
    const gt_limits *lim = &s->d->cfg->limits;
    size_t mine = evbuffer_get_length(s->out), clients = s->d->stats.clients ? s->d->stats.clients : 1;
    if (mine > lim->max_output)
        return "more answers piled up than --max-output allows; the client is not reading";
    if (atomic_load(&s->d->output_bytes) > lim->max_total_output && mine > lim->max_total_output / clients)
        return "the answers queued to all clients passed --max-total-output, and this client, which is not reading, "
               "holds more than its share of them";
    return NULL;
}

/* write_queued, then watches for room for the rest, from the loop's thread. Returns false when
 * the write failed: the caller closes the session. */
static bool flush_locked(gt_session *s)
{
    if (!write_queued(s))
        return false;
    if (evbuffer_get_length(s->out) > 0)
        event_add(s->write_ev, NULL);
    else
        event_del(s->write_ev);
    return true;
}

void gt_session_flush(gt_session *s)
{
    if (atomic_load(&s->closed))
        return;
    pthread_mutex_lock(&s->out_lock);
    const char *why = !flush_locked(s) ? "the client stopped reading (write failed)" : unread_output_locked(s);
    count_output_locked(s);
    pthread_mutex_unlock(&s->out_lock);
    if (why)
        gt_session_close(s, why);
}

/* msg's frame (msg is taken), traced; NULL without memory. */
static char *frame_text(gt_session *s, cJSON *msg, const char *request, size_t *len)
{
    trace(s, "out", request, msg, 0);
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    *len = text ? strlen(text) : 0;
    if (text && *len > UINT32_MAX) {
        free(text);
        return NULL;
    }
    return text;
}

/* Queues the frame of text (len bytes) whole, its header and its body, or nothing: false
 * without memory. s->out_lock is held. */
static bool queue_frame_locked(gt_session *s, const char *text, size_t len)
{
    unsigned char header[GT_WIRE_HEADER];
    gt_wire_header((uint32_t)len, 0, header);
    return evbuffer_expand(s->out, sizeof header + len) == 0 && evbuffer_add(s->out, header, sizeof header) == 0 &&
           evbuffer_add(s->out, text, len) == 0;
}

/* Writes the frame of text with fd attached to its first byte, which needs nothing queued
 * before it, and queues what the socket did not take. Returns 1 when the frame went or waits
 * whole in the queue, 0 when no byte went (the socket is full, or the write failed), -1 when
 * its rest could not be queued (no memory: the stream is broken). s->out_lock is held. */
static int write_frame_with_fd_locked(gt_session *s, const char *text, size_t len, int fd)
{
    long n = gt_wire_send_start(s->fd, text, len, &fd, 1);
    if (n <= 0)
        return 0;
    unsigned char header[GT_WIRE_HEADER];
    gt_wire_header((uint32_t)len, 1, header);
    size_t sent = (size_t)n, body = sent > sizeof header ? sent - sizeof header : 0;
    if (sent < sizeof header && evbuffer_add(s->out, header + sent, sizeof header - sent) != 0)
        return -1;
    return evbuffer_add(s->out, text + body, len - body) == 0 ? 1 : -1;
}

void gt_session_send(gt_session *s, cJSON *msg, const char *request)
{
    gt_session_send_fd(s, msg, request, -1);
}

void gt_session_send_fd(gt_session *s, cJSON *msg, const char *request, int fd)
{
    if (atomic_load(&s->closed)) {
        cJSON_Delete(msg);
        return;
    }
    const char *why = NULL;
    pthread_mutex_lock(&s->out_lock);
    size_t len;
    char *text = frame_text(s, msg, request, &len);
    int written = text && fd >= 0 && evbuffer_get_length(s->out) == 0 ? write_frame_with_fd_locked(s, text, len, fd) : 0;
    if (!text)
        why = "out of memory writing an answer";
    else if (written < 0 || (written == 0 && !queue_frame_locked(s, text, len)))
        why = "out of memory queueing an answer";
    else if (!flush_locked(s))
        why = "the client stopped reading (write failed)";
    else
        why = unread_output_locked(s);
    count_output_locked(s);
    pthread_mutex_unlock(&s->out_lock);
    free(text);
    if (why)
        gt_session_close(s, why);
}

bool gt_session_send_now(gt_session *s, cJSON *msg, const char *request)
{
    pthread_mutex_lock(&s->out_lock);
    if (atomic_load(&s->closed)) {
        pthread_mutex_unlock(&s->out_lock);
        cJSON_Delete(msg);
        return false;
    }
    size_t len;
    char *text = frame_text(s, msg, request, &len);
    bool sent = text && queue_frame_locked(s, text, len);
    /* What the socket does not take waits in the queue for the loop's thread; after a failed
       write the loop's own write fails too, and it closes the session. The loop's write event
       is touched only then: from this thread that wakes the loop (libevent's pthreads support
       makes it safe), which measured 8 us more per one-trip launch when done every time. */
    if (sent && (!write_queued(s) || evbuffer_get_length(s->out) > 0))
        event_add(s->write_ev, NULL);
    count_output_locked(s);
    /* Past a limit, the loop checks the session at once (gt_session_flush): its socket, which
       the client does not read, would never tell it to. */
    const gt_limits *lim = &s->d->cfg->limits;
    if (evbuffer_get_length(s->out) > lim->max_output || atomic_load(&s->d->output_bytes) > lim->max_total_output)
        event_active(s->write_ev, EV_WRITE, 1);
    pthread_mutex_unlock(&s->out_lock);
    free(text);
    return sent;
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gt_session_flush(arg);
}

/* A frame that cannot be read as a request: answered with id null. After a broken frame the
 * stream cannot be resynchronised, so the session ends. */
static void frame_error(gt_session *s, const char *code, int errnum, const char *message, bool fatal)
{
    gt_session_ref(s); /* a failed write closes the session: keep it until we are done */
    gt_reply_error(s, 0, NULL, code, errnum, message);
    if (fatal && !atomic_load(&s->closed)) {
        gt_session_flush(s);
        gt_session_close(s, message);
    }
    gt_session_unref(s);
}

/* Keeps d->partial_bytes (what all clients' unfinished frames hold) up to date, and the frame
 * deadline armed while this session's frame is unfinished; restarted when a frame ended.
 * Then drops the session if the daemon holds more partial bytes than --max-partial-bytes and
 * this session more than its share of them (so that a client sending a frame of ordinary size
 * is not dropped for the clients that filled the budget: they are, when their bytes come). */
static void watch_partial_frame(gt_session *s, bool frames_ended)
{
    gt_daemon *d = s->d;
    const gt_limits *lim = &d->cfg->limits;
    bool open = !atomic_load(&s->closed);
    size_t pending = open ? gt_wire_pending(s->reader) : 0;
    unsigned fds = open ? gt_wire_queued_fds(s->reader) : 0;
    d->partial_bytes = d->partial_bytes - s->partial_counted + pending;
    s->partial_counted = pending;
    d->queued_fds = d->queued_fds - s->fds_counted + fds;
    s->fds_counted = fds;
    if (pending == 0 && fds == 0) {
        /* a refused connection's timer is its linger, and one not yet greeted its hello's deadline */
        if (!s->refusal[0] && s->greeted)
            event_del(s->frame_timer);
        return;
    }
    if (!s->refusal[0] && (frames_ended || !evtimer_pending(s->frame_timer, NULL))) {
        struct timeval deadline = {.tv_sec = lim->frame_timeout_s};
        evtimer_add(s->frame_timer, &deadline);
    }
    char message[256];
    size_t share = lim->max_partial_bytes / (d->stats.clients ? d->stats.clients : 1);
    if (d->partial_bytes > lim->max_partial_bytes && pending > share) {
        snprintf(message, sizeof message, "gridtuned holds %zu bytes of partly received frames for all its clients, "
                 "more than --max-partial-bytes %zu; this client's unfinished frame of %zu bytes, more than its "
                 "share, is dropped", d->partial_bytes, lim->max_partial_bytes, pending);
        frame_error(s, GT_ERR_LIMIT, ENOBUFS, message, true);
    } else if (d->queued_fds > lim->max_queued_fds) {
        /* descriptors sent ahead of their frames would starve accept() and other clients' buffers */
        snprintf(message, sizeof message, "gridtuned holds %u descriptors sent ahead of their frames for all its "
                 "clients, more than the %u its descriptor limit leaves for them; this client's %u are dropped",
                 d->queued_fds, lim->max_queued_fds, fds);
        frame_error(s, GT_ERR_LIMIT, EMFILE, message, true);
    }
}

static void on_frame_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gt_session *s = arg;
    if (s->refusal[0]) {
        frame_error(s, GT_ERR_LIMIT, s->refusal_errno, s->refusal, true);
        return;
    }
    char message[160];
    if (!s->greeted && gt_wire_pending(s->reader) == 0 && gt_wire_queued_fds(s->reader) == 0)
        snprintf(message, sizeof message, "no hello came within %u s of connecting (--frame-timeout)",
                 s->d->cfg->limits.frame_timeout_s);
    else
        snprintf(message, sizeof message, "the frame was not complete %u s after its first byte (--frame-timeout)",
                 s->d->cfg->limits.frame_timeout_s);
    frame_error(s, GT_ERR_FRAME, ETIMEDOUT, message, true);
}

static void handle_frame(gt_session *s, gt_wire_frame *f)
{
    const char *end = NULL;
    cJSON *msg = cJSON_ParseWithLengthOpts(f->json, f->len, &end, false);
    /* the frame is one JSON text: bytes after it (other than white space) make it malformed */
    while (msg && end < f->json + f->len && strchr(" \t\r\n", *end) && *end)
        end++;
    if (!msg || !cJSON_IsObject(msg) || end != f->json + f->len) {
        frame_error(s, GT_ERR_JSON, EBADMSG, msg && cJSON_IsObject(msg)
                        ? "the frame has bytes after its JSON object"
                        : "the frame is not a JSON object", false);
    } else {
        trace(s, "in", NULL, msg, f->nfds);
        gt_requests_dispatch(s, msg, f->fds, f->nfds);
    }
    cJSON_Delete(msg);
    for (unsigned i = 0; i < f->nfds; i++)
        if (f->fds[i] >= 0)
            close(f->fds[i]);
    free(f->json);
}

/* Whether the session waits for a launch answered early to be taken back (session.h). */
static bool paused(gt_session *s)
{
    return atomic_load(&s->early_answers) > 0;
}

/* Handles the whole frames received, in order, unless a launch of the session was answered
 * before the loop took its job back: then they wait for gt_session_resume, and the socket is
 * not read meanwhile. What the client sends then stays in the kernel's socket buffer, which
 * holds the client back, instead of in the reader, where it would count against the budgets
 * all clients share (--max-partial-bytes, the descriptors sent ahead). The caller holds a
 * reference. */
static void handle_frames(gt_session *s)
{
    char err[256];
    bool frames_ended = false;
    while (!atomic_load(&s->closed) && !paused(s)) {
        gt_wire_frame f;
        int rc = gt_wire_next(s->reader, &f, err, sizeof err);
        if (rc == 0)
            break;
        if (rc < 0) {
            frame_error(s, GT_ERR_FRAME, -rc, err, true);
            break;
        }
        frames_ended = true;
        handle_frame(s, &f);
    }
    watch_partial_frame(s, frames_ended);
    if (!atomic_load(&s->closed) && paused(s)) {
        event_del(s->read_ev);
        event_del(s->frame_timer); /* a frame that is not read cannot be finished meanwhile */
    }
}

/* The client will send nothing more: the whole frames it sent first are handled (once the
 * session is no longer paused), and only an unfinished frame left after them is an error. */
static void end_of_stream(gt_session *s)
{
    s->ended = true;
    handle_frames(s);
    if (atomic_load(&s->closed) || paused(s))
        return; /* gt_session_resume comes back here */
    if (gt_wire_pending(s->reader) > 0)
        frame_error(s, GT_ERR_FRAME, EPROTO, "the connection ended in the middle of a frame", true);
    else
        gt_session_close(s, "the client disconnected");
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    gt_session *s = arg;
    s->d->reads++;
    /* Answering may fail to write and close the session, which frees it unless someone
       else holds it: hold it until this callback is done with it. */
    gt_session_ref(s);
    /* the launch answered early has most likely finished since: take it back now (which
       resumes the session) rather than read on */
    gt_jobq *launcher = paused(s) ? gt_exec_jobs_queue(s->d, s->uid) : NULL;
    if (launcher)
        gt_jobq_deliver(launcher);
    if (atomic_load(&s->closed) || paused(s)) {
        if (!atomic_load(&s->closed))
            event_del(s->read_ev);
        gt_session_unref(s);
        return;
    }
    long n = gt_wire_read(s->reader, fd);
    if (n == 0)
        end_of_stream(s);
    else if (n == -EMFILE)
        frame_error(s, GT_ERR_FRAME, EMFILE, "too many file descriptors arrived before the frames that carry them",
                    true);
    else if (n < 0 && n != -EAGAIN)
        gt_session_close(s, strerror((int)-n));
    else if (n > 0)
        handle_frames(s);
    gt_session_unref(s);
}

void gt_session_resume(gt_session *s)
{
    if (paused(s) || atomic_load(&s->closed))
        return;
    gt_session_ref(s);
    if (s->ended) {
        end_of_stream(s);
    } else {
        event_add(s->read_ev, NULL);
        handle_frames(s);
    }
    gt_session_unref(s);
}

/* Nor may one whose connections are accepted. */
static void log_connected(gt_daemon *d, gt_session *s)
{
    unsigned held;
    s->log_held = !gt_log_limit_pass(&d->session_log, &held);
    if (s->log_held)
        gt_log_debug("client %d (uid %u) connected", (int)s->pid, (unsigned)s->uid);
    else if (held)
        gt_log_info("client %d (uid %u) connected (the lines of %u connections before it were not logged: more "
                    "than %d a second)", (int)s->pid, (unsigned)s->uid, held, GT_SESSION_LOG_BURST);
    else
        gt_log_info("client %d (uid %u) connected", (int)s->pid, (unsigned)s->uid);
}

/* A client that connects in a loop must not fill the log. */
static void log_refusal(gt_daemon *d, pid_t pid, uid_t uid, const char *why)
{
    unsigned held;
    if (!gt_log_limit_pass(&d->refusal_log, &held))
        return;
    if (held)
        gt_log_warn("refused client %d (uid %u): %s (and %u other clients since the last such line)", (int)pid,
                    (unsigned)uid, why, held);
    else
        gt_log_warn("refused client %d (uid %u): %s", (int)pid, (unsigned)uid, why);
}

gt_session *gt_session_open(gt_daemon *d, int fd, uid_t uid, pid_t pid)
{
    gt_session *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return NULL;
    }
    *s = (gt_session){.d = d, .serial = ++d->next_session, .fd = fd, .uid = uid, .pid = pid, .refs = 1, .next_id = 1};
    pthread_mutex_init(&s->out_lock, NULL);
    s->out = evbuffer_new();
    s->reader = gt_wire_reader_new(d->cfg->limits.max_frame);
    s->read_ev = event_new(d->base, fd, EV_READ | EV_PERSIST, on_readable, s);
    s->write_ev = event_new(d->base, fd, EV_WRITE | EV_PERSIST, on_writable, s);
    s->frame_timer = evtimer_new(d->base, on_frame_timeout, s);
    if (!s->out || !s->reader || !s->read_ev || !s->write_ev || !s->frame_timer || event_add(s->read_ev, NULL) != 0) {
        gt_log_error("out of memory accepting client %d", (int)pid);
        atomic_store(&s->closed, true);
        gt_session_unref(s);
        return NULL;
    }
    s->next = d->sessions;
    if (s->next)
        s->next->prev = s;
    d->sessions = s;
    d->stats.clients++;
    int rc = gt_usage_client_add(d->usage, uid, s->refusal, sizeof s->refusal);
    if (rc) {
        /* The hello is answered with the refusal, so that the client's gt_connect can say why;
           answering before it comes would race with the client's write of it. */
        log_refusal(d, pid, uid, s->refusal);
        d->stats.clients_refused++;
        s->refusal_errno = -rc;
        if (d->refused_lingering >= GT_REFUSED_LINGER_MAX) {
            /* a flood of refused connections: answered at once, without waiting for hellos */
            frame_error(s, rc == -ENOMEM ? GT_ERR_INTERNAL : GT_ERR_LIMIT, -rc, s->refusal, true);
            return NULL;
        }
        d->refused_lingering++;
        s->lingering = true;
        evtimer_add(s->frame_timer, &(struct timeval){.tv_sec = GT_REFUSED_LINGER_S});
        return s;
    }
    s->counted = true;
    /* A connection holds its place in the limits from here: it must say hello in time. */
    evtimer_add(s->frame_timer, &(struct timeval){.tv_sec = d->cfg->limits.frame_timeout_s});
    log_connected(d, s);
    return s;
}

static void release_objects(gt_session *s)
{
    for (size_t i = 0; i < s->buffers.count; i++)
        gt_shm_unref(s->buffers.entries[i].ptr);
    for (size_t i = 0; i < s->kernels.count; i++)
        gt_loaded_kernel_unref(s->kernels.entries[i].ptr);
    for (size_t i = 0; i < s->events.count; i++)
        gt_launch_event_unref(s->events.entries[i].ptr);
    gt_idtable_free(&s->buffers);
    gt_idtable_free(&s->kernels);
    gt_idtable_free(&s->events);
    s->buffer_bytes = 0;
}

void gt_session_close(gt_session *s, const char *reason)
{
    if (atomic_exchange(&s->closed, true))
        return;
    if (s->refusal[0] || s->log_held) /* log_refusal said why, once a second at most; or log_connected held it */
        gt_log_debug("client %d: session closed: %s", (int)s->pid, reason);
    else
        gt_log_info("client %d: session closed: %s", (int)s->pid, reason);
    event_del(s->read_ev);
    event_del(s->frame_timer);
    pthread_mutex_lock(&s->out_lock); /* a job's thread may be writing an answer */
    event_del(s->write_ev);
    close(s->fd);
    s->fd = -1;
    evbuffer_drain(s->out, evbuffer_get_length(s->out));
    count_output_locked(s);
    pthread_mutex_unlock(&s->out_lock);
    release_objects(s);
    s->d->partial_bytes -= s->partial_counted;
    s->partial_counted = 0;
    s->d->queued_fds -= s->fds_counted;
    s->fds_counted = 0;
    /* A job may hold the session past this point: what it buffered goes now, not then. */
    gt_wire_reader_free(s->reader); /* closes the descriptors sent ahead of their frames */
    s->reader = NULL;
    if (s->lingering)
        s->d->refused_lingering--;
    s->lingering = false;
    if (s->counted)
        gt_usage_client_remove(s->d->usage, s->uid);
    s->counted = false;
    if (s->prev)
        s->prev->next = s->next;
    else if (s->d->sessions == s)
        s->d->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    s->d->stats.clients--;
    gt_session_unref(s);
}

gt_session *gt_session_ref(gt_session *s)
{
    s->refs++;
    return s;
}

void gt_session_unref(gt_session *s)
{
    if (--s->refs > 0)
        return;
    if (s->read_ev)
        event_free(s->read_ev);
    if (s->write_ev)
        event_free(s->write_ev);
    if (s->frame_timer)
        event_free(s->frame_timer);
    if (s->out)
        evbuffer_free(s->out);
    gt_wire_reader_free(s->reader);
    if (s->fd >= 0)
        close(s->fd);
    pthread_mutex_destroy(&s->out_lock);
    free(s);
}

uint64_t gt_session_new_id(gt_session *s)
{
    return s->next_id++;
}
