/* launch.c: launches and their events (gt_launch, gt_wait, gt_report, gt_event_release) and
 * the small value constructors of the API. The daemon answers wait and report only once
 * the launch has completed, so those calls block in the connection until then, while other
 * threads go on using the handle. */
#include "connection.h"
#include "encode.h"
#include "handle.h"
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
                               .nwait = 0};
}

static int check_launch(gt_client *c, const gt_kernel *k, const gt_range *range, gt_event *out)
{
    if (!c || !out)
        return gt_fail(c, -EINVAL, "gt_launch needs a handle and a place for the event (got NULL)");
    *out = 0;
    if (!k)
        return gt_fail(c, -EINVAL, "gt_launch was given no kernel (NULL)");
    if (k->client != c)
        return gt_fail(c, -EINVAL,
                       "the kernel belongs to another gridtune handle; a launch takes only its own handle's kernels");
    if (!range)
        return gt_fail(c, -EINVAL, "gt_launch was given no range (NULL)");
    return 0;
}

int gt_launch(gt_client *c, gt_kernel *k, const gt_range *range, const gt_arg *args, unsigned nargs,
              const gt_launch_options *opts, gt_event *out)
{
    int rc = check_launch(c, k, range, out);
    if (rc)
        return rc;
    cJSON *req = gt_msg_request("launch");
    if (!req || gt_msg_add_id(req, "kernel", k->id)) {
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
    rc = gt_conn_call(c, req, NULL, 0, &result);
    if (rc)
        return rc;
    uint64_t ev;
    rc = gt_msg_result_id(c, result, "launch", "event", &ev);
    cJSON_Delete(result);
    if (!rc)
        *out = ev;
    return rc;
}

/* Sends a request naming one event and waits for its answer (in *result when not NULL). */
static int event_call(gt_client *c, const char *type, gt_event ev, cJSON **result)
{
    if (!c)
        return gt_fail(c, -EINVAL, "%s needs a handle (got NULL)", type);
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
    return event_call(c, "wait", ev, NULL);
}

int gt_report(gt_client *c, gt_event ev, char **json_out)
{
    if (!json_out)
        return gt_fail(c, -EINVAL, "gt_report needs a place for the report (got NULL)");
    *json_out = NULL;
    cJSON *result;
    int rc = event_call(c, "report", ev, &result);
    if (rc)
        return rc;
    rc = gt_msg_result_json(c, result, "report", "report", json_out);
    cJSON_Delete(result);
    return rc;
}

int gt_event_release(gt_client *c, gt_event ev)
{
    return event_call(c, "event_release", ev, NULL);
}
