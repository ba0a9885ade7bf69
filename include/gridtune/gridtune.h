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
 * disconnected; gt_disconnect releases whatever is left.
 *
 * Dead handles. The library keeps a process-wide set of its live handles (clients, buffers,
 * kernels) and every function below looks a handle up there before it touches the handle's
 * memory. A handle that was released, or whose client was disconnected, is refused: -EBADF,
 * with a sentence naming the function and the handle, such as "gt_buffer_release: the buffer
 * 0x5581... was already released, or its client disconnected". NULL stays -EINVAL, and an
 * object of another live client stays -EINVAL ("... belongs to another gridtune handle").
 * Where the sentence goes: on the live client the call was given (gt_launch with a released
 * buffer or kernel: gt_last_error(c)); else, when the call has no live client (a release, a
 * gt_buffer_data, any call given a disconnected client), on the calling thread's own slot,
 * which gt_last_error(NULL) reads and gt_last_error(c) for a disconnected c reads too.
 * What stays undefined, as in C generally:
 *   - a pointer that never was a handle of this kind, made up or cast from something else
 *     (it is refused when it matches no live handle, but that is luck, not a promise);
 *   - a dead handle whose address malloc has since given to a new handle of the same kind:
 *     the stale pointer then names the new handle, and the call acts on it;
 *   - releasing or disconnecting a handle while another thread is inside a call on it, or on
 *     an object of its client (a gt_wait in progress during gt_disconnect, say). Two threads
 *     releasing the same handle at once are safe: one frees it and the other gets -EBADF;
 *   - memory reached through gt_buffer_data after the buffer's release (it is unmapped);
 *   - a child of fork() using its parent's clients, buffers or kernels (it would share their
 *     connection's socket with the parent). The child may gt_connect a client of its own: the
 *     handle set's lock is held across fork, so the child never inherits it taken. */
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
/* Closes the connection and frees c with the buffers and kernels it still holds (the daemon
 * frees its side when the connection ends). 0, also for NULL; -EBADF when c was already
 * disconnected (the sentence in gt_last_error(NULL)). Every handle of c is dead afterwards. */
int gt_disconnect(gt_client *c);
/* The sentence for the calling thread's last failure on this handle ("" when none). Valid
 * until the next call on the handle from the same thread, and never after gt_disconnect(c).
 * gt_last_error(NULL), and gt_last_error(c) for a c that is no live client, give the calling
 * thread's last failure that had no live client to keep its sentence: gt_connect unable to
 * allocate a handle, a call given NULL for its client, or a call given a dead handle (see
 * "Dead handles" above); that one is valid until the thread's next such failure. */
const char *gt_last_error(const gt_client *c);

/* ---- buffers -------------------------------------------------------------------------- */

/* A zero-filled shared buffer of `bytes` bytes (at least 1), owned by c: gt_buffer_release it,
 * or gt_disconnect c. -EBADF when c was disconnected. */
int gt_buffer_create(gt_client *c, size_t bytes, gt_buffer **out);
/* The buffer's memory, shared with the daemon (no copies), mapped until the buffer is released
 * or its client disconnected. NULL for NULL (-EINVAL's sentence) and for a dead buffer (the
 * -EBADF sentence), both in gt_last_error(NULL). */
void *gt_buffer_data(gt_buffer *b);
/* The buffer's size in bytes; 0 for NULL or a dead buffer, with the sentence as for
 * gt_buffer_data (a live buffer is never 0 bytes). */
size_t gt_buffer_size(const gt_buffer *b);
/* Frees the buffer here and in the daemon. 0, also for NULL and when the daemon could not be
 * told (it frees a connection's buffers when the connection ends); -EBADF when b was already
 * released or its client disconnected, with the sentence in gt_last_error(NULL). */
int gt_buffer_release(gt_buffer *b);

/* ---- kernels -------------------------------------------------------------------------- */

/* Kernel `name` of the module at module_path (a path the daemon can open; a relative one is
 * taken from the caller's working directory). Like gt_kernel_build's, the kernel is owned by
 * c: gt_kernel_release it, or gt_disconnect c. Both are -EBADF when c was disconnected. */
int gt_kernel_load(gt_client *c, const char *module_path, const char *name, gt_kernel **out);
/* Kernel `name` of C source written against <gridtune/kernel.h>, compiled by the daemon with
 * the system C compiler; options are extra compiler flags (NULL or "" for none), split on
 * spaces. On a compile error gt_last_error holds the compiler's diagnostics. */
int gt_kernel_build(gt_client *c, const char *c_source, const char *name, const char *options, gt_kernel **out);
/* Frees the kernel here and in the daemon. 0, also for NULL and when the daemon could not be
 * told; -EBADF when k was already released or its client disconnected, with the sentence in
 * gt_last_error(NULL). */
int gt_kernel_release(gt_kernel *k);
/* The kernel's parameter count; 0 for NULL or a dead kernel, with the sentence in
 * gt_last_error(NULL) (a kernel may also really have no parameters). */
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

/* Keeps the pointer only, checked by gt_launch: the buffer must be live when it is launched. */
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
    /* The launch fails with -ETIMEDOUT if it runs longer than this (its kernel is stopped by
       ending the process it runs in); 0 = the daemon's --launch-timeout, none by default. At
       most 86400000 (a day). */
    unsigned deadline_ms;
} gt_launch_options;

gt_launch_options gt_launch_options_default(void);

/* Queues a launch of k over range with nargs arguments. Launches of one handle run in the
 * order they were made. *out names the launch for gt_wait and gt_report. The arguments are
 * checked against the kernel's signature before the launch is queued. The client, the kernel
 * and every buffer argument are looked up first, under one lock: a disconnected c is -EBADF
 * (sentence in gt_last_error(NULL)); a released kernel or buffer is -EBADF with the sentence
 * on c; a kernel or buffer of another live client is -EINVAL. */
int gt_launch(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
              const gt_launch_options *opts, gt_event *out);
/* gt_launch and gt_wait in one round trip: the daemon answers the launch once it has run, so
 * the call returns then, with 0 when the launch succeeded, else its error. Checked as gt_launch
 * is. out may be NULL: then the daemon forgets the launch as soon as it has answered, and
 * there is nothing to release. Else *out names it for gt_report and gt_event_release, when it
 * succeeded; a launch that failed leaves no event (*out is 0). */
int gt_run(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
           const gt_launch_options *opts, gt_event *out);
/* Waits for the launch; 0 when it succeeded, else its error. */
int gt_wait(gt_client *c, gt_event ev);
/* The launch's report (JSON, schemas/report.schema.json), after it completed; free() it. */
int gt_report(gt_client *c, gt_event ev, char **json_out);
/* Cancels a launch of this handle: a queued one does not run, a running one is stopped (the
 * daemon ends the process its kernel runs in); its gt_wait then gives -ECANCELED. 0 when the
 * cancel takes effect; -EALREADY when the launch is done already, or runs inside a daemon that
 * runs kernels itself (gridtuned --isolation none) and cannot stop it. */
int gt_cancel(gt_client *c, gt_event ev);
/* Forgets a completed launch's event and report in the daemon. */
int gt_event_release(gt_client *c, gt_event ev);
/* (These three, and every function of the daemon below: -EBADF for a disconnected c, with
 * the sentence in gt_last_error(NULL). An event is a number, not a handle: one the daemon
 * does not know is its error, not -EBADF.) */

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
