/* usage.h: what each user (uid) and the daemon as a whole hold right now: connections,
 * buffer bytes and buffers (each one mapping in gridtuned), checked against the daemon-wide
 * and per-user limits (config.h). The per-client limits are the session's own; these keep
 * many clients, or one user's many clients, from taking what every other user needs: memory,
 * mappings (past vm.max_map_count no one can map anything) and descriptors.
 * Used on the event loop's thread only. */
#ifndef GT_USAGE_H
#define GT_USAGE_H

#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gt_usage_counts {
    unsigned clients;
    unsigned buffers;
    uint64_t buffer_bytes;
} gt_usage_counts;

typedef struct gt_usage gt_usage;

gt_usage *gt_usage_new(const gt_limits *limits);
void gt_usage_free(gt_usage *u);

/* Counts one more connection of uid, or returns -EUSERS with a sentence naming the limit
 * (--max-clients or --max-user-clients) when it would pass one. -ENOMEM without memory. */
int gt_usage_client_add(gt_usage *u, uid_t uid, char *err, size_t errlen);
void gt_usage_client_remove(gt_usage *u, uid_t uid);

/* Counts one more buffer of bytes for uid, or returns -ENOSPC with a sentence naming the
 * limit it would pass (--max-total-buffers, --max-user-buffers, --max-total-buffer-bytes or
 * --max-user-buffer-bytes). -ENOMEM without memory. */
int gt_usage_buffer_add(gt_usage *u, uid_t uid, uint64_t bytes, char *err, size_t errlen);
void gt_usage_buffer_remove(gt_usage *u, uid_t uid, uint64_t bytes);

/* The daemon's totals, and one user's (zeros for a uid holding nothing). */
gt_usage_counts gt_usage_total(const gt_usage *u);
gt_usage_counts gt_usage_of(const gt_usage *u, uid_t uid);

#endif
