/* log.c: gridtuned's log lines (log.h). A mutex keeps lines whole and the file pointer
 * stable while SIGHUP's reopen swaps it. */
#include "log.h"

#include "tuner/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LOG_LIMIT_MS 1000 /* gt_log_limit: its burst of lines a second */
#include <unistd.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static struct {
    pthread_mutex_t lock;
    FILE *file; /* NULL: stderr */
    char *path;
    gt_log_level level;
} log_state = {.lock = PTHREAD_MUTEX_INITIALIZER, .level = GT_LOG_INFO};

int gt_log_level_parse(const char *text, gt_log_level *out)
{
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcasecmp(text, level_names[i]) == 0) {
            *out = (gt_log_level)i;
            return 0;
        }
    return -EINVAL;
}

const char *gt_log_level_name(gt_log_level level)
{
    return (unsigned)level < sizeof level_names / sizeof level_names[0] ? level_names[level] : "?";
}

static FILE *open_file(const char *path, int *error)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        *error = errno;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    return f;
}

int gt_log_open(const char *path, gt_log_level level, char *err, size_t errlen)
{
    FILE *f = NULL;
    char *copy = NULL;
    if (path) {
        int error = 0;
        if (!(f = open_file(path, &error))) {
            snprintf(err, errlen, "cannot open the log file %s: %s", path, strerror(error));
            return -error;
        }
        if (!(copy = strdup(path))) {
            fclose(f);
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
    }
    pthread_mutex_lock(&log_state.lock);
    if (log_state.file)
        fclose(log_state.file);
    free(log_state.path);
    log_state.file = f;
    log_state.path = copy;
    log_state.level = level;
    pthread_mutex_unlock(&log_state.lock);
    return 0;
}

void gt_log_reopen(void)
{
    pthread_mutex_lock(&log_state.lock);
    int error = 0;
    FILE *f = log_state.path ? open_file(log_state.path, &error) : NULL;
    if (f) {
        fclose(log_state.file);
        log_state.file = f;
    }
    pthread_mutex_unlock(&log_state.lock);
    if (log_state.path && !f)
        gt_log_error("cannot reopen the log file %s, writing on to the old one: %s", log_state.path,
                     strerror(error));
    else if (log_state.path)
        gt_log_info("log reopened");
}

void gt_log_close(void)
{
    gt_log_open(NULL, log_state.level, NULL, 0);
}

void gt_log(gt_log_level level, const char *fmt, ...)
{
    if (level > log_state.level)
        return;
    char stamp[32];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    pthread_mutex_lock(&log_state.lock);
    FILE *out = log_state.file ? log_state.file : stderr;
    fprintf(out, "%s.%03ldZ gridtuned[%d] %s: ", stamp, ts.tv_nsec / 1000000, (int)getpid(), gt_log_level_name(level));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    pthread_mutex_unlock(&log_state.lock);
}

bool gt_log_limit_pass(gt_log_limit *l, unsigned *held)
{
    int64_t now = gt_clock_ms();
    if (!l->window_ms || now - l->window_ms >= LOG_LIMIT_MS) {
        l->window_ms = now;
        l->passed = 0;
    }
    if (l->passed >= (l->burst ? l->burst : 1)) {
        l->held++;
        return false;
    }
    l->passed++;
    *held = l->held;
    l->held = 0;
    return true;
}
