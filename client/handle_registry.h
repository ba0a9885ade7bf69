/* handle_registry.h: which handles are alive. Every client, buffer and kernel libgridtune
 * makes is entered here before it is handed out and taken out before it is freed, and every
 * public function asks here before it touches a handle's memory. So a released or
 * disconnected handle (or a pointer that never was one) is refused with -EBADF and a
 * sentence, instead of being read after free. The registry holds pointers only: it never
 * dereferences what it is asked about. */
#ifndef GT_CLIENT_HANDLE_REGISTRY_H
#define GT_CLIENT_HANDLE_REGISTRY_H

#include <gridtune/gridtune.h>

#include <stdbool.h>

typedef enum gt_handle_kind {
    GT_HANDLE_CLIENT = 1,
    GT_HANDLE_BUFFER,
    GT_HANDLE_KERNEL,
} gt_handle_kind;

/* Enters h, a handle of this kind owned by owner (a client owns itself). 0, or -ENOMEM. */
int gt_handle_add(const void *h, gt_handle_kind kind, const gt_client *owner);
/* Takes h out. True when it was live as this kind: the one caller that takes a handle out is
 * the one that frees it, so two threads releasing it at once cannot both free it. */
bool gt_handle_remove(const void *h, gt_handle_kind kind);
/* The client owning h when h is a live handle of this kind, else NULL. */
gt_client *gt_handle_owner(const void *h, gt_handle_kind kind);

/* For several lookups under one lock (gt_launch's kernel and buffers): gt_handle_owner_locked
 * only between gt_handle_lock and gt_handle_unlock. */
void gt_handle_lock(void);
void gt_handle_unlock(void);
gt_client *gt_handle_owner_locked(const void *h, gt_handle_kind kind);

/* -EBADF, with the sentence "FN: the KIND P was already released, or its client
 * disconnected" ("FN: the client P was already disconnected" for a client) on c when c is not
 * NULL (a live client the call was given), else on the calling thread's gt_last_error(NULL). */
int gt_fail_dead(gt_client *c, const char *fn, const void *h, gt_handle_kind kind);

/* The entry check of a function given the client c: -EBADF (gt_fail_dead) when c is a pointer
 * but no live client; 0 when c is live, and when it is NULL, which the caller's own check
 * names together with its other arguments. */
int gt_handle_check_client(const gt_client *c, const char *fn);

#endif
