/* usage.c: per-user and daemon-wide counts of connections and buffers (usage.h). The users
 * are few (one in per-user mode, a group's members in system mode), so a small array
 * searched in order is enough; a user holding nothing is dropped from it. */
#include "usage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct user_usage {
    uid_t uid;
    gt_usage_counts held;
} user_usage;

struct gt_usage {
    const gt_limits *limits;
    gt_usage_counts total;
    user_usage *users;
    size_t nusers, cap;
};

gt_usage *gt_usage_new(const gt_limits *limits)
{
    gt_usage *u = calloc(1, sizeof *u);
    if (u)
        u->limits = limits;
    return u;
}

void gt_usage_free(gt_usage *u)
{
    if (!u)
        return;
    free(u->users);
    free(u);
}

static user_usage *find(const gt_usage *u, uid_t uid)
{
    for (size_t i = 0; i < u->nusers; i++)
        if (u->users[i].uid == uid)
            return &u->users[i];
    return NULL;
}

static user_usage *find_or_add(gt_usage *u, uid_t uid)
{
    user_usage *e = find(u, uid);
    if (e)
        return e;
    if (u->nusers == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        user_usage *grown = realloc(u->users, cap * sizeof *grown);
        if (!grown)
            return NULL;
        u->users = grown;
        u->cap = cap;
    }
    e = &u->users[u->nusers++];
    *e = (user_usage){.uid = uid};
    return e;
}

static void drop_if_idle(gt_usage *u, user_usage *e)
{
    if (e->held.clients || e->held.buffers || e->held.buffer_bytes)
        return;
    *e = u->users[--u->nusers];
}

int gt_usage_client_add(gt_usage *u, uid_t uid, char *err, size_t errlen)
{
    const gt_limits *l = u->limits;
    user_usage *e = find(u, uid);
    unsigned mine = e ? e->held.clients : 0;
    if (u->total.clients >= l->max_clients) {
        snprintf(err, errlen, "gridtuned serves at most %u clients at once (--max-clients), and has %u", l->max_clients,
                 u->total.clients);
        return -EUSERS;
    }
    if (mine >= l->max_user_clients) {
        snprintf(err, errlen, "uid %u has %u clients connected, the most gridtuned serves for one user "
                 "(--max-user-clients %u)", (unsigned)uid, mine, l->max_user_clients);
        return -EUSERS;
    }
    if (!(e = find_or_add(u, uid))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    e->held.clients++;
    u->total.clients++;
    return 0;
}

void gt_usage_client_remove(gt_usage *u, uid_t uid)
{
    user_usage *e = find(u, uid);
    if (!e || !e->held.clients)
        return;
    e->held.clients--;
    u->total.clients--;
    drop_if_idle(u, e);
}

int gt_usage_buffer_add(gt_usage *u, uid_t uid, uint64_t bytes, char *err, size_t errlen)
{
    const gt_limits *l = u->limits;
    user_usage *e = find(u, uid);
    gt_usage_counts mine = e ? e->held : (gt_usage_counts){0};
    if (u->total.buffers >= l->max_total_buffers) {
        snprintf(err, errlen, "gridtuned holds %u buffers for all its clients, the most it maps at once "
                 "(--max-total-buffers %u); try again when others are released", u->total.buffers,
                 l->max_total_buffers);
        return -ENOSPC;
    }
    if (mine.buffers >= l->max_user_buffers) {
        snprintf(err, errlen, "uid %u holds %u buffers over all its clients, the most gridtuned allows one user "
                 "(--max-user-buffers %u); release some first", (unsigned)uid, mine.buffers, l->max_user_buffers);
        return -ENOSPC;
    }
    if (bytes > l->max_total_buffer_bytes - u->total.buffer_bytes) {
        snprintf(err, errlen, "a buffer of %" PRIu64 " bytes would bring the buffers of all clients to more than %" PRIu64
                 " bytes (--max-total-buffer-bytes); they hold %" PRIu64 " now", bytes, l->max_total_buffer_bytes,
                 u->total.buffer_bytes);
        return -ENOSPC;
    }
    if (bytes > l->max_user_buffer_bytes - mine.buffer_bytes) {
        snprintf(err, errlen, "a buffer of %" PRIu64 " bytes would bring the buffers of uid %u to more than %" PRIu64
                 " bytes (--max-user-buffer-bytes); its clients hold %" PRIu64 " now", bytes, (unsigned)uid,
                 l->max_user_buffer_bytes, mine.buffer_bytes);
        return -ENOSPC;
    }
    if (!(e = find_or_add(u, uid))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    e->held.buffers++;
    e->held.buffer_bytes += bytes;
    u->total.buffers++;
    u->total.buffer_bytes += bytes;
    return 0;
}

void gt_usage_buffer_remove(gt_usage *u, uid_t uid, uint64_t bytes)
{
    user_usage *e = find(u, uid);
    if (!e || !e->held.buffers)
        return;
    e->held.buffers--;
    e->held.buffer_bytes -= bytes;
    u->total.buffers--;
    u->total.buffer_bytes -= bytes;
    drop_if_idle(u, e);
}

gt_usage_counts gt_usage_total(const gt_usage *u)
{
    return u->total;
}

gt_usage_counts gt_usage_of(const gt_usage *u, uid_t uid)
{
    const user_usage *e = find(u, uid);
    return e ? e->held : (gt_usage_counts){0};
}
