/* private_daemon.h: a gridtuned of the benchmark's own, in a temporary directory, so that a
 * benchmark never touches the user's wisdom or shares the workers with the user's launches.
 * The daemon detaches and its first process returns once the socket listens (as libgridtune's
 * autostart uses it); stopping it is SIGTERM and waiting for the process to be gone. */
#ifndef GT_PRIVATE_DAEMON_H
#define GT_PRIVATE_DAEMON_H

#include <gridtune/gridtune.h>

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct gt_private_daemon {
    char dir[PATH_MAX];    /* the temporary directory: socket, wisdom, cache, log, trace */
    char socket[PATH_MAX];
    char trace[PATH_MAX];  /* empty when not tracing */
    pid_t pid;
} gt_private_daemon;

/* The gridtuned to start: $GRIDTUNE_DAEMON, else the build tree's, else the installed one. */
const char *gt_private_daemon_program(void);

/* The most extra flags gt_private_daemon_start passes on. */
#define GT_PRIVATE_DAEMON_MAX_EXTRA 8

/* Starts program in a new temporary directory (dir may already name one made by an earlier
 * start, which is then reused with its build cache) with workers workers (0: every CPU), when
 * trace is true a protocol trace, and the flags of extra (NULL-terminated, at most
 * GT_PRIVATE_DAEMON_MAX_EXTRA, e.g. "--no-probes"; NULL: none) after its own. Returns 0 with
 * *out connected, or -1 after saying why (kernels/say.h). */
int gt_private_daemon_start(const char *program, unsigned workers, bool trace,
                            const char *const *extra, gt_private_daemon *d, gt_client **out);
/* SIGTERM, then waits up to 10 s for the process to be gone. 0, or -1 after printing why. */
int gt_private_daemon_stop(gt_private_daemon *d);
/* A positive number of the daemon's status (gt_status), such as "pid" or "workers"; 0 when
 * the status cannot be had or has no such positive number. */
double gt_private_daemon_status_number(gt_client *c, const char *key);
/* The daemon's shared-memory huge-page mode (status buffers.huge_pages) into mode; "unknown"
 * when the status cannot be had. */
void gt_private_daemon_huge_pages(gt_client *c, char *mode, size_t len);
/* Removes the temporary directory and what is in it. */
void gt_private_daemon_remove(gt_private_daemon *d);

#endif
