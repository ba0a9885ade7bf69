/* buffer.c: shared buffers (gt_buffer_*). A buffer is a file mapped here and, after
 * buffer_create hands it over, in the daemon's executor too: kernels write straight into the
 * application's memory, with no copy either way. The file is made on the user's buffer store
 * when gridtuned sent one with its hello answer (a tmpfs of its own, whose files get huge
 * pages), else it is a sealed memfd. */
#include "connection.h"
#include "handle.h"
#include "handle_registry.h"
#include "last_error.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEMFD_NAME "gridtune-buffer"
/* Shrinking a file the daemon has mapped would make its kernels die of SIGBUS, so the daemon
 * refuses a memfd without F_SEAL_SHRINK. GROW keeps the size the daemon mapped the only one;
 * SEAL stops anyone adding F_SEAL_WRITE, which would make our own mapping read-only. */
#define BUFFER_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static void link_buffer(gt_client *c, gt_buffer *b)
{
    pthread_mutex_lock(&c->lock);
    b->next = c->buffers;
    if (c->buffers)
        c->buffers->prev = b;
    c->buffers = b;
    pthread_mutex_unlock(&c->lock);
}

static void unlink_buffer(gt_client *c, gt_buffer *b)
{
    pthread_mutex_lock(&c->lock);
    if (b->prev)
        b->prev->next = b->next;
    else
        c->buffers = b->next;
    if (b->next)
        b->next->prev = b->prev;
    pthread_mutex_unlock(&c->lock);
}

/* A zero-filled file of bytes bytes, mapped into b->data; its fd in *fd. An unnamed file on
 * the store (which cannot be sealed, and need not be: buffer_store.h in the daemon), or, without
 * a store or when the store refuses (full, say), a sealed memfd. */
static int make_file(gt_client *c, gt_buffer *b, int *fd)
{
    *fd = c->buffer_store < 0 ? -1 : openat(c->buffer_store, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (*fd >= 0 && ftruncate(*fd, (off_t)b->size) < 0) {
        close(*fd);
        *fd = -1;
    }
    if (*fd < 0) {
        *fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (*fd < 0)
            return gt_fail(c, -errno, "cannot create a memfd for a buffer of %zu bytes: %s", b->size, strerror(errno));
        if (ftruncate(*fd, (off_t)b->size) < 0)
            return gt_fail(c, -errno, "cannot size a buffer's memfd to %zu bytes: %s", b->size, strerror(errno));
        if (fcntl(*fd, F_ADD_SEALS, BUFFER_SEALS) < 0)
            return gt_fail(c, -errno, "cannot seal a buffer's memfd against shrinking: %s", strerror(errno));
    }
    void *data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (data == MAP_FAILED)
        return gt_fail(c, -errno, "cannot map a buffer of %zu bytes: %s", b->size, strerror(errno));
    (void)madvise(data, b->size, MADV_HUGEPAGE);
    b->data = data;
    return 0;
}

/* Hands the file to the daemon and takes its id for the buffer. */
static int register_buffer(gt_client *c, gt_buffer *b, int fd)
{
    cJSON *req = gt_msg_request("buffer_create");
    if (!req || gt_msg_add_id(req, "size", b->size)) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a buffer_create request");
    }
    cJSON *result;
    int rc = gt_conn_call(c, req, &fd, 1, &result);
    if (rc)
        return rc;
    rc = gt_msg_result_id(c, result, "buffer_create", "buffer", &b->id);
    cJSON_Delete(result);
    return rc;
}

int gt_buffer_create(gt_client *c, size_t bytes, gt_buffer **out)
{
    if (out)
        *out = NULL;
    int rc = gt_handle_check_client(c, "gt_buffer_create");
    if (rc)
        return rc;
    if (!c || !out)
        return gt_fail(c, -EINVAL, "gt_buffer_create needs a handle and a place for the buffer (got NULL)");
    if (bytes == 0)
        return gt_fail(c, -EINVAL, "a buffer of 0 bytes was asked for; a buffer holds at least 1 byte");
    if ((uint64_t)bytes > GT_JSON_INT_MAX)
        return gt_fail(c, -EINVAL, "a buffer of %zu bytes was asked for; the protocol carries sizes up to 2^53-1",
                       bytes);
    gt_buffer *b = calloc(1, sizeof *b);
    /* entered before the daemon is asked, so that no memory failure comes after it made one */
    if (!b || gt_handle_add(b, GT_HANDLE_BUFFER, c)) {
        free(b);
        return gt_fail(c, -ENOMEM, "no memory for a buffer handle");
    }
    b->client = c;
    b->size = bytes;
    int fd = -1;
    rc = make_file(c, b, &fd);
    if (!rc)
        rc = register_buffer(c, b, fd);
    if (fd >= 0)
        close(fd); /* the mapping stays, and the daemon has its own copy of the descriptor */
    if (rc) {
        gt_handle_remove(b, GT_HANDLE_BUFFER);
        if (b->data)
            munmap(b->data, b->size);
        free(b);
        return rc;
    }
    link_buffer(c, b);
    *out = b;
    return 0;
}

void *gt_buffer_data(gt_buffer *b)
{
    if (!b) {
        gt_fail(NULL, -EINVAL, "gt_buffer_data was given no buffer (NULL)");
        return NULL;
    }
    if (!gt_handle_owner(b, GT_HANDLE_BUFFER)) {
        gt_fail_dead(NULL, "gt_buffer_data", b, GT_HANDLE_BUFFER);
        return NULL;
    }
    return b->data;
}

size_t gt_buffer_size(const gt_buffer *b)
{
    if (!b) {
        gt_fail(NULL, -EINVAL, "gt_buffer_size was given no buffer (NULL)");
        return 0;
    }
    if (!gt_handle_owner(b, GT_HANDLE_BUFFER)) {
        gt_fail_dead(NULL, "gt_buffer_size", b, GT_HANDLE_BUFFER);
        return 0;
    }
    return b->size;
}

int gt_buffer_release(gt_buffer *b)
{
    if (!b)
        return 0;
    /* taken out first: of two threads releasing b at once, only one frees it */
    if (!gt_handle_remove(b, GT_HANDLE_BUFFER))
        return gt_fail_dead(NULL, "gt_buffer_release", b, GT_HANDLE_BUFFER);
    gt_client *c = b->client;
    unlink_buffer(c, b);
    cJSON *req = gt_msg_request("buffer_release");
    /* a refused or lost release still frees this side: the daemon frees what a connection
     * held when it ends, and a release cannot be retried once the handle is gone */
    if (req && !gt_msg_add_id(req, "buffer", b->id))
        gt_conn_call(c, req, NULL, 0, NULL);
    else
        cJSON_Delete(req);
    munmap(b->data, b->size);
    free(b);
    return 0;
}

/* The local side of the buffers a disconnecting client still holds; no messages. */
void gt_buffers_free_all(gt_client *c)
{
    for (gt_buffer *b = c->buffers, *next; b; b = next) {
        next = b->next;
        gt_handle_remove(b, GT_HANDLE_BUFFER);
        munmap(b->data, b->size);
        free(b);
    }
    c->buffers = NULL;
}
