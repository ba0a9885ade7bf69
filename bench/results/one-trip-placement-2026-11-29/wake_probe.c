/* wake_probe.c: what a busy CPU costs a thread woken onto it. A client pinned to CPU 0 makes
 * round trips over a Unix socket with an echo process pinned to CPU 1, while a third process
 * pinned to CPU 0 does nothing (mode 0), polls with sched_yield (1), polls with pause (2),
 * sleeps in nanosleep (3), polls with sched_yield as SCHED_IDLE (4) or at nice 19 (5).
 * Build: cc -O2 -o wake_probe wake_probe.c; run: ./wake_probe MODE. Prints the median and the
 * 90th percentile of 3000 round trips, in microseconds. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIPS 3000

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void busy(int mode)
{
    pin(0);
    if (mode == 4) {
        struct sched_param p = {0};
        sched_setscheduler(0, SCHED_IDLE, &p);
    } else if (mode == 5 && nice(19) == -1) {
        perror("nice");
    }
    struct timespec pause_1us = {0, 1000};
    for (;;) {
        if (mode == 2)
            for (int i = 0; i < 200; i++)
                __builtin_ia32_pause();
        else if (mode == 3)
            nanosleep(&pause_1us, NULL);
        else
            sched_yield();
    }
}

int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 0, sv[2];
    if (mode < 0 || mode > 5 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        fprintf(stderr, "usage: wake_probe MODE (0-5)\n");
        return 2;
    }
    pid_t hog = 0;
    if (mode && (hog = fork()) == 0)
        busy(mode);
    pid_t echo = fork();
    if (echo == 0) {
        char b[64];
        pin(1);
        while (read(sv[1], b, sizeof b) > 0)
            if (write(sv[1], b, 32) != 32)
                break;
        _exit(0);
    }
    pin(0);
    usleep(10000);
    static double t[TRIPS];
    char b[64] = {0};
    for (int i = 0; i < TRIPS; i++) {
        double s = now_us();
        if (write(sv[0], b, sizeof b) != sizeof b || read(sv[0], b, sizeof b) <= 0)
            return 1;
        t[i] = now_us() - s;
    }
    qsort(t, TRIPS, sizeof t[0], by_value);
    printf("mode %d: median %.1f us, 90th percentile %.1f us\n", mode, t[TRIPS / 2], t[TRIPS * 9 / 10]);
    if (hog)
        kill(hog, SIGKILL);
    close(sv[0]);
    kill(echo, SIGKILL);
    while (wait(NULL) > 0)
        ;
    return 0;
}
