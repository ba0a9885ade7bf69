/* daemon.h: the state gridtuned shares among its parts: the configuration, the event loop,
 * the worker pool and its counters, the wisdom, the kernel builder, the two job queues, the
 * recent reports and the figures /status and /metrics show. Everything here belongs to the
 * event loop's thread, except the pool, counters and wisdom, which only the launcher thread
 * uses once the loop runs, and `stopping`, which the job threads read. */
#ifndef GT_DAEMON_H
#define GT_DAEMON_H

#include "config.h"
#include "jobq.h"
#include "report_ring.h"
#include "wisdom_saver.h"

#include "engine/counters.h"
#include "engine/pool.h"
#include "tuner/machine.h"
#include "tuner/wisdom.h"

#include <event2/event.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

typedef struct gt_session gt_session;
typedef struct gt_builder gt_builder; /* build/build.h */
typedef struct gt_usage gt_usage;     /* usage.h */
typedef struct gt_buffer_stores gt_buffer_stores; /* buffer_store.h */
typedef struct gt_executors gt_executors; /* executor/executors.h */
typedef struct gt_http_conns gt_http_conns; /* http_conns.h */
typedef struct gt_exec_proc gt_exec_proc; /* executor/exec_proc.h */

typedef struct gt_daemon_counts {
    uint64_t launches, succeeded, failed, cancelled;
    uint64_t direct; /* small launches the loop sent straight to their executor */
    uint64_t workgroups, workgroups_analysis;
    uint64_t disturbed_samples; /* analysis samples the probes marked disturbed */
    uint64_t wisdom_hits;
    uint64_t errors; /* error replies sent */
    unsigned clients;
    unsigned populating; /* buffers whose populate job has not come back (loop thread only) */
    unsigned unmapping;  /* released buffers whose unmap job has not come back (loop thread only) */
    uint64_t clients_refused; /* connections over --max-clients or --max-user-clients */
} gt_daemon_counts;

typedef struct gt_daemon {
    const gt_daemon_config *cfg;
    struct event_base *base;
    gt_counters *counters;
    gt_probes *probes; /* NULL: off or unavailable, for the reason in probe_status */
    gt_probe_status probe_status;
    char huge_pages[24]; /* what buffers get: the stores' huge-page mode, else shmem_enabled's */
    gt_buffer_stores *stores; /* each user's tmpfs for buffers (buffer_store.h) */
    gt_pool *pool;           /* --isolation none only: kernels run in gridtuned */
    gt_executors *executors; /* else: the executor processes, one per user */
    gt_exec_proc *own_executor; /* the one of gridtuned's own user, started first; the status shows its workers */
    unsigned workers;        /* the pool's, or each executor's */
    char executor_path[PATH_MAX];
    gt_wisdom *wisdom;
    gt_wisdom_saver *wisdom_saver; /* writes its file, and keeps its figures for the status */
    gt_builder *builder; /* NULL when builds are off; build_note says why */
    char build_note[256];
    char machine[GT_HASH_TEXT_MAX];
    gt_jobq *launcher, *kernels;
    struct gt_kernel_turn *kernel_turns; /* users with a job on the kernel thread (requests/kernels.c) */
    _Atomic unsigned launches_running; /* on a launcher thread now, paused ones too: for the status */
    /* The wisdom, which each user's launcher thread reads and stores into (executors.h), the
       launcher thread's wisdom jobs change, and the saver copies. In-process, the launcher
       holds it through a whole launch. */
    pthread_mutex_t wisdom_lock;
    gt_report_ring *reports;
    gt_daemon_counts stats;
    uint64_t reads; /* client sockets the loop found readable (loop thread only): --loop-spin watches it */
    FILE *trace;
    int64_t started_ms;
    uint64_t next_launch;  /* the launches' report ids */
    uint64_t next_session; /* connection serial numbers */
    atomic_bool stopping;
    gt_session *sessions; /* every open session, a doubly linked list */
    gt_usage *usage;      /* connections and buffers per user and in all, against the limits */
    size_t partial_bytes; /* bytes of partly received frames, all sessions */
    _Atomic size_t output_bytes; /* bytes of answers queued, all sessions (written by job threads too) */
    unsigned queued_fds;  /* descriptors received ahead of their frames, all sessions */
    unsigned refused_lingering; /* refused connections waiting for their hello (session.h) */
    gt_log_limit refusal_log; /* refused connections and HTTP requests: a line a second at most */
    gt_log_limit session_log; /* connections' lines: GT_SESSION_LOG_BURST a second at most */
    char http[sizeof GT_HTTP_UNIX + sizeof ((struct sockaddr_un *)0)->sun_path]; /* where HTTP is served, or "" */
    const gt_http_conns *http_conns; /* its connections (http_conns.h); NULL without HTTP */
} gt_daemon;

#endif
