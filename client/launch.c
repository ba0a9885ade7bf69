/* launch.c: launches and their events (gt_launch, gt_run, gt_wait, gt_report,
 * gt_event_release) and the small value constructors of the API. The daemon answers wait,
 * report and gt_run's launch only once the launch has completed, so those calls block in the
 * connection until then, while other threads go on using the handle. */
#include "connection.h"
#include "encode.h"
#include "handle.h"
#include "handle_registry.h"
#include "last_error.h"
#include "message.h"

#include <errno.h>
#include <inttypes.h>

gt_arg gt_arg_buffer(gt_buffer *b) { return (gt_arg){.kind = GT_ARG_BUFFER, .value.buffer = b}; }
gt_arg gt_arg_i32(int32_t v) { return (gt_arg){.kind = GT_ARG_I32, .value.i32 = v}; }
gt_arg gt_arg_u32(uint32_t v) { return (gt_arg){.kind = GT_ARG_U32, .value.u32 = v}; }
gt_arg gt_arg_i64(int64_t v) { return (gt_arg){.kind = GT_ARG_I64, .value.i64 = v}; }
gt_arg gt_arg_u64(uint64_t v) { return (gt_arg){.kind = GT_ARG_U64, .value.u64 = v}; }
gt_arg gt_arg_f32(float v) { return (gt_arg){.kind = GT_ARG_F32, .value.f32 = v}; }
gt_arg gt_arg_f64(double v) { return (gt_arg){.kind = GT_ARG_F64, .value.f64 = v}; }

gt_launch_options gt_launch_options_default(void)
{
    return (gt_launch_options){.schedule = NULL, .tuning = GT_TUNING_AUTO, .budget = 0, .metric = NULL, .wait = NULL,
                               .nwait = 0, .deadline_ms = 0};
}

/* The handles of a launch, looked up under one lock: the client, the kernel's owner, and the
 * first buffer argument that is no live buffer (nargs when none; args NULL is encode.c's to
 * name). Whose buffers the others are is checked as they are encoded. */
typedef struct launch_handles {
    bool client_live;
    gt_client *kernel_owner;
    unsigned dead_buffer;
} launch_handles;

static launch_handles look_up(const gt_client *c, const gt_kernel *k, const gt_arg *args, unsigned nargs)
{
    launch_handles h = {.dead_buffer = nargs};
    gt_handle_lock();
    h.client_live = gt_handle_owner_locked(c, GT_HANDLE_CLIENT) != NULL;
    h.kernel_owner = gt_handle_owner_locked(k, GT_HANDLE_KERNEL);
    for (unsigned i = 0; args && i < nargs && h.dead_buffer == nargs; i++)
        if (args[i].kind == GT_ARG_BUFFER && args[i].value.buffer &&
            !gt_handle_owner_locked(args[i].value.buffer, GT_HANDLE_BUFFER))
            h.dead_buffer = i;
    gt_handle_unlock();
    return h;
}

/* fn is the public function; out may be NULL only when completed (gt_run). */
static int check_launch(const char *fn, gt_client *c, const gt_kernel *k, const gt_range *range, const gt_arg *args,
                        unsigned nargs, bool completed, gt_event *out)
{
    if (out)
        *out = 0;
    launch_handles h = look_up(c, k, args, nargs);
    if (c && !h.client_live)
        return gt_fail_dead(NULL, fn, c, GT_HANDLE_CLIENT);
    if (!c)
        return gt_fail(c, -EINVAL, "%s needs a handle (got NULL)", fn);
    if (!out && !completed)
        return gt_fail(c, -EINVAL, "%s needs a place for the event (got NULL)", fn);
    if (!k)
        return gt_fail(c, -EINVAL, "%s was given no kernel (NULL)", fn);
    if (!h.kernel_owner)
        return gt_fail_dead(c, fn, k, GT_HANDLE_KERNEL);
    if (h.kernel_owner != c)
        return gt_fail(c, -EINVAL,
                       "the kernel belongs to another gridtune handle; a launch takes only its own handle's kernels");
    if (!range)
        return gt_fail(c, -EINVAL, "%s was given no range (NULL)", fn);
    if (h.dead_buffer < nargs)
        return gt_fail(c, -EBADF, "%s: argument %u, the buffer %p, was already released, or its client "
                       "disconnected", fn, h.dead_buffer, (void *)args[h.dead_buffer].value.buffer);
    return 0;
}

/* The launch request; for gt_run (completed) answered when the launch has run, and with the
 * event kept only when the caller wants it (out). */
static int launch_call(const char *fn, gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args,
                       unsigned nargs, const gt_launch_options *opts, bool completed, gt_event *out)
{
    int rc = check_launch(fn, c, k, range, args, nargs, completed, out);
    if (rc)
        return rc;
    cJSON *req = gt_msg_request("launch");
    if (!req || gt_msg_add_id(req, "kernel", k->id) ||
        (completed && (!cJSON_AddStringToObject(req, "answer", "completed") ||
                       (!out && !cJSON_AddFalseToObject(req, "keep_event"))))) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a launch request");
    }
    rc = gt_encode_range(c, req, range);
    if (!rc)
        rc = gt_encode_args(c, req, args, nargs);
    if (!rc)
        rc = gt_encode_options(c, req, opts);
    if (rc) {
        cJSON_Delete(req);
        return rc;
    }
    cJSON *result;
    rc = gt_conn_call(c, req, NULL, 0, out ? &result : NULL);
    if (rc || !out)
        return rc;
    uint64_t ev;
    rc = gt_msg_result_id(c, result, "launch", "event", &ev);
    cJSON_Delete(result);
    if (!rc)
        *out = ev;
    return rc;
}

int gt_launch(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
              const gt_launch_options *opts, gt_event *out)
{
    return launch_call("gt_launch", c, k, range, args, nargs, opts, false, out);
}

int gt_run(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
           const gt_launch_options *opts, gt_event *out)
{
    return launch_call("gt_run", c, k, range, args, nargs, opts, true, out);
}

/* Sends a `type` request naming one event for the public function fn and waits for its
 * answer (in *result when not NULL). */
static int event_call(gt_client *c, const char *fn, const char *type, gt_event ev, cJSON **result)
{
    int rc = gt_handle_check_client(c, fn);
    if (rc)
        return rc;
    if (!c)
        return gt_fail(c, -EINVAL, "%s needs a handle (got NULL)", fn);
    if (ev < 1 || ev > GT_JSON_INT_MAX)
        return gt_fail(c, -EINVAL, "%" PRIu64 " is not an event (events are 1 .. 2^53-1, as gt_launch gave them)", ev);
    cJSON *req = gt_msg_request(type);
    if (!req || gt_msg_add_id(req, "event", ev)) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a %s request", type);
    }
    return gt_conn_call(c, req, NULL, 0, result);
}

int gt_wait(gt_client *c, gt_event ev)
{
    return event_call(c, "gt_wait", "wait", ev, NULL);
}

int gt_report(gt_client *c, gt_event ev, char **json_out)
{
    if (!json_out) {
        int rc = gt_handle_check_client(c, "gt_report");
        return rc ? rc : gt_fail(c, -EINVAL, "gt_report needs a place for the report (got NULL)");
    }
    *json_out = NULL;
    cJSON *result;
    int rc = event_call(c, "gt_report", "report", ev, &result);
    if (rc)
        return rc;
    rc = gt_msg_result_json(c, result, "report", "report", json_out);
    cJSON_Delete(result);
    return rc;
}

int gt_cancel(gt_client *c, gt_event ev)
{
    cJSON *result;
    int rc = event_call(c, "gt_cancel", "cancel", ev, &result);
    if (rc)
        return rc;
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(result, "cancelled");
    bool cancelled = cJSON_IsTrue(done);
    rc = cJSON_IsBool(done) ? 0 : gt_fail(c, -EPROTO, "gridtuned answered gt_cancel without saying whether it took effect");
    cJSON_Delete(result);
    if (rc == 0 && !cancelled)
        rc = gt_fail(c, -EALREADY, "launch %" PRIu64 " is done already, or runs inside gridtuned, which cannot stop it",
                     ev);
    return rc;
}

int gt_event_release(gt_client *c, gt_event ev)
{
    return event_call(c, "gt_event_release", "event_release", ev, NULL);
}
