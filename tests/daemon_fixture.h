/* daemon_fixture.h: a real gridtuned for integration tests, in a fresh temporary directory,
 * and the tools to look at it from outside: its descriptors, buffer mappings and memory
 * (/proc), its trace and log, and a raw client that speaks the wire protocol frame by frame
 * so that tests can send what libgridtune never would.
 *
 * Every function here fails the running cmocka test with a message instead of returning an
 * error, so they belong on the test's thread (tests, setups, teardowns). Waits are bounded
 * by DAEMON_FIXTURE_GUARD_SECONDS and fail when it runs out; nothing asserts speed. */
#ifndef GT_TESTS_DAEMON_FIXTURE_H
#define GT_TESTS_DAEMON_FIXTURE_H

#include <gridtune/gridtune.h>

#include "protocol/wire.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How long any wait may last before the test fails: a guard against a hang, not a timing
 * assertion. */
#define DAEMON_FIXTURE_GUARD_SECONDS 30

typedef struct daemon_fixture {
    char dir[64]; /* the mkdtemp directory holding everything below, except perhaps the trace */
    char socket[108];
    char log[PATH_MAX];
    char trace[PATH_MAX];
    char wisdom[PATH_MAX];
    pid_t pid;    /* the detached daemon's, from its status; 0 once it was waited for */
    int exit_status; /* its wait status, once it was waited for */
    char http[128]; /* the address /status says HTTP is served on ("unix:" and a socket path, or ADDR:PORT), or "" */
} daemon_fixture;

/* Starts `gridtuned --socket DIR/s.sock --wisdom DIR/wisdom.json --cache-dir DIR/cache
 * --include-dir <source>/include --log DIR/gridtuned.log --trace TRACE --workers 2` plus
 * `extra` (NULL-terminated, may be NULL) and returns once it listens. TRACE is `trace` (emptied
 * first, so it describes this daemon alone), or DIR/trace.jsonl when NULL. The test process
 * becomes a child subreaper, so the detached daemon is its child and can be waited for. */
void daemon_fixture_start(daemon_fixture *fx, const char *trace, const char *const *extra);
/* The same, and with without_bpf, gridtuned runs without the capabilities BPF needs (CAP_BPF,
 * CAP_PERFMON, CAP_SYS_ADMIN), as an unprivileged daemon would. */
void daemon_fixture_start_as(daemon_fixture *fx, const char *trace, const char *const *extra, bool without_bpf);
/* SIGTERM, then daemon_fixture_wait_exit. */
int daemon_fixture_stop(daemon_fixture *fx);
/* Waits for a signalled daemon to exit and returns its wait status. Fails the test when it
 * does not exit, when its log or its sanitizer logs show a sanitizer report, or when it exited
 * 0 but left its socket behind or never logged "stopped". */
int daemon_fixture_wait_exit(daemon_fixture *fx);
/* Removes the directory when the daemon exited with status 0; else leaves it and says where. */
void daemon_fixture_clean_up(daemon_fixture *fx);

/* Fails the test when the daemon's log, or a sanitizer log one of its processes wrote
 * (DIR/sanitizer.PID), holds a sanitizer report. */
void daemon_fixture_assert_no_sanitizer_report(const daemon_fixture *fx);

/* A libgridtune handle to the fixture's daemon; gt_disconnect it. */
gt_client *daemon_fixture_connect(const daemon_fixture *fx);
/* The daemon's status object, through c; cJSON_Delete it. */
cJSON *daemon_fixture_status(gt_client *c);
/* A number in the status object: "clients", or "launches.running" for a nested one. */
double daemon_fixture_status_number(const cJSON *status, const char *path);
/* Polls the status through c until `clients` clients are connected (c included) and no
 * launch is queued or running. */
void daemon_fixture_wait_quiet(gt_client *c, unsigned clients);

/* The daemon's open descriptors, "gridtune-buffer" memfd mappings, and resident memory. */
unsigned daemon_fixture_fd_count(const daemon_fixture *fx);
unsigned daemon_fixture_memfd_count(const daemon_fixture *fx);
unsigned long daemon_fixture_rss_kib(const daemon_fixture *fx);

/* The error the trace shows the daemon answered with, found by its message: the last error
 * whose message starts with `message` (a client's sentence may be a shortened copy), or NULL.
 * cJSON_Delete it. */
cJSON *daemon_fixture_trace_error(const daemon_fixture *fx, const char *message);
/* How many lines of the trace go in direction `dir` ("in" or "out") with a message of this
 * type ("wait", or "error" and "result" for answers). */
unsigned daemon_fixture_trace_count(const daemon_fixture *fx, const char *dir, const char *type);
/* Whether the daemon's log has a line ending in `text`. */
bool daemon_fixture_log_has_line(const daemon_fixture *fx, const char *text);

/* Asserts msg is an error answer with this code and errno whose message contains `needle`. */
void assert_error_answer(const cJSON *msg, const char *code, int errnum, const char *needle);
/* Asserts a libgridtune call failed with -errnum, that gt_last_error(c) contains `needle`,
 * and that the daemon answered it (per its trace) with an error of this code and errno. */
void assert_api_error(const daemon_fixture *fx, gt_client *c, int rc, const char *code, int errnum,
                      const char *needle);

/* ---- a raw client: frames by hand ------------------------------------------------------- */

typedef struct raw_client {
    int fd;
    gt_wire_reader *reader;
} raw_client;

/* Connects, sending nothing. */
void raw_client_open(raw_client *rc, const daemon_fixture *fx);
/* Connects and says hello (id 1); the fixture's later requests can use ids from 2. */
void raw_client_open_hello(raw_client *rc, const daemon_fixture *fx);
void raw_client_close(raw_client *rc);
/* One frame of JSON text carrying nfds descriptors (which stay the caller's). */
void raw_client_send(raw_client *rc, const char *json, const int *fds, unsigned nfds);
/* Bytes as they are, framed or not. */
void raw_client_send_bytes(raw_client *rc, const void *bytes, size_t len);
/* The next frame from the daemon as JSON, or NULL when it closed the connection. */
cJSON *raw_client_read(raw_client *rc);
/* raw_client_send, then the answer, which must come. */
cJSON *raw_client_call(raw_client *rc, const char *json, const int *fds, unsigned nfds);
/* Asserts the daemon closes the connection, with no further frame. */
void raw_client_expect_closed(raw_client *rc);

#endif
