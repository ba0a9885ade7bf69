/* config.h: gridtuned's configuration: every default, command-line flag and environment
 * variable in one place. --help is printed from the same table the parser reads. */
#ifndef GT_DAEMON_CONFIG_H
#define GT_DAEMON_CONFIG_H

#include "log.h"
#include "engine/pool.h"
#include "tuner/tune.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/un.h>

#define GT_MAX_MODULE_DIRS 16
#define GT_PATH_MAX 4096
#define GT_DEFAULT_GROUP "gridtune"
#define GT_DEFAULT_KEEP_REPORTS 256
/* Decisions the wisdom keeps; the most is what a 64 MiB file (tuner/wisdom_file.c) holds with
   room to spare, at 2.8 KB per entry with every field at its longest. */
#define GT_DEFAULT_MAX_WISDOM_ENTRIES 4096
#define GT_MAX_WISDOM_ENTRIES 16384
#define GT_DEFAULT_HTTP_MAX_CONNECTIONS 32
#define GT_DEFAULT_HTTP_TIMEOUT 10
#define GT_DEFAULT_MAX_OUTPUT (64u << 20) /* bytes queued to one client before it is dropped */
#define GT_DEFAULT_MAX_TOTAL_OUTPUT (256u << 20) /* bytes queued to all clients (session.c) */
#define GT_HTTP_UNIX "unix:" /* --http unix:PATH: HTTP on a Unix socket, peers checked */
#define GT_DEFAULT_MAX_CLIENTS 1024           /* connections in all */
#define GT_DEFAULT_MAX_USER_CLIENTS 256       /* connections of one uid */
#define GT_DEFAULT_FRAME_TIMEOUT 30           /* seconds from a frame's first byte to its last */
#define GT_DEFAULT_MAX_PARTIAL (64u << 20)    /* bytes of partly received frames, all clients */
#define GT_DEFAULT_STOP_GRACE 10              /* seconds SIGTERM waits for the running launch */
#define GT_DEFAULT_INLINE_GROUPS 1            /* workgroups a launch may have to run without the workers */
#define GT_DEFAULT_LAUNCHER_SPIN 50           /* microseconds the launcher polls for the next launch */
#define GT_DEFAULT_EXECUTOR_SPIN GT_POOL_DEFAULT_SPIN_US /* microseconds an executor polls for the next request */
#define GT_DEFAULT_LOOP_SPIN 200              /* microseconds the event loop polls for a client's next request */
#define GT_DEFAULT_TIME_SLICE 100             /* milliseconds a user's executor runs while another user waits */

typedef struct gt_limits {
    size_t max_frame;
    unsigned max_buffers;
    uint64_t max_buffer_bytes;
    unsigned max_kernels;
    unsigned max_inflight;
    unsigned max_events;
    unsigned max_waiting;
    size_t max_output;
    size_t max_total_output;
    /* daemon-wide, and per user (uid); 0 in the user limits until resolved */
    unsigned max_clients, max_user_clients;
    unsigned frame_timeout_s;
    size_t max_partial_bytes;
    uint64_t max_total_buffer_bytes, max_user_buffer_bytes;
    unsigned max_total_buffers, max_user_buffers; /* each buffer is one mapping in gridtuned */
    unsigned max_queued_fds; /* descriptors received ahead of their frames, all clients; set at start */
} gt_limits;

typedef struct gt_daemon_config {
    char socket[sizeof ((struct sockaddr_un *)0)->sun_path];
    bool socket_given;   /* --socket: no default directory is made private */
    bool system;         /* --system: the shared, group-restricted socket */
    const char *group;
    bool foreground;
    const char *log_path; /* NULL: stderr in the foreground, else the default log file */
    gt_log_level log_level;
    char wisdom[GT_PATH_MAX];
    char cache_dir[GT_PATH_MAX];
    const char *module_dirs[GT_MAX_MODULE_DIRS];
    unsigned nmodule_dirs;
    bool allow_build;    /* kernel_build in system mode */
    const char *http;    /* GT_HTTP_UNIX "PATH", ADDR:PORT or NULL */
    bool http_public;    /* --http-public: ADDR:PORT serves every report to anyone */
    unsigned http_max_connections; /* HTTP connections open at once; past it, new ones wait */
    unsigned http_timeout_s; /* an HTTP connection idle this long, or this long without a whole request, is closed */
    const char *trace;   /* JSON lines of every frame, or NULL */
    const char *cc;
    const char *include_dir;
    unsigned build_timeout_ms;
    uint64_t max_cache_bytes; /* built modules kept in the cache; past them, those used longest ago go */
    bool native_builds; /* build kernels for this CPU (-march=native), not the compiler's default target */
    unsigned workers;    /* 0: every CPU this process may use */
    bool no_pin;
    unsigned inline_groups; /* launches of at most this many workgroups skip the workers */
    unsigned launcher_spin_us; /* the launcher polls this long for the next launch before sleeping */
    bool no_probes;
    bool in_process;     /* --isolation none: kernels run in gridtuned itself, not in executor processes */
    const char *executor; /* the gridtune-exec program; NULL: found beside gridtuned, else installed */
    unsigned launch_timeout_s; /* a launch running this long is stopped (its executor ended); 0: never */
    unsigned time_slice_ms;    /* the CPU grant's slice between users' executors; 0: none */
    unsigned executor_spin_us; /* an executor polls this long for its next request before sleeping */
    unsigned loop_spin_us;     /* after a client's request the event loop polls this long for the next */
    bool memfd_buffers;  /* --buffer-store memfd: no tmpfs stores (buffer_store.h) */
    bool no_populate;    /* leave new buffers' pages to be faulted in by their first launch */
    char *events[GT_COUNTERS_MAX];
    unsigned nevents;    /* 0: the default event list */
    unsigned keep_reports;
    size_t max_wisdom_entries; /* past them, a new decision evicts the least recently used */
    unsigned stop_grace_s; /* SIGTERM: how long the running launch may go on */
    gt_limits limits;
    gt_tune_config tune; /* the defaults a launch's options override */
    /* log_path, trace, include_dir and a cc given as a relative path, made absolute: a
       detached daemon works in "/" */
    char log_abs[GT_PATH_MAX], trace_abs[GT_PATH_MAX], include_abs[GT_PATH_MAX], cc_abs[GT_PATH_MAX];
} gt_daemon_config;

/* Parses argv and the environment into cfg, resolving default paths and making relative ones
 * absolute against the working directory. Returns 0 to run, 1
 * when --help or --version was printed (exit 0), 2 for a bad command line (a sentence went
 * to stderr). cfg owns the strings in events; free them with gt_daemon_config_free. */
int gt_daemon_config_parse(int argc, char **argv, gt_daemon_config *cfg);
void gt_daemon_config_free(gt_daemon_config *cfg);

#endif
