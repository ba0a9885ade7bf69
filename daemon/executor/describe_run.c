/* describe_run.c: starting the loader and reading its description (describe_run.h). */
#include "describe_run.h"

#include "engine/child_exit.h"
#include "tuner/clock.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int spawn_loader(const char *loader, const char *path, const char *name, int out_fd, pid_t *pid, char *err,
                        size_t errlen)
{
    char parent[24]; /* so that the loader can tell whether gridtuned went before it asked to die with it */
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    char *argv[] = {"gridtune-exec", "--describe", (char *)path, (char *)name, parent, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    /* standard input from nowhere, whatever the module prints into gridtuned's log, the
       answer on descriptor 3; nothing else of gridtuned's, and every signal at its default */
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    posix_spawn_file_actions_adddup2(&fa, out_fd, GT_DESCRIBE_ANSWER_FD);
    posix_spawn_file_actions_addclosefrom_np(&fa, GT_DESCRIBE_ANSWER_FD + 1);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(pid, loader, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc)
        return gt_sentence_fail(err, errlen, -rc, "cannot start the module loader %s: %s", loader, strerror(rc));
    return 0;
}

/* Reads the loader's answer into buf until it closes its end, the answer outgrows buf, or the
 * deadline passes (-ETIMEDOUT). Returns the length or a negative errno. */
static ssize_t read_answer(int fd, char *buf, size_t cap, uint64_t deadline_ns)
{
    size_t len = 0;
    for (;;) {
        uint64_t now = gt_clock_ns();
        if (now >= deadline_ns)
            return -ETIMEDOUT;
        int left_ms = (int)((deadline_ns - now) / 1000000) + 1;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int n = poll(&pfd, 1, left_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            continue;
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            return (ssize_t)len;
        len += (size_t)got;
        if (len == cap)
            return -EMSGSIZE;
    }
}

/* What the loader's exit says, when it did not exit 0. */
static int loader_failed(int status, const char *path, char *err, size_t errlen)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        return gt_sentence_fail(err, errlen, -EINVAL, "loading the module %s killed its loader with SIG%s (%s)", path,
                                abbrev ? abbrev : "?", strsignal(sig));
    }
    return gt_sentence_fail(err, errlen, -EINVAL, "the loader of the module %s exited with status %d", path,
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The loader's answer, checked: a description, or an error it reports with a known errno. */
static int read_description(const char *text, const char *path, gt_kernel_info *out, char *err, size_t errlen)
{
    cJSON *json = cJSON_Parse(text);
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(json, "kernel");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
    const cJSON *errnum = cJSON_GetObjectItemCaseSensitive(json, "errno");
    int rc;
    if (kernel) {
        rc = gt_kernel_info_read(kernel, out, err, errlen);
    } else if (cJSON_IsString(error) && cJSON_IsNumber(errnum)) {
        int e = errnum->valueint;
        rc = gt_sentence_fail(err, errlen, e == ENOENT || e == ENOMEM ? -e : -EINVAL, "%.900s", error->valuestring);
    } else {
        rc = gt_sentence_fail(err, errlen, -EINVAL, "the loader of the module %s answered something that is not a "
                              "description", path);
    }
    cJSON_Delete(json);
    return rc;
}

int gt_describe_run(const char *loader, const char *path, const char *name, gt_kernel_info *out, char *err,
                    size_t errlen)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return gt_sentence_fail(err, errlen, -errno, "cannot make a pipe for the module loader: %s", strerror(errno));
    pid_t pid;
    int rc = spawn_loader(loader, path, name, fds[1], &pid, err, errlen);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return rc;
    }
    char *buf = malloc(GT_DESCRIBE_ANSWER_MAX + 1);
    uint64_t deadline_ns = gt_clock_ns() + GT_DESCRIBE_TIMEOUT_MS * 1000000ULL;
    ssize_t len = buf ? read_answer(fds[0], buf, GT_DESCRIBE_ANSWER_MAX, deadline_ns) : -ENOMEM;
    close(fds[0]);
    /* The answer ends when the loader closes its end, which a module's constructor may do and
       then stay: its exit is awaited under the same deadline. */
    if (len >= 0 && gt_child_await_exit(pid, deadline_ns) == -ETIME)
        len = -ETIMEDOUT;
    if (len < 0)
        kill(pid, SIGKILL); /* no answer in time, or too long a one: it has nothing more to say */
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (len == -ETIMEDOUT)
        rc = gt_sentence_fail(err, errlen, -ETIMEDOUT, "the module %s did not finish loading within %d s (its "
                              "constructors run then)", path, GT_DESCRIBE_TIMEOUT_MS / 1000);
    else if (len < 0)
        rc = gt_sentence_fail(err, errlen, (int)len, "cannot read the description of %s from its loader: %s", path,
                              len == -EMSGSIZE ? "it is too long" : strerror((int)-len));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = loader_failed(status, path, err, errlen);
    else {
        buf[len] = '\0';
        rc = read_description(buf, path, out, err, errlen);
    }
    free(buf);
    return rc;
}
