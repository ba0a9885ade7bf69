/* fuzz_request.c: the request parsers gridtuned runs on what a client sends: a launch's
 * range, arguments, options, answer and keep_event (daemon/requests/launch_parse.c), a kernel
 * build's options (daemon/build/build_options.c) and a wisdom document (tuner/wisdom.c). The
 * input is a request's JSON, routed by its type as the handlers route it; or 'o' and an option
 * string; or 'w' and a wisdom file. The session is a fake that only counts answers: every
 * parser must answer a request it refuses exactly once, and one it accepts not at all. */
#include "fuzz.h"

#include "daemon/build/build.h"
#include "daemon/build/build_options.h"
#include "daemon/log.h"
#include "daemon/requests/launch_parse.h"
#include "tuner/grid.h"
#include "tuner/wisdom.h"

#include <errno.h>
#include <string.h>

/* ---- the fake session: the boundary daemon/requests/reply.c answers through ---- */

static unsigned answers, mark;

void gt_session_send(gt_session *s, cJSON *msg, const char *request)
{
    (void)s;
    (void)request;
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(msg, "message");
    FUZZ_CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "code")));
    FUZZ_CHECK(cJSON_IsString(message) && message->valuestring[0]);
    answers++;
    cJSON_Delete(msg);
}

void gt_session_close(gt_session *s, const char *reason)
{
    (void)s;
    fprintf(stderr, "the fake session was closed: %s\n", reason);
    abort();
}

void gt_log(gt_log_level level, const char *fmt, ...)
{
    (void)level;
    (void)fmt;
}

static void begin(void)
{
    mark = answers;
}

static bool answered(bool ok)
{
    FUZZ_CHECK(answers == mark + !ok);
    return ok;
}

/* Buffers 1..NBUFFERS exist in the session; kernels are picked by id from the signatures
 * the traces show: the seeds' (two or three buffers and a count), the demo's scale kernel
 * with every scalar kind, and one with a typedef'd scalar. */
#define NBUFFERS 64
static gt_daemon daemon_state;
static gt_session session = {.d = &daemon_state};

static const gt_param_desc transpose_params[] = {
    {"dst", "float *", GT_PARAM_BUFFER, 8}, {"src", "const float *", GT_PARAM_BUFFER_RO, 8}, {"n", "int32_t", GT_PARAM_SCALAR, 4}};
static const gt_param_desc conv_params[] = {{"dst", "float *", GT_PARAM_BUFFER, 8},
                                            {"src", "const float *", GT_PARAM_BUFFER_RO, 8},
                                            {"w", "const float *", GT_PARAM_BUFFER_RO, 8},
                                            {"n", "uint32_t", GT_PARAM_SCALAR, 4}};
static const gt_param_desc scale_params[] = {
    {"x", "double *", GT_PARAM_BUFFER, 8},       {"a", "double", GT_PARAM_SCALAR, 8},
    {"b", "float", GT_PARAM_SCALAR, 4},          {"off", "int64_t", GT_PARAM_SCALAR, 8},
    {"mask", "uint64_t", GT_PARAM_SCALAR, 8},    {"count", "uint32_t", GT_PARAM_SCALAR, 4}};
static const gt_param_desc typedef_params[] = {{"x", "real_t", GT_PARAM_SCALAR, 4}, {"y", "real_t *", GT_PARAM_BUFFER, 8}};
#define KERNEL(name, params) {GT_KERNEL_ABI_VERSION, sizeof params / sizeof *params, name, params, NULL, 0, 0}
static const gt_kernel_desc kernels[] = {KERNEL("transpose", transpose_params), KERNEL("conv3", conv_params),
                                         KERNEL("scale", scale_params), KERNEL("typed", typedef_params)};

static void session_setup(void)
{
    static gt_shm buffers[NBUFFERS];
    static double data[NBUFFERS][8];
    if (session.buffers.count)
        return;
    for (unsigned i = 0; i < NBUFFERS; i++) {
        buffers[i] = (gt_shm){.data = data[i], .size = sizeof data[i], .refs = 1, .fd = -1};
        FUZZ_CHECK(gt_idtable_add(&session.buffers, i + 1, &buffers[i]) == 0);
    }
}

/* ---- the parsers ---- */

static void check_schedule(const gt_schedule *s)
{
    char text[GT_SCHEDULE_TEXT_MAX], err[256];
    gt_schedule again;
    int n = gt_schedule_format(s, text, sizeof text);
    FUZZ_CHECK(n > 0 && (size_t)n < sizeof text);
    FUZZ_CHECK(gt_schedule_parse(text, &again, err, sizeof err) == 0 && gt_schedule_equal(&again, s));
}

/* Each part as daemon/requests/launches.c reads it; a bad part does not stop the others from being tried. */
static void fuzz_launch(const gt_request *r)
{
    const cJSON *msg = r->msg;
    uint64_t kid = 0;
    begin();
    answered(gt_field_id(r, msg, "kernel", &kid));
    const gt_kernel_desc *k = &kernels[kid % (sizeof kernels / sizeof *kernels)];

    gt_range range;
    char err[512];
    begin();
    if (answered(gt_parse_range(r, cJSON_GetObjectItemCaseSensitive(msg, "range"), &range)))
        FUZZ_CHECK(gt_range_check(&range, err, sizeof err) == 0 && range.dims >= 1 && range.dims <= 3);

    const cJSON *args;
    gt_arg_value values[GT_MAX_ARGS];
    gt_shm *bufs[GT_MAX_ARGS];
    unsigned nargs = 0;
    begin();
    if (answered(gt_field_typed(r, msg, "args", cJSON_Array, "an array of arguments", &args))) {
        begin();
        if (answered(gt_parse_args(r, args, k, values, bufs, &nargs))) {
            FUZZ_CHECK(nargs == k->nparams);
            for (unsigned i = 0; i < nargs; i++)
                FUZZ_CHECK(values[i].is_buffer ? bufs[i] && values[i].v.ptr == bufs[i]->data
                                               : !bufs[i] && values[i].size == k->params[i].size);
        }
    }

    gt_tune_config cfg = gt_tune_config_default();
    unsigned deadline_ms = 0;
    begin();
    if (answered(gt_parse_options(r, cJSON_GetObjectItemCaseSensitive(msg, "options"), &cfg, &deadline_ms))) {
        FUZZ_CHECK(gt_tune_config_check(&cfg, err, sizeof err) == 0);
        if (cfg.forced)
            check_schedule(&cfg.schedule);
    }

    /* an event is forgotten only by a launch answered on completion */
    gt_launch_answer answer;
    begin();
    if (answered(gt_parse_answer(r, msg, &answer)))
        FUZZ_CHECK(answer.keep_event || answer.on_completion);
}

/* An accepted option string keys the build cache by its text: parsing that text again must
 * give the same options. */
static void fuzz_build_options(const char *options)
{
    gt_build_options o, again;
    char err[512] = "";
    int rc = gt_build_options_parse(options, &o, err, sizeof err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL && err[0]);
        return;
    }
    FUZZ_CHECK(o.count <= GT_BUILD_MAX_OPTIONS && strlen(o.text) <= strlen(options));
    FUZZ_CHECK(gt_build_options_parse(o.text, &again, err, sizeof err) == 0);
    FUZZ_CHECK(again.count == o.count && strcmp(again.text, o.text) == 0);
    for (size_t i = 0; i < o.count; i++)
        FUZZ_CHECK(strcmp(o.argv[i], again.argv[i]) == 0 && strlen(o.argv[i]) <= GT_BUILD_MAX_OPTION_LEN);
    gt_build_options_free(&again);
    gt_build_options_free(&o);
}

/* An imported entry is one the wisdom could have stored itself, and is found by its key. */
static void fuzz_wisdom(const char *text, size_t len)
{
    gt_wisdom *w, *copy;
    char err[1024] = "";
    size_t merged = 0;
    /* no file there: the wisdom starts empty and nothing is ever saved */
    FUZZ_CHECK(gt_wisdom_open("/nonexistent/gridtune-fuzz/wisdom.json", &w, err, sizeof err) == 0);
    FUZZ_CHECK(gt_wisdom_open("/nonexistent/gridtune-fuzz/wisdom.json", &copy, err, sizeof err) == 0);
    int rc = gt_wisdom_merge_text(w, text, len, "the fuzzer's wisdom", &merged, err, sizeof err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL && err[0] && gt_wisdom_count(w) == 0);
    } else {
        FUZZ_CHECK(gt_wisdom_count(w) <= merged);
        gt_wisdom_key key;
        gt_wisdom_entry entry, found;
        for (size_t i = 0; gt_wisdom_get(w, i, &key, &entry); i++) {
            FUZZ_CHECK(gt_wisdom_lookup(w, &key, &found) && gt_schedule_equal(&found.schedule, &entry.schedule));
            FUZZ_CHECK(gt_wisdom_store(copy, &key, &entry, err, sizeof err) == 0);
            check_schedule(&entry.schedule);
        }
        FUZZ_CHECK(gt_wisdom_count(copy) == gt_wisdom_count(w));
    }
    size_t keys = gt_wisdom_count(w);
    gt_wisdom_close(copy);
    gt_wisdom_close(w);
    /* the same merge into a wisdom of two entries at most: it evicts, and finds what it kept */
    FUZZ_CHECK(gt_wisdom_open_memory(&w) == 0 && gt_wisdom_limit(w, 2) == 0);
    FUZZ_CHECK(gt_wisdom_merge_text(w, text, len, "the fuzzer's wisdom", NULL, err, sizeof err) == rc);
    FUZZ_CHECK(gt_wisdom_count(w) == (keys < 2 ? keys : 2) && gt_wisdom_evicted(w) >= keys - gt_wisdom_count(w));
    gt_wisdom_key key;
    for (size_t i = 0; gt_wisdom_get(w, i, &key, NULL); i++)
        FUZZ_CHECK(gt_wisdom_lookup(w, &key, NULL));
    gt_wisdom_close(w);
}

/* What the handlers (daemon/requests/: buffers.c, kernels.c, status.c, wisdom.c) read before
 * any of them needs a daemon. */
static void fuzz_request(const cJSON *msg)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    gt_request r = {.s = &session, .msg = msg, .type = cJSON_IsString(type) ? type->valuestring : NULL};
    begin();
    answered(gt_field_id(&r, msg, "id", &r.id));
    begin();
    answered(gt_fields_known(&r, msg, "protocol client size buffer path name source options kernel range args wait "
                             "answer keep_event event limit wisdom", "type id"));
    if (!r.type)
        return;
    if (strcmp(r.type, "launch") == 0) {
        fuzz_launch(&r);
    } else if (strcmp(r.type, "kernel_build") == 0) {
        const char *options;
        begin();
        if (answered(gt_field_string(&r, msg, "options", true, true, &options)) && options)
            fuzz_build_options(options);
    } else if (strcmp(r.type, "wisdom_import") == 0) {
        const cJSON *doc;
        begin();
        char *text = answered(gt_field_typed(&r, msg, "wisdom", cJSON_Object, "a wisdom document", &doc)) && doc
                         ? cJSON_PrintUnformatted(doc)
                         : NULL;
        if (text)
            fuzz_wisdom(text, strlen(text));
        free(text);
    } else {
        uint64_t v;
        const char *s;
        static const char *const ids[] = {"buffer", "kernel", "event"}, *const strings[] = {"client", "path", "name"};
        for (size_t i = 0; i < 3; i++) {
            begin();
            answered(gt_field_id(&r, msg, ids[i], &v));
            begin();
            answered(gt_field_string(&r, msg, strings[i], true, false, &s));
        }
        begin();
        answered(gt_field_uint(&r, msg, "limit", 1, 1000, true, 20, &v));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    session_setup();
    /* the parsers take NUL-terminated text, as the frame reader hands it over */
    char *text = malloc(size + 1);
    FUZZ_CHECK(text);
    memcpy(text, data, size);
    text[size] = '\0';
    if (size && text[0] == 'o') {
        fuzz_build_options(text + 1);
    } else if (size && text[0] == 'w') {
        fuzz_wisdom(text + 1, size - 1);
    } else {
        cJSON *msg = cJSON_ParseWithLength(text, size);
        if (cJSON_IsObject(msg))
            fuzz_request(msg);
        cJSON_Delete(msg);
    }
    free(text);
    return 0;
}
