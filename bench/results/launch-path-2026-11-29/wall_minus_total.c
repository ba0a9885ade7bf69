/* wall_minus_total.c: what a seed launch costs outside its workgroups. Launches one seed case
 * through a running gridtuned 33 times (tuning off: the default schedule, no analysis), the
 * first two untimed, and prints the medians of the client's wall time, of the report's
 * phases.total_ns (the workgroups' wall time in the executor) and of their difference.
 * PATH 1 launches with gt_run (one request, answered on completion), 0 with gt_launch and
 * gt_wait. Built against a release build tree (see run.sh):
 *   wall_minus_total SOCKET BENCHMARK MODULE 1|0 */
#include "kernels/seedbench.h"
#include "kernels/seeds_client.h"
#include "tuner/clock.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const say_prog = "wall_minus_total";

enum { WARM = 2, TIMED = 31 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One launch of s's case, one way, timed; its report in *report (free() it). */
static int launch_once(cli_seed *s, const gt_launch_options *o, bool one_request, char **report, uint64_t *wall_ns)
{
    gt_seed_case *sc = s->sc;
    gt_event ev = 0;
    gt_seed_case_poison_output(sc);
    memcpy(gt_buffer_data(s->buffers[sc->output]), sc->buffers[sc->output], sc->buffer_bytes[sc->output]);
    uint64_t t0 = gt_clock_ns();
    int rc = one_request ? gt_run(s->c, s->kernel, &sc->range, s->args, sc->nargs, o, &ev)
                         : gt_launch(s->c, s->kernel, &sc->range, s->args, sc->nargs, o, &ev);
    if (!one_request && rc == 0)
        rc = gt_wait(s->c, ev);
    *wall_ns = gt_clock_ns() - t0;
    if (rc == 0)
        rc = gt_report(s->c, ev, report);
    if (ev)
        gt_event_release(s->c, ev);
    return rc;
}

int main(int argc, char **argv)
{
    const gt_seed_bench *b = argc == 5 ? gt_seed_bench_find(argv[2]) : NULL;
    gt_client *c;
    cli_seed s;
    if (!b || gt_connect(argv[1], &c) != 0 || cli_seed_open(c, argv[3], b, b->default_n, &s) != 0) {
        fprintf(stderr, "usage: wall_minus_total SOCKET BENCHMARK MODULE 1|0 (a running gridtuned)\n");
        return 2;
    }
    bool one_request = atoi(argv[4]) != 0;
    gt_launch_options o = gt_launch_options_default();
    o.tuning = GT_TUNING_OFF;
    double wall[TIMED], total[TIMED], over[TIMED];
    for (int i = 0; i < WARM + TIMED; i++) {
        char *report = NULL;
        uint64_t w;
        if (launch_once(&s, &o, one_request, &report, &w) != 0) {
            fprintf(stderr, "%s: %s\n", b->name, gt_last_error(c));
            return 1;
        }
        cJSON *r = cJSON_Parse(report);
        double t = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "phases"), "total_ns"));
        if (i >= WARM) {
            wall[i - WARM] = w / 1e6;
            total[i - WARM] = t / 1e6;
            over[i - WARM] = (w - t) / 1e3;
        }
        cJSON_Delete(r);
        free(report);
    }
    qsort(wall, TIMED, sizeof wall[0], by_value);
    qsort(total, TIMED, sizeof total[0], by_value);
    qsort(over, TIMED, sizeof over[0], by_value);
    printf("%s %s: client wall median %.2f ms, report total_ns median %.2f ms, wall - total median %.0f us\n", b->name,
           one_request ? "gt_run" : "launch+wait", wall[TIMED / 2], total[TIMED / 2], over[TIMED / 2]);
    cli_seed_close(&s);
    gt_disconnect(c);
    return 0;
}
