/* roundtrip.c: launch overhead through gridtuned and its socket floor (roundtrip.h). */
#include "roundtrip.h"

#include "kernels/say.h"
#include "protocol/wire.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char gt_rt_empty_source[] = "#include <gridtune/kernel.h>\nGT_KERNEL(empty)\n{\n}\n";

int gt_rt_gridtuned(gt_client *c, gt_kernel *k, unsigned reps, uint64_t *ns)
{
    gt_range one = {.dims = 1, .global = {1}, .local = {1}};
    gt_launch_options opts = gt_launch_options_default();
    opts.tuning = GT_TUNING_OFF;
    for (unsigned i = 0; i < reps; i++) {
        gt_event ev;
        uint64_t t0 = gt_clock_ns();
        int rc = gt_launch(c, k, &one, NULL, 0, &opts, &ev);
        if (rc == 0)
            rc = gt_wait(c, ev);
        ns[i] = gt_clock_ns() - t0;
        if (rc != 0) {
            say("empty launch %u: %s", i, gt_last_error(c));
            return -1;
        }
        if (gt_event_release(c, ev) != 0) {
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

/* Which of the four frames a trace line is: -1 for none. */
static int frame_index(const cJSON *line)
{
    const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "dir"));
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(line, "msg");
    const char *type = dir && strcmp(dir, "in") == 0
                           ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "type"))
                           : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "request"));
    if (!dir || !type)
        return -1;
    int out = strcmp(dir, "out") == 0;
    if (strcmp(type, "launch") == 0)
        return out;
    if (strcmp(type, "wait") == 0)
        return 2 + out;
    return -1;
}

int gt_rt_frame_sizes(const char *trace, size_t sizes[GT_RT_FRAMES])
{
    FILE *f = fopen(trace, "re");
    if (!f) {
        say("cannot read the trace %s: %s", trace, strerror(errno));
        return -1;
    }
    memset(sizes, 0, GT_RT_FRAMES * sizeof sizes[0]);
    char *text = NULL;
    size_t cap = 0;
    while (getline(&text, &cap, f) > 0) {
        cJSON *line = cJSON_Parse(text);
        int i = frame_index(line);
        if (i >= 0)
            sizes[i] = wire_size(cJSON_GetObjectItemCaseSensitive(line, "msg"));
        cJSON_Delete(line);
    }
    free(text);
    fclose(f);
    for (int i = 0; i < GT_RT_FRAMES; i++)
        if (!sizes[i]) {
            say("the trace %s has no launch and wait exchange", trace);
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
static void echo_main(int fd, const size_t sizes[GT_RT_FRAMES], char *buf)
{
    for (;;)
        for (int i = 0; i < GT_RT_FRAMES; i += 2)
            if (move_bytes(fd, buf, sizes[i], 0) || move_bytes(fd, buf, sizes[i + 1], 1))
                _exit(0);
}

int gt_rt_pingpong(const size_t sizes[GT_RT_FRAMES], unsigned reps, uint64_t *ns)
{
    size_t most = 0;
    for (int i = 0; i < GT_RT_FRAMES; i++)
        most = sizes[i] > most ? sizes[i] : most;
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
        echo_main(sv[1], sizes, buf);
    }
    close(sv[1]);
    int rc = child < 0 ? -1 : 0;
    for (unsigned r = 0; rc == 0 && r < reps; r++) {
        uint64_t t0 = gt_clock_ns();
        for (int i = 0; rc == 0 && i < GT_RT_FRAMES; i += 2)
            rc = move_bytes(sv[0], buf, sizes[i], 1) || move_bytes(sv[0], buf, sizes[i + 1], 0) ? -1 : 0;
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
