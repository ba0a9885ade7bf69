/* log.h: gridtuned's log: one line per event, to stderr or a file, safe from any thread.
 * The file is reopened on SIGHUP (gt_log_reopen), so logrotate can move it away. */
#ifndef GT_LOG_H
#define GT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gt_log_level {
    GT_LOG_ERROR,
    GT_LOG_WARN,
    GT_LOG_INFO,
    GT_LOG_DEBUG,
} gt_log_level;

int gt_log_level_parse(const char *text, gt_log_level *out);
const char *gt_log_level_name(gt_log_level level);

/* Logs to path (appended, created 0600), or to stderr when path is NULL. Lines below level
 * are dropped. Returns 0 or a negative errno with a sentence in err. */
int gt_log_open(const char *path, gt_log_level level, char *err, size_t errlen);
/* Reopens the file (after a rotation); a failure keeps the old one and is logged. */
void gt_log_reopen(void);
void gt_log_close(void);

void gt_log(gt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define gt_log_error(...) gt_log(GT_LOG_ERROR, __VA_ARGS__)
#define gt_log_warn(...) gt_log(GT_LOG_WARN, __VA_ARGS__)
#define gt_log_info(...) gt_log(GT_LOG_INFO, __VA_ARGS__)
#define gt_log_debug(...) gt_log(GT_LOG_DEBUG, __VA_ARGS__)

/* For lines a client can cause as often as it likes (refused connections or requests, a
 * connection's lines): at most burst a second pass (one when burst is 0), so a client in a
 * loop cannot fill the log or the disk. */
typedef struct gt_log_limit {
    unsigned burst;
    int64_t window_ms; /* CLOCK_MONOTONIC: when the second began */
    unsigned passed;   /* lines passed in it */
    unsigned held;     /* lines held back since the last that passed */
} gt_log_limit;

/* True when this line may be logged; *held then gets how many were held back before it (to
 * say so in the line). One limit belongs to one thread. */
bool gt_log_limit_pass(gt_log_limit *l, unsigned *held);

#endif
