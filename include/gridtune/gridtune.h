/* gridtune client API (libgridtune).
 *
 * A program hands kernel launches to the gridtune daemon, gridtuned, over a Unix socket. The
 * daemon picks a thread schedule for each launch (analysis on a minority of its workgroups,
 * or a remembered decision) and runs it on a CPU worker pool shared by all its clients.
 *
 * Buffers are shared memory (sealed memfds), mapped by both sides: no copies. Kernels come
 * from modules built against <gridtune/kernel.h>, or from C source the daemon compiles.
 *
 * Every function that can fail returns 0 or a negative errno-style code, and leaves a sentence
 * for the failure in gt_last_error(). A handle may be used from several threads at once.
 * Objects belong to the handle that made them and must be released before it is
 * disconnected; gt_disconnect releases whatever is left. */
#ifndef GRIDTUNE_GRIDTUNE_H
#define GRIDTUNE_GRIDTUNE_H

#include <gridtune/range.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GT_VERSION_MAJOR 0
#define GT_VERSION_MINOR 4

typedef struct gt_client gt_client;
typedef struct gt_buffer gt_buffer;
typedef struct gt_kernel gt_kernel;
/* A launch's completion, named by the daemon; 0 is never a valid event. */
typedef uint64_t gt_event;

/* ---- connection ----------------------------------------------------------------------- */

/* Connects to the daemon at socket_path; NULL means $GRIDTUNE_SOCKET, else the per-user
 * default ($XDG_RUNTIME_DIR/gridtune/gridtuned.sock, else /tmp/gridtune-$UID/gridtuned.sock).
 * When no daemon answers on the per-user default, one is started (gridtuned from $PATH, or
 * $GRIDTUNE_DAEMON), unless GRIDTUNE_NO_AUTOSTART=1. On failure *out may still hold a handle
 * whose gt_last_error says why; gt_disconnect frees it either way. */
int gt_connect(const char *socket_path, gt_client **out);
void gt_disconnect(gt_client *c);
/* The sentence for the last failure on this handle ("" when none). Valid until the next call
 * on the handle from the same thread. gt_last_error(NULL) is the reason gt_connect could not
 * even allocate a handle. */
const char *gt_last_error(const gt_client *c);

/* ---- buffers -------------------------------------------------------------------------- */

/* A zero-filled shared buffer of `bytes` bytes (at least 1). */
int gt_buffer_create(gt_client *c, size_t bytes, gt_buffer **out);
void *gt_buffer_data(gt_buffer *b); /* shared with the daemon, no copies */
size_t gt_buffer_size(const gt_buffer *b);
void gt_buffer_release(gt_buffer *b);

/* ---- kernels -------------------------------------------------------------------------- */

/* Kernel `name` of the module at module_path (a path the daemon can open; a relative one is
 * taken from the caller's working directory). */
int gt_kernel_load(gt_client *c, const char *module_path, const char *name, gt_kernel **out);
/* Kernel `name` of C source written against <gridtune/kernel.h>, compiled by the daemon with
 * the system C compiler; options are extra compiler flags (NULL or "" for none), split on
 * spaces. On a compile error gt_last_error holds the compiler's diagnostics. */
int gt_kernel_build(gt_client *c, const char *c_source, const char *name, const char *options, gt_kernel **out);
void gt_kernel_release(gt_kernel *k);
/* The kernel's parameter count, or 0 for NULL. */
unsigned gt_kernel_nargs(const gt_kernel *k);

/* ---- launches ------------------------------------------------------------------------- */

typedef enum gt_arg_kind {
    GT_ARG_BUFFER,
    GT_ARG_I32,
    GT_ARG_U32,
    GT_ARG_I64,
    GT_ARG_U64,
    GT_ARG_F32,
    GT_ARG_F64,
} gt_arg_kind;

/* One kernel argument, made by the gt_arg_* functions. */
typedef struct gt_arg {
    gt_arg_kind kind;
    union {
        gt_buffer *buffer;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
    } value;
} gt_arg;

gt_arg gt_arg_buffer(gt_buffer *b);
gt_arg gt_arg_i32(int32_t v);
gt_arg gt_arg_u32(uint32_t v);
gt_arg gt_arg_i64(int64_t v);
gt_arg gt_arg_u64(uint64_t v);
gt_arg gt_arg_f32(float v);
gt_arg gt_arg_f64(double v);

typedef enum gt_tuning {
    GT_TUNING_AUTO,   /* wisdom when it knows the launch, else analysis (the default) */
    GT_TUNING_OFF,    /* the default schedule (or the forced one), no analysis */
    GT_TUNING_RETUNE, /* analyse even when the wisdom knows the launch, and remember anew */
} gt_tuning;

/* Per-launch options; start from gt_launch_options_default(). */
typedef struct gt_launch_options {
    const char *schedule;   /* a forced schedule in canonical text form, or NULL */
    gt_tuning tuning;
    double budget;          /* share of the workgroups analysis may use; 0 = the daemon's */
    const char *metric;     /* "time", "ipc", "l1", "l2", "energy"; NULL = the daemon's */
    const gt_event *wait;   /* earlier events of this handle to wait for, or NULL */
    unsigned nwait;
} gt_launch_options;

gt_launch_options gt_launch_options_default(void);

/* Queues a launch of k over range with nargs arguments. Launches of one handle run in the
 * order they were made. *out names the launch for gt_wait and gt_report. The arguments are
 * checked against the kernel's signature before the launch is queued. */
int gt_launch(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
              const gt_launch_options *opts, gt_event *out);
/* Waits for the launch; 0 when it succeeded, else its error. */
int gt_wait(gt_client *c, gt_event ev);
/* The launch's report (JSON, schemas/report.schema.json), after it completed; free() it. */
int gt_report(gt_client *c, gt_event ev, char **json_out);
/* Forgets a completed launch's event and report in the daemon. */
int gt_event_release(gt_client *c, gt_event ev);

/* ---- the daemon ----------------------------------------------------------------------- */

/* The daemon's status as JSON (the status object of schemas/protocol/status.result.schema.json);
 * free() it. */
int gt_status(gt_client *c, char **json_out);
/* The reports of the daemon's most recent launches, from every client, that it still keeps
 * (gridtuned --keep-reports), at most `limit` (at least 1), as a JSON array (items:
 * schemas/report.schema.json), newest first; free() it. A system-mode daemon shows a client
 * only its own user's launches, unless it runs as the daemon's user or root. */
int gt_reports(gt_client *c, unsigned limit, char **json_out);

/* Merges a wisdom document (the JSON of a wisdom file, schemas/wisdom.schema.json) into the
 * daemon's wisdom and saves it; all or nothing. *merged (may be NULL) is the number of entries
 * read. Only the daemon's own user or root may change its wisdom. */
int gt_daemon_wisdom_import(gt_client *c, const char *json, size_t *merged);
/* Forgets every decision of the daemon's wisdom and saves it; *cleared (may be NULL) is how
 * many there were. */
int gt_daemon_wisdom_clear(gt_client *c, size_t *cleared);

#ifdef __cplusplus
}
#endif

#endif
