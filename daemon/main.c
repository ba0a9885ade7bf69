/* main.c: gridtuned: start-up, detaching, signals and an orderly shutdown.
 * Start-up order: configuration, detach (the first process waits on a pipe and exits only
 * once the socket listens, so whoever started us can connect at once), the socket (a second
 * daemon for the same socket stops here, with exit status 3), then the pool, counters,
 * wisdom, builder and the job threads. SIGTERM and SIGINT stop accepting, cancel queued
 * launches, let the running one finish, answer every waiting client, save the wisdom, exit.
 * A launch still running after --stop-grace cannot be stopped (it is native code on the
 * worker threads): its clients are answered, and the process exits without it. */
#include "config.h"
#include "daemon.h"
#include "buffer_store.h"
#include "huge_pages.h"
#include "http.h"
#include "log.h"
#include "server.h"
#include "session.h"
#include "usage.h"
#include "wisdom_lock.h"

#include "daemon/build/build.h"
#include "daemon/executor/executors.h"
#include "daemon/requests/launches.h"
#include "engine/spin.h"
#include "tuner/clock.h"
#include "tuner/durable_file.h"

#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_RUNNING 3
#define DRAIN_POLL_MS 20
#define FLUSH_GRACE_MS 2000
#define RESERVED_FDS 64 /* for the log, wisdom, modules, builds, the HTTP listener, memfds in transit */
#define STATE_DIR_MODE 0700 /* the state directory, as the wisdom makes it (tuner/wisdom_file.c) */

#ifndef GT_INCLUDE_DIRS
#define GT_INCLUDE_DIRS ""
#endif

typedef struct daemon_main {
    gt_daemon d;
    gt_daemon_config cfg;
    gt_server *server;
    gt_http *http;
    struct event *sig_term, *sig_int, *sig_hup, *drain;
    int ready_fd; /* the detached start-up's pipe to the waiting first process, or -1 */
    int wisdom_lock_fd; /* wisdom_lock.h; held until the process ends */
    int64_t stop_deadline;  /* when the running launch's grace period ends */
    int64_t flush_deadline;
    bool abandoned;         /* stopping without a launch that outlived its grace period */
} daemon_main;

/* ---- detaching -------------------------------------------------------------------------- */

/* The first process: wait for the daemon's word, print it, and exit with its status. */
static int wait_ready(int fd)
{
    char buf[1024];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (got == 0) {
        fprintf(stderr, "gridtuned: the daemon exited during start-up\n");
        return EXIT_FAILED;
    }
    if (buf[1])
        fprintf(stderr, "gridtuned: %s\n", buf + 1);
    return buf[0] - '0';
}

static int detach(daemon_main *m)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        perror("gridtuned: pipe");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("gridtuned: fork");
        return -1;
    }
    if (pid > 0) {
        close(p[1]);
        exit(wait_ready(p[0]));
    }
    close(p[0]);
    setsid();
    if (chdir("/") != 0)
        return -1;
    /* Off the terminal and the starter's pipes from here on: whatever gridtuned starts (its
       executors come before it is ready) must not keep them open either. Start-up errors go
       through the ready pipe, the rest to the log. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0)
        return -1;
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
    m->ready_fd = p[1];
    return 0;
}

/* Start-up failed: tell the waiting first process (or stderr in the foreground). */
static int startup_failed(daemon_main *m, int status, const char *message)
{
    if (m->ready_fd >= 0) {
        char buf[1024];
        int n = snprintf(buf, sizeof buf, "%d%s", status, message);
        if (write(m->ready_fd, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1)) < 0)
            gt_log_error("%s", message);
    } else {
        fprintf(stderr, "gridtuned: %s\n", message);
    }
    gt_log_error("start-up failed: %s", message);
    return status;
}

static void announce_ready(daemon_main *m)
{
    if (m->ready_fd < 0)
        return;
    if (write(m->ready_fd, "0", 1) != 1)
        gt_log_warn("cannot tell the starting process that gridtuned is ready");
    close(m->ready_fd);
    m->ready_fd = -1;
}

/* ---- start-up ------------------------------------------------------------------------- */

/* The state directory, the wisdom's, into dir: made if missing (if that fails, opening the log
 * or the wisdom's lock there says so). */
static void make_state_dir(const gt_daemon_config *cfg, char *dir, size_t len)
{
    char wisdom[GT_PATH_MAX];
    snprintf(wisdom, sizeof wisdom, "%s", cfg->wisdom);
    snprintf(dir, len, "%s", dirname(wisdom)); /* dirname may return its argument: not dir */
    gt_file_make_dirs(dir, STATE_DIR_MODE, NULL, 0);
}

static int open_log(const gt_daemon_config *cfg, const char *state_dir, char *err, size_t errlen)
{
    if (cfg->log_path || cfg->foreground)
        return gt_log_open(cfg->log_path, cfg->log_level, err, errlen);
    /* Detached: beside the wisdom, in the state directory. */
    char path[GT_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/gridtuned.log", state_dir);
    return gt_log_open(path, cfg->log_level, err, errlen);
}

static const char *include_dir(const gt_daemon_config *cfg)
{
    if (cfg->include_dir)
        return cfg->include_dir;
    /* The installed headers, else the source tree's (a daemon run from its build tree). */
    static char found[GT_PATH_MAX];
    char dirs[] = GT_INCLUDE_DIRS, *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char header[GT_PATH_MAX + 32];
        snprintf(header, sizeof header, "%s/gridtune/kernel.h", dir);
        if (access(header, R_OK) == 0) {
            snprintf(found, sizeof found, "%s", dir);
            return found;
        }
    }
    return NULL;
}

static void start_builder(gt_daemon *d)
{
    const gt_daemon_config *cfg = d->cfg;
    const char *inc = include_dir(cfg);
    if (!inc) {
        snprintf(d->build_note, sizeof d->build_note, "gridtune/kernel.h was not found; give --include-dir");
    } else {
        gt_build_config bc = {.cc = cfg->cc, .cache_dir = cfg->cache_dir, .include_dir = inc,
                              .timeout_ms = cfg->build_timeout_ms, .portable = !cfg->native_builds,
                              .max_cache_bytes = cfg->max_cache_bytes};
        if (gt_builder_create(&bc, &d->builder, d->build_note, sizeof d->build_note) == 0) {
            gt_log_info("kernel builds are %s", gt_builder_target(d->builder));
            if (gt_builder_confined(d->builder) || !cfg->system || !cfg->allow_build)
                gt_log_info("kernel builds: %s", gt_builder_confinement(d->builder));
            else
                gt_log_warn("kernel builds for --allow-build: %s", gt_builder_confinement(d->builder));
            return;
        }
    }
    gt_log_warn("kernel builds from source are off: %s", d->build_note);
}

/* Where clients make buffers, and so whether buffers get huge pages: the users' tmpfs stores
   (buffer_store.h), else memfds, which get them only where the kernel's shared-memory mode
   allows. gridtuned's own user's store is made now, so that the log and the status say at once
   which it is; said once, for what a kernel that walks large buffers across pages should expect. */
static int start_buffer_stores(gt_daemon *d)
{
    const char *off = d->cfg->in_process      ? "--isolation none: gridtuned maps buffers itself, so it takes only "
                                                "sealed memfds"
                      : d->cfg->memfd_buffers ? "--buffer-store memfd"
                                              : NULL;
    if (!(d->stores = gt_buffer_stores_new(!off, off)))
        return -ENOMEM;
    bool shmem = gt_huge_pages_mode(GT_SHMEM_HUGE_PAGES_PATH, d->huge_pages, sizeof d->huge_pages);
    if (gt_buffer_stores_get(d->stores, geteuid()) >= 0) {
        gt_log_info("shared buffers: made on a tmpfs of gridtuned's own per user, with huge pages (huge=%s; "
                    "memfds would follow shmem_enabled, which is %s)", GT_BUFFER_STORE_HUGE, d->huge_pages);
        snprintf(d->huge_pages, sizeof d->huge_pages, "%s", GT_BUFFER_STORE_HUGE);
    } else if (shmem) {
        gt_log_info("shared buffers: memfds, with huge pages where the kernel can find them (shmem_enabled is %s)",
                    d->huge_pages);
    } else {
        gt_log_warn("shared buffers: memfds without huge pages (%s is %s): kernels that walk large buffers down their "
                    "columns miss the TLB on every item, where private memory would not; --buffer-store tmpfs, or "
                    "advise written there, gives them",
                    GT_SHMEM_HUGE_PAGES_PATH, d->huge_pages);
    }
    return 0;
}

/* The probes are optional: without them, samples are just not checked for disturbance. The
   reason is logged once here and shown by status and every report. */
static void log_probes(const gt_daemon *d)
{
    if (d->probe_status.state == GT_PROBES_ON)
        gt_log_info("probes: on (%s)", d->probe_status.reason);
    else
        gt_log_warn("probes: %s (%s); samples are not checked for disturbance",
                    gt_probe_state_name(d->probe_status.state), d->probe_status.reason);
}

static void start_probes(gt_daemon *d)
{
    gt_probes_start(d->cfg->no_probes, &d->probes, &d->probe_status);
    log_probes(d);
}

static int start_pool(gt_daemon *d, char *err, size_t errlen)
{
    start_probes(d);
    int rc = gt_pool_create(&(gt_pool_config){.workers = d->workers, .no_pin = d->cfg->no_pin,
                                              .counters = d->counters, .probes = d->probes,
                                              .spin_us = d->cfg->executor_spin_us},
                            &d->pool, err, errlen);
    if (rc)
        return rc;
    if (gt_pool_probe_status(d->pool, &d->probe_status)) {
        gt_log_warn("probes: unavailable (%s); samples are not checked for disturbance", d->probe_status.reason);
    }
    return 0;
}

/* gridtune-exec beside this program (a build tree, or an install that keeps them together),
 * else where it is installed. */
static int find_executor(gt_daemon *d, char *err, size_t errlen)
{
    const char *path = d->cfg->executor;
    char self[PATH_MAX];
    ssize_t n = path ? -1 : readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash && (size_t)snprintf(d->executor_path, sizeof d->executor_path, "%.*s/gridtune-exec",
                                      (int)(slash - self), self) < sizeof d->executor_path &&
            access(d->executor_path, X_OK) == 0)
            return 0;
    }
    /* An installed tree moved elsewhere as a whole: bin/gridtuned and libexec/gridtune/. */
    if (n > 0 && (size_t)snprintf(d->executor_path, sizeof d->executor_path, "%s/../libexec/gridtune/gridtune-exec",
                                  dirname(self)) < sizeof d->executor_path &&
        access(d->executor_path, X_OK) == 0)
        return 0;
    snprintf(d->executor_path, sizeof d->executor_path, "%s", path ? path : GT_EXECUTOR_PATH);
    if (access(d->executor_path, X_OK) != 0) {
        snprintf(err, errlen, "the executor program %.*s cannot be run (%s); give its path with --executor, or run "
                 "kernels inside gridtuned with --isolation none", 512, d->executor_path, strerror(errno));
        return -ENOENT;
    }
    return 0;
}

static int start_executors(gt_daemon *d, char *err, size_t errlen)
{
    int rc = find_executor(d, err, errlen);
    if (rc)
        return rc;
    const gt_daemon_config *cfg = d->cfg;
    gt_executors_config ec = {
        .proc = {.path = d->executor_path, .workers = d->workers, .no_pin = cfg->no_pin, .no_probes = cfg->no_probes,
                 .no_populate = cfg->no_populate, .events = cfg->events, .nevents = cfg->nevents,
                 .spin_us = cfg->executor_spin_us},
        /* The users' threads do not poll for their next launch: the executor polls for its next
           request, and on 2 vCPUs two pollers take each other's CPU (round trip median 63 us
           with both, 48 us with the executor's alone: bench/results/isolation-2026-11-25.txt) */
        .base = d->base, .launcher_spin_us = 0, .slice_ms = cfg->time_slice_ms};
    if (!(d->executors = gt_executors_new(&ec))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* The daemon's own user's executor starts now: in user mode it is every client's, so no
       launch waits for it, and what it says of its probes stands for every executor's. */
    gt_exec_proc *p = gt_executors_for(d->executors, getuid());
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if ((rc = gt_exec_proc_start(p, err, errlen)) != 0)
        return rc;
    d->probe_status = gt_exec_proc_hello(p)->probes;
    d->own_executor = p;
    gt_log_info("kernels run in executor processes (%s), one per user, taking turns on the CPUs every %u ms",
                d->executor_path, cfg->time_slice_ms);
    log_probes(d);
    return 0;
}

/* Every client is a descriptor: take the hard limit, as systemd's default soft limit of
 * 1024 is low for a server, and keep --max-clients under what is left. */
static void fit_descriptor_limit(daemon_main *m)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t soft = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            gt_log_warn("cannot raise the descriptor limit from %llu to %llu: %s", (unsigned long long)soft,
                        (unsigned long long)rl.rlim_max, strerror(errno));
            rl.rlim_cur = soft;
        }
    }
    gt_limits *lim = &m->cfg.limits;
    uint64_t fds = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > UINT_MAX ? UINT_MAX : rl.rlim_cur;
    /* what is left after the reserve: half for the clients' sockets, half for descriptors
       in transit (buffers' memfds arrive ahead of their frames) */
    uint64_t left = fds > 2 * RESERVED_FDS ? fds - RESERVED_FDS : RESERVED_FDS;
    /* HTTP connections come out of the same descriptors: at most a quarter of them */
    if (m->cfg.http) {
        if (m->cfg.http_max_connections > left / 4) {
            unsigned fit = (unsigned)(left / 4);
            gt_log_warn("the descriptor limit is %llu: at most %u HTTP connections, not %u (--http-max-connections)",
                        (unsigned long long)fds, fit, m->cfg.http_max_connections);
            m->cfg.http_max_connections = fit;
        }
        left -= m->cfg.http_max_connections;
    }
    if (lim->max_clients > left / 2) {
        unsigned fit = (unsigned)(left / 2);
        gt_log_warn("the descriptor limit is %llu: serving at most %u clients, not %u (--max-clients)",
                    (unsigned long long)fds, fit, lim->max_clients);
        lim->max_clients = fit;
        if (lim->max_user_clients > fit)
            lim->max_user_clients = fit;
    }
    left -= lim->max_clients;
    /* with executor processes gridtuned keeps each buffer's memfd, to give it to an executor
       started again: buffers share the rest with descriptors in transit */
    if (!m->cfg.in_process && lim->max_total_buffers > left / 2) {
        unsigned fit = (unsigned)(left / 2);
        gt_log_warn("the descriptor limit is %llu: holding at most %u buffers, not %u (--max-total-buffers)",
                    (unsigned long long)fds, fit, lim->max_total_buffers);
        lim->max_total_buffers = fit;
        if (lim->max_user_buffers > fit)
            lim->max_user_buffers = fit;
    }
    lim->max_queued_fds = (unsigned)(left - (m->cfg.in_process ? 0 : lim->max_total_buffers));
}

static int start_engine(daemon_main *m, char *err, size_t errlen)
{
    gt_daemon *d = &m->d;
    const gt_daemon_config *cfg = &m->cfg;
    unsigned workers = cfg->workers;
    if (!workers) {
        cpu_set_t set;
        workers = sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
    }
    if (!(d->usage = gt_usage_new(&cfg->limits))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    d->workers = workers;
    int rc = gt_counters_create(cfg->nevents ? (const char *const *)cfg->events : NULL, cfg->nevents, workers,
                                &d->counters, err, errlen);
    if (rc)
        return rc;
    if (start_buffer_stores(d)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    rc = cfg->in_process ? start_pool(d, err, errlen) : start_executors(d, err, errlen);
    if (rc)
        return rc;
    pthread_mutex_init(&d->wisdom_lock, NULL);
    rc = gt_wisdom_open(cfg->wisdom, &d->wisdom, err, errlen);
    if (rc)
        return rc;
    if (*gt_wisdom_warning(d->wisdom))
        gt_log_warn("%s", gt_wisdom_warning(d->wisdom));
    if (gt_wisdom_stale_removed(d->wisdom))
        gt_log_info("removed %u temporary wisdom files left by writers that died before saving",
                    gt_wisdom_stale_removed(d->wisdom));
    size_t loaded = gt_wisdom_count(d->wisdom);
    if (gt_wisdom_limit(d->wisdom, cfg->max_wisdom_entries) != 0)
        gt_log_warn("out of memory trimming the wisdom to --max-wisdom-entries %zu: the limit holds from the next "
                    "decision", cfg->max_wisdom_entries);
    else if (gt_wisdom_evicted(d->wisdom))
        gt_log_info("the wisdom file holds %zu entries, more than --max-wisdom-entries %zu: the %zu used last are "
                    "kept", loaded, cfg->max_wisdom_entries, gt_wisdom_count(d->wisdom));
    rc = gt_wisdom_saver_start(d->wisdom, &d->wisdom_lock, &d->wisdom_saver, err, errlen);
    if (rc)
        return rc;
    gt_machine_signature(d->machine, NULL, 0);
    start_builder(d);
    if (!(d->reports = gt_report_ring_new(cfg->keep_reports)) || gt_jobq_create(d->base, "gt-launcher", cfg->launcher_spin_us, &d->launcher) ||
        gt_jobq_create(d->base, "gt-kernels", 0, &d->kernels)) {
        snprintf(err, errlen, "out of memory starting the job threads");
        return -ENOMEM;
    }
    if (cfg->trace && !(d->trace = fopen(cfg->trace, "ae"))) {
        snprintf(err, errlen, "cannot open the trace file %s: %s", cfg->trace, strerror(errno));
        return -errno;
    }
    return cfg->http ? gt_http_start(d, &m->http, err, errlen) : 0;
}

/* ---- shutdown ------------------------------------------------------------------------- */

static bool output_pending(const gt_daemon *d)
{
    for (gt_session *s = d->sessions; s; s = s->next) {
        pthread_mutex_lock(&s->out_lock); /* the launcher thread may be answering (send_now) */
        size_t queued = evbuffer_get_length(s->out);
        pthread_mutex_unlock(&s->out_lock);
        if (queued > 0)
            return true;
    }
    return false;
}

/* Polled while stopping: once no job is left, the answers have gone out (or the grace
 * period is over), the loop ends. */
/* The grace period is over and a job still runs: answer whoever waits for a launch, and
 * stop without joining the job threads. */
static void abandon_jobs(daemon_main *m)
{
    char message[256];
    snprintf(message, sizeof message, "gridtuned stopped before this launch completed: it waited --stop-grace "
             "(%u s) for the running launch, which did not finish", m->cfg.stop_grace_s);
    gt_log_warn("the running job did not finish within --stop-grace (%u s): stopping without it", m->cfg.stop_grace_s);
    for (gt_session *s = m->d.sessions; s; s = s->next)
        gt_launch_abandon_waiters(s, message);
    m->abandoned = true;
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    daemon_main *m = arg;
    gt_daemon *d = &m->d;
    if (!m->abandoned && (gt_jobq_pending(d->launcher) > 0 || gt_jobq_pending(d->kernels) > 0 ||
                          (d->executors && gt_executors_pending(d->executors) > 0))) {
        if (gt_clock_unix_ms() < m->stop_deadline)
            return;
        abandon_jobs(m);
    }
    if (!m->flush_deadline)
        m->flush_deadline = gt_clock_unix_ms() + FLUSH_GRACE_MS;
    if (output_pending(d) && gt_clock_unix_ms() < m->flush_deadline)
        return;
    event_base_loopexit(d->base, NULL);
}

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    daemon_main *m = arg;
    if (atomic_exchange(&m->d.stopping, true))
        return;
    gt_log_info("%s: stopping: no new clients; queued launches are cancelled, the running one may finish within "
                "%u s (--stop-grace)", strsignal((int)sig), m->cfg.stop_grace_s);
    m->stop_deadline = gt_clock_unix_ms() + (int64_t)m->cfg.stop_grace_s * 1000;
    gt_server_stop_accepting(m->server);
    struct timeval tick = {0, DRAIN_POLL_MS * 1000};
    event_add(m->drain, &tick);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
    (void)sig, (void)what, (void)arg;
    gt_log_reopen();
}

/* A job thread is still inside a kernel or a load, on buffers and a pool it uses: nothing of
 * that may be freed or unmapped under it. The wisdom's changes are saved unless that launch
 * holds it; the socket is gone since on_stop. */
static void exit_abandoning(daemon_main *m)
{
    gt_wisdom_saver_save_abandoning(m->d.wisdom_saver);
    for (gt_session *s = m->d.sessions; s; s = s->next)
        if (s->fd >= 0)
            shutdown(s->fd, SHUT_RDWR);
    gt_log_info("stopped");
    gt_log_close();
    _exit(0);
}

static void shut_down(daemon_main *m)
{
    gt_daemon *d = &m->d;
    if (m->abandoned)
        exit_abandoning(m);
    while (d->sessions)
        gt_session_close(d->sessions, "gridtuned stopped");
    gt_jobq_destroy(d->launcher);
    gt_executors_stop(d->executors); /* the users' queues; their processes end below */
    gt_jobq_destroy(d->kernels);
    gt_wisdom_saver_stop(d->wisdom_saver); /* saves what changed last */
    gt_http_free(m->http);
    gt_server_free(m->server);
    struct event *evs[] = {m->sig_term, m->sig_int, m->sig_hup, m->drain};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i])
            event_free(evs[i]);
    gt_report_ring_free(d->reports);
    gt_executors_free(d->executors); /* after the reports, which borrow their counters' status */
    gt_usage_free(d->usage);
    gt_buffer_stores_free(d->stores);
    gt_builder_destroy(d->builder);
    gt_wisdom_close(d->wisdom);
    if (m->wisdom_lock_fd >= 0)
        close(m->wisdom_lock_fd); /* after the last save */
    if (d->pool)
        gt_pool_destroy(d->pool);
    if (d->counters)
        gt_counters_destroy(d->counters);
    gt_probes_close(d->probes);
    if (d->trace)
        fclose(d->trace);
    if (d->base)
        event_base_free(d->base);
    gt_daemon_config_free(&m->cfg);
    gt_log_close();
}

/* One turn of the event loop; false once it must stop (told to, or nothing left to watch). */
static bool loop_turn(struct event_base *base, int flags)
{
    int rc = event_base_loop(base, flags);
    return rc == 0 && !event_base_got_exit(base) && !event_base_got_break(base);
}

typedef struct loop_poll {
    gt_daemon *d;
    uint64_t reads; /* d->reads when the poll began */
    bool stop;
} loop_poll;

/* A poll of the loop: true when a client's socket was readable since the poll began, a launch
 * is running (its client waits for its answer, and its workers want the CPUs), or the loop
 * must stop. */
static bool loop_polled(void *ctx)
{
    loop_poll *p = ctx;
    p->stop = !loop_turn(p->d->base, EVLOOP_NONBLOCK);
    return p->stop || p->d->reads != p->reads || atomic_load(&p->d->launches_running) > 0;
}

/* The event loop until it is told to stop. After a client's request it polls for the next one
 * for --loop-spin microseconds before it sleeps again: on this VM a wake-up sent to a vCPU that
 * runs another thread (an executor polling for its next request) waits 40-60 us, and a client
 * that launches in a loop sends its next request within tens of microseconds
 * (bench/results/loop-spin-2026-11-29/). */
static void serve(gt_daemon *d)
{
    const uint64_t spin_ns = (uint64_t)d->cfg->loop_spin_us * 1000;
    for (;;) {
        loop_poll p = {.d = d, .reads = d->reads};
        if (!loop_turn(d->base, EVLOOP_ONCE))
            return;
        while (spin_ns && d->reads != p.reads && atomic_load(&d->launches_running) == 0) {
            p.reads = d->reads;
            (void)gt_spin_until(spin_ns, loop_polled, &p);
            if (p.stop)
                return;
        }
    }
}

static int run(daemon_main *m)
{
    gt_daemon *d = &m->d;
    char err[1024], state_dir[GT_PATH_MAX];
    make_state_dir(&m->cfg, state_dir, sizeof state_dir);
    int rc = open_log(&m->cfg, state_dir, err, sizeof err);
    if (rc)
        return startup_failed(m, EXIT_FAILED, err);
    signal(SIGPIPE, SIG_IGN);
    fit_descriptor_limit(m);
    d->started_ms = gt_clock_unix_ms();
    d->session_log.burst = GT_SESSION_LOG_BURST;
    if (!(d->base = event_base_new()))
        return startup_failed(m, EXIT_FAILED, "cannot create the event loop");
    rc = gt_server_start(d, &m->server, err, sizeof err);
    if (rc)
        return startup_failed(m, rc == -EADDRINUSE ? EXIT_RUNNING : EXIT_FAILED, err);
    /* after the socket's lock, so that two daemons started on one socket at once still tell
       the loser that the other serves it */
    rc = gt_wisdom_lock_take(m->cfg.wisdom, m->cfg.socket, &m->wisdom_lock_fd, err, sizeof err);
    if (rc)
        return startup_failed(m, EXIT_FAILED, err);
    if (start_engine(m, err, sizeof err) != 0)
        return startup_failed(m, EXIT_FAILED, err);
    m->sig_term = evsignal_new(d->base, SIGTERM, on_stop, m);
    m->sig_int = evsignal_new(d->base, SIGINT, on_stop, m);
    m->sig_hup = evsignal_new(d->base, SIGHUP, on_hup, m);
    m->drain = event_new(d->base, -1, EV_PERSIST, on_drain, m);
    if (!m->sig_term || !m->sig_int || !m->sig_hup || !m->drain || event_add(m->sig_term, NULL) ||
        event_add(m->sig_int, NULL) || event_add(m->sig_hup, NULL))
        return startup_failed(m, EXIT_FAILED, "cannot watch signals");
    const gt_counter_status *cs = gt_counters_status(d->counters);
    gt_log_info("listening on %s (%s mode), %u workers, counters: %s%s%s%s", m->cfg.socket,
                m->cfg.system ? "system" : "user", d->workers, gt_counter_mode_name(cs->mode),
                d->http[0] ? ", HTTP on " : "", d->http, d->builder ? "" : ", kernel builds off");
    announce_ready(m);
    serve(d);
    if (!m->abandoned)
        gt_log_info("stopped");
    return 0;
}

/* Descriptors 0, 1 and 2 open (on /dev/null where they were closed), so that no file gridtuned
 * opens takes their place, to be written over by the standard streams or passed on as one. */
static bool hold_standard_descriptors(void)
{
    for (;;) {
        int fd = open("/dev/null", O_RDWR);
        if (fd < 0)
            return false;
        if (fd > STDERR_FILENO) {
            close(fd);
            return true;
        }
    }
}

int main(int argc, char **argv)
{
    static daemon_main m;
    if (!hold_standard_descriptors())
        return EXIT_FAILED;
    m.ready_fd = -1;
    m.wisdom_lock_fd = -1;
    m.d.cfg = &m.cfg;
    int rc = gt_daemon_config_parse(argc, argv, &m.cfg);
    if (rc)
        return rc == 1 ? 0 : EXIT_USAGE;
    if (evthread_use_pthreads() != 0) {
        fprintf(stderr, "gridtuned: libevent has no pthreads support\n");
        return EXIT_FAILED;
    }
    umask(077);
    if (!m.cfg.foreground && detach(&m) != 0)
        return EXIT_FAILED;
    rc = run(&m);
    shut_down(&m);
    return rc;
}
