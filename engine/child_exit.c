/* child_exit.c: waiting for a child process's exit under a deadline (child_exit.h). */
#include "child_exit.h"

#include "tuner/clock.h"

#include <errno.h>
#include <sys/wait.h>
#include <time.h>

/* The first and the longest sleep between two checks. */
#define EXIT_POLL_FIRST_NS 100000u
#define EXIT_POLL_MAX_NS 10000000u

int gt_child_await_exit(pid_t pid, uint64_t deadline_ns)
{
    uint64_t pause_ns = EXIT_POLL_FIRST_NS;
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
            return -errno;
        if (info.si_pid == pid)
            return 0;
        uint64_t now = gt_clock_ns();
        if (now >= deadline_ns)
            return -ETIME;
        if (pause_ns > deadline_ns - now)
            pause_ns = deadline_ns - now;
        struct timespec ts = {0, (long)pause_ns}; /* at most EXIT_POLL_MAX_NS, below a second */
        nanosleep(&ts, NULL);
        pause_ns = pause_ns * 2 < EXIT_POLL_MAX_NS ? pause_ns * 2 : EXIT_POLL_MAX_NS;
    }
}
