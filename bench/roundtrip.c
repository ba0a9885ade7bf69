/* roundtrip.c: launch overhead through gridtuned and its socket floor (roundtrip.h). */
#include "roundtrip.h"

#include "kernels/say.h"
#include "protocol/wire.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char gt_rt_empty_source[] = "#include <gridtune/kernel.h>\nGT_KERNEL(empty)\n{\n}\n";

/* One empty launch the way path says; the event to release after the clock stops in *ev (0: none). */
static int empty_launch(gt_client *c, gt_kernel *k, gt_rt_path path, gt_event *ev)
{
    static const gt_range one = {.dims = 1, .global = {1}, .local = {1}};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    *ev = 0;
    if (path == GT_RT_ONE_TRIP)
        return gt_run(c, k, &one, NULL, 0, &opts, NULL);
    int rc = gt_launch(c, k, &one, NULL, 0, &opts, ev);
    return rc ? rc : gt_wait(c, *ev);
}

int gt_rt_gridtuned(gt_client *c, gt_kernel *k, gt_rt_path path, unsigned reps, uint64_t *ns)
{
    for (unsigned i = 0; i < reps; i++) {
        gt_event ev;
        uint64_t t0 = gt_clock_ns();
        int rc = empty_launch(c, k, path, &ev);
        ns[i] = gt_clock_ns() - t0;
        if (rc != 0) {
            say("empty launch %u: %s", i, gt_last_error(c));
            return -1;
        }
        if (ev && gt_event_release(c, ev) != 0) {
            say("releasing empty launch %u: %s", i, gt_last_error(c));
            return -1;
        }
    }
    return 0;
}

/* The wire size of a traced message: the header plus its JSON text. */
static size_t wire_size(const cJSON *msg)
{
    char *text = cJSON_PrintUnformatted(msg);
    size_t n = text ? strlen(text) + GT_WIRE_HEADER : 0;
    free(text);
    return n;
}

/* Where a trace line goes among the paths' frames: *path and *index, or false for neither.
 * one_trip_id is the id of the latest launch request answered on completion, which tells its
 * answer from a two-request launch's. */
static bool frame_place(const cJSON *line, double *one_trip_id, gt_rt_path *path, unsigned *index)
{
    const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "dir"));
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(line, "msg");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    bool in = dir && strcmp(dir, "in") == 0;
    const char *type = in ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"))
                          : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "request"));
    if (!dir || !type || !cJSON_IsNumber(id))
        return false;
    const char *answer = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "answer"));
    if (strcmp(type, "launch") == 0) {
        if (in && answer && strcmp(answer, "completed") == 0)
            *one_trip_id = id->valuedouble;
        *path = id->valuedouble == *one_trip_id ? GT_RT_ONE_TRIP : GT_RT_TWO_REQUESTS;
        *index = !in;
        return true;
    }
    if (strcmp(type, "wait") == 0) {
        *path = GT_RT_TWO_REQUESTS;
        *index = 2 + !in;
        return true;
    }
    return false;
}

int gt_rt_frame_sizes(const char *trace, gt_rt_frames frames[GT_RT_PATHS])
{
    FILE *f = fopen(trace, "re");
    if (!f) {
        say("cannot read the trace %s: %s", trace, strerror(errno));
        return -1;
    }
    frames[GT_RT_ONE_TRIP] = (gt_rt_frames){.n = 2};
    frames[GT_RT_TWO_REQUESTS] = (gt_rt_frames){.n = 4};
    char *text = NULL;
    size_t cap = 0;
    double one_trip_id = -1;
    while (getline(&text, &cap, f) > 0) {
        cJSON *line = cJSON_Parse(text);
        gt_rt_path path;
        unsigned i;
        if (frame_place(line, &one_trip_id, &path, &i))
            frames[path].size[i] = wire_size(cJSON_GetObjectItemCaseSensitive(line, "msg"));
        cJSON_Delete(line);
    }
    free(text);
    fclose(f);
    for (int p = 0; p < GT_RT_PATHS; p++)
        for (unsigned i = 0; i < frames[p].n; i++)
            if (!frames[p].size[i]) {
                say("the trace %s lacks a frame of the %s exchange", trace,
                    p == GT_RT_ONE_TRIP ? "one-trip launch" : "launch and wait");
                return -1;
            }
    return 0;
}

static int move_bytes(int fd, char *buf, size_t n, int writing)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = writing ? write(fd, buf + done, n - done) : read(fd, buf + done, n - done);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)k;
    }
    return 0;
}

/* The child's side: answer each request with the frame that follows it, until end of file. */
static void echo_main(int fd, const gt_rt_frames *f, char *buf)
{
    for (;;)
        for (unsigned i = 0; i < f->n; i += 2)
            if (move_bytes(fd, buf, f->size[i], 0) || move_bytes(fd, buf, f->size[i + 1], 1))
                _exit(0);
}

int gt_rt_pingpong(const gt_rt_frames *f, unsigned reps, uint64_t *ns)
{
    size_t most = 0;
    for (unsigned i = 0; i < f->n; i++)
        most = f->size[i] > most ? f->size[i] : most;
    char *buf = calloc(1, most);
    int sv[2];
    if (!buf || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        say("ping-pong: %s", buf ? strerror(errno) : "no memory");
        free(buf);
        return -1;
    }
    pid_t child = fork();
    if (child == 0) {
        close(sv[0]);
        echo_main(sv[1], f, buf);
    }
    close(sv[1]);
    int rc = child < 0 ? -1 : 0;
    for (unsigned r = 0; rc == 0 && r < reps; r++) {
        uint64_t t0 = gt_clock_ns();
        for (unsigned i = 0; rc == 0 && i < f->n; i += 2)
            rc = move_bytes(sv[0], buf, f->size[i], 1) || move_bytes(sv[0], buf, f->size[i + 1], 0) ? -1 : 0;
        ns[r] = gt_clock_ns() - t0;
    }
    if (rc != 0)
        say("ping-pong: %s", child < 0 ? strerror(errno) : "the echo process stopped");
    close(sv[0]);
    if (child > 0)
        waitpid(child, NULL, 0);
    free(buf);
    return rc;
}
