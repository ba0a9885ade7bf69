/* config.c: gridtuned's flags, environment and defaults (config.h). Each flag is one row of
 * `flags`: its getopt entry, its --help text and the function that applies it. */
#include "config.h"

#include "engine/guarded_map.h"
#include "protocol/protocol.h"
#include "protocol/socket_path.h"
#include "tuner/wisdom.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "gridtuned"
#define SYSTEM_STATE_DIR "/var/lib/gridtune"
#define SYSTEM_CACHE_DIR "/var/cache/gridtune"

typedef int apply_fn(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen);

typedef struct flag {
    const char *name;
    const char *arg; /* NULL: no argument */
    apply_fn *apply;
    const char *help;
} flag;

static int parse_unsigned(const char *text, unsigned long long max, unsigned long long *out, bool suffixes)
{
    char *end;
    errno = 0;
    if (!text[0] || text[0] == '-')
        return -EINVAL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -EINVAL;
    unsigned shift = 0;
    if (suffixes && *end) {
        const char *units = "KMGT";
        const char *u = strchr(units, *end);
        if (!u || end[1])
            return -EINVAL;
        shift = 10 * (unsigned)(u - units + 1);
        end++;
    }
    if (*end || (shift && v > (max >> shift)) || (v << shift) > max)
        return -EINVAL;
    *out = v << shift;
    return 0;
}

#define NUMBER_FLAG(fn, field, lo, max, suffixes, what)                                            \
    static int fn(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)               \
    {                                                                                             \
        unsigned long long v;                                                                     \
        if (parse_unsigned(arg, max, &v, suffixes) || v + 1 < (lo) + 1ull) { /* lo may be 0 */     \
            snprintf(err, errlen, "%s \"%s\": expected %s from %llu to %llu", what, arg,          \
                     (suffixes) ? "a byte count (suffix K, M, G or T allowed)" : "an integer",    \
                     (unsigned long long)(lo), (unsigned long long)(max));                       \
            return -EINVAL;                                                                       \
        }                                                                                         \
        cfg->field = v;                                                                           \
        return 0;                                                                                 \
    }

NUMBER_FLAG(set_workers, workers, 1, 256, false, "--workers")
NUMBER_FLAG(set_inline_groups, inline_groups, 0, 1u << 16, false, "--inline-groups")
NUMBER_FLAG(set_launcher_spin, launcher_spin_us, 0, 100000, false, "--launcher-spin")
NUMBER_FLAG(set_executor_spin, executor_spin_us, 0, 100000, false, "--executor-spin")
NUMBER_FLAG(set_loop_spin, loop_spin_us, 0, 100000, false, "--loop-spin")
NUMBER_FLAG(set_max_frame, limits.max_frame, 1024, 1u << 30, true, "--max-frame")
NUMBER_FLAG(set_max_buffers, limits.max_buffers, 1, 1u << 20, false, "--max-buffers")
NUMBER_FLAG(set_max_buffer_bytes, limits.max_buffer_bytes, 1, 1ull << 50, true, "--max-buffer-bytes")
NUMBER_FLAG(set_max_kernels, limits.max_kernels, 1, 1u << 16, false, "--max-kernels")
NUMBER_FLAG(set_max_inflight, limits.max_inflight, 1, 1u << 16, false, "--max-inflight")
NUMBER_FLAG(set_max_events, limits.max_events, 1, 1u << 20, false, "--max-events")
NUMBER_FLAG(set_max_waiting, limits.max_waiting, 1, 1u << 20, false, "--max-waiting")
NUMBER_FLAG(set_max_output, limits.max_output, 1u << 16, 1ull << 40, true, "--max-output")
NUMBER_FLAG(set_max_total_output, limits.max_total_output, 1u << 16, 1ull << 42, true, "--max-total-output")
NUMBER_FLAG(set_max_clients, limits.max_clients, 1, 1u << 20, false, "--max-clients")
NUMBER_FLAG(set_max_user_clients, limits.max_user_clients, 1, 1u << 20, false, "--max-user-clients")
NUMBER_FLAG(set_frame_timeout, limits.frame_timeout_s, 1, 3600, false, "--frame-timeout")
NUMBER_FLAG(set_max_partial_bytes, limits.max_partial_bytes, 1u << 16, 1ull << 40, true, "--max-partial-bytes")
NUMBER_FLAG(set_max_total_buffer_bytes, limits.max_total_buffer_bytes, 1, 1ull << 50, true, "--max-total-buffer-bytes")
NUMBER_FLAG(set_max_user_buffer_bytes, limits.max_user_buffer_bytes, 1, 1ull << 50, true, "--max-user-buffer-bytes")
NUMBER_FLAG(set_max_total_buffers, limits.max_total_buffers, 1, 1u << 24, false, "--max-total-buffers")
NUMBER_FLAG(set_max_user_buffers, limits.max_user_buffers, 1, 1u << 24, false, "--max-user-buffers")
NUMBER_FLAG(set_launch_timeout, launch_timeout_s, 0, 1u << 20, false, "--launch-timeout")
NUMBER_FLAG(set_time_slice, time_slice_ms, 0, 60000, false, "--time-slice")
NUMBER_FLAG(set_stop_grace, stop_grace_s, 1, 3600, false, "--stop-grace")
NUMBER_FLAG(set_http_max_connections, http_max_connections, 1, 65536, false, "--http-max-connections")
NUMBER_FLAG(set_http_timeout, http_timeout_s, 1, 3600, false, "--http-timeout")
NUMBER_FLAG(set_keep_reports, keep_reports, 1, 100000, false, "--keep-reports")
NUMBER_FLAG(set_max_wisdom_entries, max_wisdom_entries, 1, GT_MAX_WISDOM_ENTRIES, false, "--max-wisdom-entries")
NUMBER_FLAG(set_build_timeout, build_timeout_ms, 1, 3600, false, "--build-timeout")
NUMBER_FLAG(set_max_cache_bytes, max_cache_bytes, 1, 1ull << 50, true, "--max-cache-bytes")
NUMBER_FLAG(set_refine_limit, tune.refine_limit, 1, 1000, false, "--refine-limit")

static int set_copy(char *dst, size_t len, const char *what, const char *arg, char *err, size_t errlen)
{
    if (!arg[0] || strlen(arg) >= len) {
        snprintf(err, errlen, "%s: expected a path of 1 to %zu bytes", what, len - 1);
        return -EINVAL;
    }
    strcpy(dst, arg);
    return 0;
}

static int set_socket(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    cfg->socket_given = true;
    return set_copy(cfg->socket, sizeof cfg->socket, "--socket (a Unix socket path)", arg, err, errlen);
}

static int set_wisdom(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    return set_copy(cfg->wisdom, sizeof cfg->wisdom, "--wisdom", arg, err, errlen);
}

static int set_cache_dir(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    return set_copy(cfg->cache_dir, sizeof cfg->cache_dir, "--cache-dir", arg, err, errlen);
}

static int set_system(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->system = true;
    return 0;
}

static int set_foreground(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->foreground = true;
    return 0;
}

static int set_no_pin(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->no_pin = true;
    return 0;
}

static int set_no_probes(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->no_probes = true;
    return 0;
}

static int set_no_populate(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->no_populate = true;
    return 0;
}

static int set_allow_build(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->allow_build = true;
    return 0;
}

static int set_group(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cfg->group = arg;
    return 0;
}

static int set_log(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cfg->log_path = arg;
    return 0;
}

static int set_log_level(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (gt_log_level_parse(arg, &cfg->log_level) == 0)
        return 0;
    snprintf(err, errlen, "--log-level \"%s\": expected error, warn, info or debug", arg);
    return -EINVAL;
}

static int set_module_dir(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (arg[0] != '/' || cfg->nmodule_dirs == GT_MAX_MODULE_DIRS) {
        snprintf(err, errlen, "--module-dir \"%s\": expected an absolute directory, at most %d of them", arg,
                 GT_MAX_MODULE_DIRS);
        return -EINVAL;
    }
    cfg->module_dirs[cfg->nmodule_dirs++] = arg;
    return 0;
}

static int set_http(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    const char *colon = strrchr(arg, ':');
    unsigned long long port;
    if (strncmp(arg, GT_HTTP_UNIX, strlen(GT_HTTP_UNIX)) == 0) {
        const char *path = arg + strlen(GT_HTTP_UNIX);
        if (path[0] != '/' || path[strlen(path) - 1] == '/' || strlen(path) >= sizeof cfg->socket) {
            snprintf(err, errlen, "--http \"%s\": expected " GT_HTTP_UNIX "/ABSOLUTE/PATH of a socket, at most %zu "
                     "bytes", arg, sizeof cfg->socket - 1);
            return -EINVAL;
        }
    } else if (!colon || colon == arg || parse_unsigned(colon + 1, 65535, &port, false) != 0) {
        snprintf(err, errlen, "--http \"%s\": expected " GT_HTTP_UNIX "PATH, or ADDRESS:PORT such as 127.0.0.1:8470 "
                 "with --http-public", arg);
        return -EINVAL;
    }
    cfg->http = arg;
    return 0;
}

static int set_http_public(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->http_public = true;
    return 0;
}

/* A TCP port has no peer to check: anyone who reaches it, any local user included, would read
   every user's reports, so it takes an explicit --http-public. */
static int check_http(const gt_daemon_config *cfg, char *err, size_t errlen)
{
    bool tcp = cfg->http && strncmp(cfg->http, GT_HTTP_UNIX, strlen(GT_HTTP_UNIX)) != 0;
    if (tcp && !cfg->http_public) {
        snprintf(err, errlen, "--http %s: a TCP port cannot tell who asks, so anyone who reaches it would read "
                 "every user's launch reports; give --http-public to allow that, or serve HTTP on a Unix socket "
                 "with --http " GT_HTTP_UNIX "PATH", cfg->http);
        return -EINVAL;
    }
    if (cfg->http_public && !tcp) {
        snprintf(err, errlen, "--http-public: applies only to --http ADDRESS:PORT");
        return -EINVAL;
    }
    return 0;
}

static int set_trace(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cfg->trace = arg;
    return 0;
}

static int set_cc(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cfg->cc = arg;
    return 0;
}

static int set_native_builds(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    cfg->native_builds = true;
    return 0;
}

static int set_include_dir(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cfg->include_dir = arg;
    return 0;
}

static int set_events(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    char *copy = strdup(arg), *save = NULL;
    if (!copy)
        return -ENOMEM;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (cfg->nevents == GT_COUNTERS_MAX) {
            snprintf(err, errlen, "--events: at most %d events", GT_COUNTERS_MAX);
            free(copy);
            return -EINVAL;
        }
        if (!(cfg->events[cfg->nevents] = strdup(t))) {
            free(copy);
            return -ENOMEM;
        }
        cfg->nevents++;
    }
    free(copy);
    return 0;
}

static int set_budget(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0 && v < 0.5)) {
        snprintf(err, errlen, "--budget \"%s\": expected a fraction of the workgroups above 0 and below 0.5", arg);
        return -EINVAL;
    }
    cfg->tune.budget = v;
    return 0;
}

static int set_disturbed_share(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0 && v <= 1)) {
        snprintf(err, errlen, "--disturbed-share \"%s\": expected a fraction above 0, at most 1", arg);
        return -EINVAL;
    }
    cfg->tune.disturbed_share = v;
    return 0;
}

static int set_strategy(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (gt_strategy_parse(arg, &cfg->tune.strategy) == 0)
        return 0;
    snprintf(err, errlen, "--strategy \"%s\": expected racing or nested", arg);
    return -EINVAL;
}

static int set_refine(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0) {
        cfg->tune.refine = strcmp(arg, "on") == 0;
        return 0;
    }
    snprintf(err, errlen, "--refine \"%s\": expected on or off", arg);
    return -EINVAL;
}

static int set_isolation(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (strcmp(arg, "process") == 0 || strcmp(arg, "none") == 0) {
        cfg->in_process = strcmp(arg, "none") == 0;
        return 0;
    }
    snprintf(err, errlen, "--isolation \"%s\": expected process or none", arg);
    return -EINVAL;
}

static int set_buffer_store(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (strcmp(arg, "tmpfs") == 0 || strcmp(arg, "memfd") == 0) {
        cfg->memfd_buffers = strcmp(arg, "memfd") == 0;
        return 0;
    }
    snprintf(err, errlen, "--buffer-store \"%s\": expected tmpfs or memfd", arg);
    return -EINVAL;
}

static int set_executor(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (arg[0] != '/') {
        snprintf(err, errlen, "--executor \"%s\": expected an absolute path to gridtune-exec", arg);
        return -EINVAL;
    }
    cfg->executor = arg;
    return 0;
}

static int set_metric(gt_daemon_config *cfg, const char *arg, char *err, size_t errlen)
{
    if (gt_metric_parse(arg, &cfg->tune.metric) == 0)
        return 0;
    snprintf(err, errlen, "--metric \"%s\": expected time, ipc, l1, l2 or energy", arg);
    return -EINVAL;
}

static const flag flags[] = {
    {"socket", "PATH", set_socket, "listen here (default: see GRIDTUNE_SOCKET below)"},
    {"system", NULL, set_system, "system mode: " GT_SYSTEM_SOCKET_DIR "/" GT_SOCKET_NAME
                                 ", open to --group; modules only from --module-dir"},
    {"group", "NAME", set_group, "the group that may use the system socket (default " GT_DEFAULT_GROUP ")"},
    {"foreground", NULL, set_foreground, "stay attached to the terminal; log to stderr (for systemd)"},
    {"workers", "N", set_workers, "worker threads (default: every CPU the daemon may run on)"},
    {"no-pin", NULL, set_no_pin, "leave worker threads unpinned"},
    {"inline-groups", "N", set_inline_groups,
     "a launch of at most N workgroups runs on the launcher thread without waking the workers, which costs "
     "more than such a launch's work (default 1; 0: every launch wakes them)"},
    {"launcher-spin", "MICROSECONDS", set_launcher_spin,
     "after a launch the launcher thread polls this long for the next one before it sleeps, so that a client "
     "launching in a loop does not pay for waking it (default 50; 0: it sleeps at once). With --isolation none "
     "only: the users' launcher threads of executor processes never poll, their executors do (--executor-spin)"},
    {"isolation", "process|none", set_isolation,
     "process (default): kernels run in executor processes, one per user, so a kernel that faults or hangs fails "
     "only its own launch; none: in gridtuned itself"},
    {"executor-spin", "MICROSECONDS", set_executor_spin,
     "after each request an executor polls this long for the next before it sleeps, its workers as long for "
     "their next batch after each, and gridtuned as long for its answer, on the event loop for a small launch "
     "sent from there; each gives its CPU to any thread that waits for it (default 200; waking a sleeping "
     "one costs 20-50 us here, polling costs CPU time)"},
    {"loop-spin", "MICROSECONDS", set_loop_spin,
     "after a client's request the event loop polls this long for the next one before it sleeps, giving its CPU "
     "to any thread that waits for it, so that a client launching in a loop does not wait for the loop to be woken "
     "(default 200; 0: it sleeps at once)"},
    {"executor", "PATH", set_executor, "the gridtune-exec program (default: beside gridtuned, else the installed one)"},
    {"time-slice", "MILLISECONDS", set_time_slice,
     "each user's launches run in order on a thread of their own, one user's executor at a time; one that has run "
     "this long while another user waits is paused (SIGSTOP) and resumed at its next turn, so a kernel that never "
     "returns delays other users by a slice per turn (default 100; 0: users take turns only between launches)"},
    {"launch-timeout", "SECONDS", set_launch_timeout,
     "stop a launch that runs this long by ending its executor process (default 0: never; needs --isolation process)"},
    {"no-probes", NULL, set_no_probes, "do not load the eBPF probes that watch the workers (on by default where permitted)"},
    {"no-populate", NULL, set_no_populate,
     "leave a new buffer's pages to its first launch, instead of mapping them in before any launch runs"},
    {"buffer-store", "tmpfs|memfd", set_buffer_store,
     "tmpfs (default): clients make buffers on a tmpfs of gridtuned's own, one per user and mounted nowhere, "
     "which gives them huge pages whatever transparent_hugepage/shmem_enabled says; memfd: as sealed memfds, "
     "which get huge pages only where shmem_enabled allows. With --isolation none buffers are always memfds"},
    {"log", "FILE", set_log, "log to FILE (default: stderr in the foreground, else gridtuned.log beside the wisdom)"},
    {"log-level", "LEVEL", set_log_level, "error, warn, info (default) or debug"},
    {"wisdom", "PATH", set_wisdom, "the wisdom file (default: see GRIDTUNE_WISDOM below)"},
    {"max-wisdom-entries", "N", set_max_wisdom_entries,
     "decisions the wisdom keeps; past them a new one evicts the one used longest ago (default 4096, at most "
     "16384)"},
    {"cache-dir", "DIR", set_cache_dir, "where built kernels are cached (default: see XDG_CACHE_HOME below)"},
    {"module-dir", "DIR", set_module_dir, "in system mode, load modules only from DIR (repeatable)"},
    {"allow-build", NULL, set_allow_build,
     "in system mode, allow clients to build kernels from source. This trusts every member of --group with "
     "the daemon's user: a kernel runs as that user, and a module's constructors run as that user when it "
     "loads (in the loader and executor processes, before the executor's sandbox closes). "
     "The compiler itself is confined to the system's files, kernel.h's directory and its own build "
     "directory only where the kernel has Landlock"},
    {"cc", "PATH", set_cc, "the C compiler for kernel builds (default: $CC, else cc)"},
    {"include-dir", "DIR", set_include_dir, "where gridtune/kernel.h is for kernel builds"},
    {"build-timeout", "SECONDS", set_build_timeout, "kill a kernel build after this long (default 60)"},
    {"max-cache-bytes", "BYTES", set_max_cache_bytes,
     "bytes of built kernels the cache keeps; past them, each build removes those used longest ago (default 1G)"},
    {"native-builds", NULL, set_native_builds,
     "build kernels from source for this CPU (-march=native) instead of the compiler's default target, "
     "unless a build's options name a -march= or -mcpu= of their own"},
    {"events", "LIST", set_events, "PAPI events to count, comma-separated (default: cycles, instructions, L1/L2 misses)"},
    {"budget", "FRACTION", set_budget, "share of a launch's workgroups, and of its time at the best speed seen, analysis may use (default 0.08)"},
    {"strategy", "NAME", set_strategy, "analysis strategy: racing (default) or nested"},
    {"metric", "NAME", set_metric, "what candidates are judged by: time (default), ipc, l1, l2, energy"},
    {"refine", "on|off", set_refine,
     "after analysis, repeated launches run the best runners-up on a quarter of a launch until the winner is "
     "settled (default on)"},
    {"refine-limit", "N", set_refine_limit, "refining launches before a decision settles in any case (default 12)"},
    {"disturbed-share", "FRACTION", set_disturbed_share,
     "with probes, a sample in which a worker waited for other tasks this share of its time is measured again (default 0.1)"},
    {"http", "WHERE", set_http,
     "serve /status, /reports and /metrics over HTTP: " GT_HTTP_UNIX "PATH, a Unix socket whose peers are checked like "
     "the main socket's (in system mode each sees only its own reports), or ADDR:PORT with --http-public"},
    {"http-public", NULL, set_http_public,
     "let --http ADDR:PORT serve every user's reports to anyone who can reach the port"},
    {"http-max-connections", "N", set_http_max_connections,
     "HTTP connections open at once; past them new ones wait until one ends (default 32). With --system, one "
     "user holds at most half of them: a new one past that is closed"},
    {"http-timeout", "SECONDS", set_http_timeout,
     "an HTTP connection is closed this long after it opened or its last whole request arrived, however its "
     "bytes trickle in (default 10)"},
    {"keep-reports", "N", set_keep_reports, "recent reports kept for clients and HTTP (default 256)"},
    {"max-frame", "BYTES", set_max_frame, "largest message a client may send (default 1M)"},
    {"max-buffers", "N", set_max_buffers, "buffers per client (default 1024)"},
    {"max-buffer-bytes", "BYTES", set_max_buffer_bytes, "bytes of buffers per client (default 16G)"},
    {"max-kernels", "N", set_max_kernels, "kernels per client (default 256)"},
    {"max-inflight", "N", set_max_inflight, "launches per client queued or running (default 64)"},
    {"max-events", "N", set_max_events, "completed launches remembered per client (default 4096)"},
    {"max-waiting", "N", set_max_waiting, "wait and report requests per client awaiting their launches (default 4096)"},
    {"max-output", "BYTES", set_max_output, "answers queued to a client that is not reading before it is dropped (default 64M)"},
    {"max-total-output", "BYTES", set_max_total_output,
     "answers queued to all clients; past it, a client holding more than its share is dropped (default 256M)"},
    {"max-clients", "N", set_max_clients, "connections in all (default 1024, lowered to fit the descriptor limit)"},
    {"max-user-clients", "N", set_max_user_clients, "connections of one user (uid) (default 256)"},
    {"frame-timeout", "SECONDS", set_frame_timeout, "a frame must arrive whole this long after its first byte, and a hello this long after connecting (default 30)"},
    {"max-partial-bytes", "BYTES", set_max_partial_bytes, "bytes of partly received frames held for all clients (default 64M)"},
    {"max-total-buffer-bytes", "BYTES", set_max_total_buffer_bytes, "bytes of buffers of all clients (default: physical memory)"},
    {"max-user-buffer-bytes", "BYTES", set_max_user_buffer_bytes,
     "bytes of buffers of one user (default: the total; half of it with --system)"},
    {"max-total-buffers", "N", set_max_total_buffers,
     "buffers of all clients (default: half of vm.max_map_count over the mappings a buffer takes, 3 in an executor)"},
    {"max-user-buffers", "N", set_max_user_buffers, "buffers of one user (default: the total; half of it with --system)"},
    {"stop-grace", "SECONDS", set_stop_grace,
     "on SIGTERM, how long the running launch may go on before gridtuned exits without it (default 10)"},
    {"trace", "FILE", set_trace, "append every protocol message as a JSON line to FILE (debugging)"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static const struct {
    const char *name, *help;
} environment[] = {
    {GT_ENV_SOCKET, "the socket, when --socket is not given; else $XDG_RUNTIME_DIR/gridtune/" GT_SOCKET_NAME
                    ", else /tmp/gridtune-$UID/" GT_SOCKET_NAME},
    {"GRIDTUNE_WISDOM", "the wisdom file, when --wisdom is not given; else $XDG_STATE_HOME/gridtune/wisdom.json, "
                        "else ~/.local/state/gridtune/wisdom.json"},
    {"XDG_CACHE_HOME", "built kernels go to $XDG_CACHE_HOME/gridtune/kernels, else ~/.cache/gridtune/kernels"},
    {"XDG_STATE_HOME", "the wisdom lives in $XDG_STATE_HOME/gridtune, and, when detached, the log gridtuned.log beside it"},
    {"STATE_DIRECTORY", "system mode: the wisdom's directory (systemd sets it; default " SYSTEM_STATE_DIR ")"},
    {"CACHE_DIRECTORY", "system mode: the build cache's parent (systemd sets it; default " SYSTEM_CACHE_DIR ")"},
    {"CC", "the C compiler, when --cc is not given"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: " PROG " [OPTION]...\n"
                 "The gridtune daemon: picks thread schedules for the kernel launches clients send it over\n"
                 "a Unix socket, and runs them on one worker pool shared by all clients.\n"
                 "Started on demand by libgridtune; detaches unless --foreground.\n\nOptions:\n");
    for (size_t i = 0; i < NFLAGS; i++) {
        char form[48];
        snprintf(form, sizeof form, "--%s%s%s", flags[i].name, flags[i].arg ? " " : "",
                 flags[i].arg ? flags[i].arg : "");
        fprintf(out, "  %-26s %s\n", form, flags[i].help);
    }
    fprintf(out, "  %-26s %s\n  %-26s %s\n\nEnvironment:\n", "-h, --help", "this text", "--version",
            "print the version");
    for (size_t i = 0; i < sizeof environment / sizeof environment[0]; i++)
        fprintf(out, "  %-17s %s\n", environment[i].name, environment[i].help);
    fprintf(out, "\nExit status: 0 stopped cleanly (or detached and listening), 1 failed, 2 bad command line,\n"
                 "3 another gridtuned already serves the socket.\n");
}

static void defaults(gt_daemon_config *cfg)
{
    *cfg = (gt_daemon_config){
        .group = GT_DEFAULT_GROUP,
        .log_level = GT_LOG_INFO,
        .build_timeout_ms = 60,
        .keep_reports = GT_DEFAULT_KEEP_REPORTS,
        .max_wisdom_entries = GT_DEFAULT_MAX_WISDOM_ENTRIES,
        .http_max_connections = GT_DEFAULT_HTTP_MAX_CONNECTIONS,
        .http_timeout_s = GT_DEFAULT_HTTP_TIMEOUT,
        .stop_grace_s = GT_DEFAULT_STOP_GRACE,
        .inline_groups = GT_DEFAULT_INLINE_GROUPS,
        .launcher_spin_us = GT_DEFAULT_LAUNCHER_SPIN,
        .time_slice_ms = GT_DEFAULT_TIME_SLICE,
        .executor_spin_us = GT_DEFAULT_EXECUTOR_SPIN,
        .loop_spin_us = GT_DEFAULT_LOOP_SPIN,
        .limits = {.max_frame = GT_DEFAULT_MAX_FRAME,
                   .max_buffers = GT_DEFAULT_MAX_BUFFERS,
                   .max_buffer_bytes = GT_DEFAULT_MAX_BUFFER_BYTES,
                   .max_kernels = GT_DEFAULT_MAX_KERNELS,
                   .max_inflight = GT_DEFAULT_MAX_INFLIGHT,
                   .max_events = GT_DEFAULT_MAX_EVENTS,
                   .max_waiting = GT_DEFAULT_MAX_WAITING,
                   .max_output = GT_DEFAULT_MAX_OUTPUT,
                   .max_total_output = GT_DEFAULT_MAX_TOTAL_OUTPUT,
                   .max_clients = GT_DEFAULT_MAX_CLIENTS,
                   .max_user_clients = GT_DEFAULT_MAX_USER_CLIENTS,
                   .frame_timeout_s = GT_DEFAULT_FRAME_TIMEOUT,
                   .max_partial_bytes = GT_DEFAULT_MAX_PARTIAL},
        .tune = gt_tune_config_default(),
    };
}

/* The machine's share limits: physical memory for buffer bytes, and half of the kernel's
 * mapping limit for buffers (the rest is for the process's libraries, modules, stacks and heap;
 * past vm.max_map_count its every mmap fails). A buffer is one mapping in gridtuned with
 * --isolation none, and GT_GUARDED_MAP_MAPPINGS in its user's executor otherwise. */
static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 1ull << 34;
}

static unsigned max_map_count(void)
{
    unsigned long n = 65530; /* the kernel's default */
    FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
    if (f) {
        if (fscanf(f, "%lu", &n) != 1 || n < 1024)
            n = 65530;
        fclose(f);
    }
    return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

static void resolve_limits(gt_daemon_config *cfg)
{
    gt_limits *l = &cfg->limits;
    unsigned user_share = cfg->system ? 2 : 1;
    if (!l->max_total_buffer_bytes)
        l->max_total_buffer_bytes = physical_memory();
    if (!l->max_total_buffers)
        l->max_total_buffers = max_map_count() / 2 / (cfg->in_process ? 1 : GT_GUARDED_MAP_MAPPINGS);
    if (!l->max_user_buffer_bytes)
        l->max_user_buffer_bytes = l->max_total_buffer_bytes / user_share;
    if (!l->max_user_buffers)
        l->max_user_buffers = l->max_total_buffers / user_share;
}

static const char *env_path(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '/' ? v : NULL;
}

/* path as an absolute one in out: as it is when it starts with '/', else after the working
 * directory. */
static int absolute(const char *what, const char *path, char *out, size_t len, char *err, size_t errlen)
{
    char cwd[GT_PATH_MAX];
    int n;
    if (path[0] == '/')
        n = snprintf(out, len, "%s", path);
    else if (getcwd(cwd, sizeof cwd))
        n = snprintf(out, len, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, path);
    else {
        int e = errno;
        snprintf(err, errlen, "%s \"%.200s\": a relative path, and the working directory cannot be read: %s", what,
                 path, strerror(e));
        return -e;
    }
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "%s \"%.200s\": its absolute path is longer than %zu bytes", what, path, len - 1);
        return -ENAMETOOLONG;
    }
    return 0;
}

/* The same for a path held in buf itself. */
static int absolute_in_place(const char *what, char *buf, size_t len, char *err, size_t errlen)
{
    char copy[GT_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", buf);
    return absolute(what, copy, buf, len, err, errlen);
}

/* A detached gridtuned works in "/", so every path given relative (on the command line or in
 * GRIDTUNE_SOCKET and GRIDTUNE_WISDOM, which autostart passes on from the application) is made
 * absolute against the directory it was started in, before it detaches. A compiler given as a
 * bare name stays one, looked up in PATH. */
static int absolute_paths(gt_daemon_config *cfg, char *err, size_t errlen)
{
    struct {
        const char *what;
        const char **path;
        char *buf;
    } given[] = {
        {"--log", &cfg->log_path, cfg->log_abs},
        {"--trace", &cfg->trace, cfg->trace_abs},
        {"--include-dir", &cfg->include_dir, cfg->include_abs},
        {"--cc", &cfg->cc, cfg->cc_abs},
    };
    int rc = absolute_in_place("--socket", cfg->socket, sizeof cfg->socket, err, errlen);
    if (!rc)
        rc = absolute_in_place("--wisdom", cfg->wisdom, sizeof cfg->wisdom, err, errlen);
    if (!rc)
        rc = absolute_in_place("--cache-dir", cfg->cache_dir, sizeof cfg->cache_dir, err, errlen);
    for (size_t i = 0; !rc && i < sizeof given / sizeof given[0]; i++) {
        const char *p = *given[i].path;
        if (!p || p[0] == '/' || (given[i].path == &cfg->cc && !strchr(p, '/')))
            continue;
        rc = absolute(given[i].what, p, given[i].buf, GT_PATH_MAX, err, errlen);
        if (!rc)
            *given[i].path = given[i].buf;
    }
    return rc;
}

static int resolve_paths(gt_daemon_config *cfg, char *err, size_t errlen)
{
    int rc = 0;
    if (!cfg->socket[0]) {
        const char *env = getenv(GT_ENV_SOCKET);
        if (env && env[0])
            rc = set_copy(cfg->socket, sizeof cfg->socket, GT_ENV_SOCKET, env, err, errlen);
        else if (cfg->system)
            rc = gt_socket_path_in(GT_SYSTEM_SOCKET_DIR, cfg->socket, sizeof cfg->socket, err, errlen);
        else
            rc = gt_socket_user_path(cfg->socket, sizeof cfg->socket, err, errlen);
        if (rc)
            return rc;
    }
    if (!cfg->wisdom[0]) {
        const char *env = getenv("GRIDTUNE_WISDOM");
        const char *state = env_path("STATE_DIRECTORY");
        if (env && env[0])
            rc = set_copy(cfg->wisdom, sizeof cfg->wisdom, "GRIDTUNE_WISDOM", env, err, errlen);
        else if (cfg->system)
            snprintf(cfg->wisdom, sizeof cfg->wisdom, "%s/wisdom.json", state ? state : SYSTEM_STATE_DIR);
        else
            rc = gt_wisdom_default_path(cfg->wisdom, sizeof cfg->wisdom, err, errlen);
        if (rc)
            return rc;
    }
    if (!cfg->cache_dir[0]) {
        const char *cache = cfg->system ? env_path("CACHE_DIRECTORY") : env_path("XDG_CACHE_HOME");
        const char *home = env_path("HOME");
        if (cfg->system)
            snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/kernels", cache ? cache : SYSTEM_CACHE_DIR);
        else if (cache)
            snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/gridtune/kernels", cache);
        else if (home)
            snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/.cache/gridtune/kernels", home);
        else {
            snprintf(err, errlen, "no build cache directory: give --cache-dir, or set XDG_CACHE_HOME or HOME");
            return -ENOENT;
        }
    }
    if (!cfg->cc) {
        const char *cc = getenv("CC");
        cfg->cc = cc && cc[0] ? cc : "cc";
    }
    return absolute_paths(cfg, err, errlen);
}

int gt_daemon_config_parse(int argc, char **argv, gt_daemon_config *cfg)
{
    enum { OPT_HELP = 'h', OPT_VERSION = 1000, OPT_FIRST = 1001 };
    struct option longopts[NFLAGS + 3];
    for (size_t i = 0; i < NFLAGS; i++)
        longopts[i] = (struct option){flags[i].name, flags[i].arg ? required_argument : no_argument, NULL,
                                      OPT_FIRST + (int)i};
    longopts[NFLAGS] = (struct option){"help", no_argument, NULL, OPT_HELP};
    longopts[NFLAGS + 1] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    longopts[NFLAGS + 2] = (struct option){0};
    defaults(cfg);
    char err[512];
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == OPT_HELP) {
            usage(stdout);
            return 1;
        }
        if (c == OPT_VERSION) {
            printf(PROG " %s (protocol %d)\n", GT_VERSION, GT_PROTOCOL_VERSION);
            return 1;
        }
        if (c < OPT_FIRST) {
            fprintf(stderr, PROG ": try '" PROG " --help'\n");
            return 2;
        }
        err[0] = '\0';
        if (flags[c - OPT_FIRST].apply(cfg, optarg, err, sizeof err) != 0) {
            fprintf(stderr, PROG ": %s\n", err[0] ? err : "out of memory");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, PROG ": unexpected argument \"%s\"; try '" PROG " --help'\n", argv[optind]);
        return 2;
    }
    if (check_http(cfg, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return 2;
    }
    cfg->build_timeout_ms *= 1000;
    resolve_limits(cfg);
    if (resolve_paths(cfg, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return 2;
    }
    return 0;
}

void gt_daemon_config_free(gt_daemon_config *cfg)
{
    for (unsigned i = 0; i < cfg->nevents; i++)
        free(cfg->events[i]);
    cfg->nevents = 0;
}
