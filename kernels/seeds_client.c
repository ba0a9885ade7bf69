/* seeds_client.c: seed cases launched through gridtuned (seeds_client.h). The case's own buffers stay
 * the reference side: the output is poisoned there, copied to the shared buffer before a launch
 * and back after it, and verified there, so a workgroup the daemon skipped shows. */
#include "seeds_client.h"

#include "tuner/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_SEEDS_MODULE_PATHS
#define GT_SEEDS_MODULE_PATHS ""
#endif

const char *cli_seeds_module(void)
{
    static char found[4096];
    char paths[] = GT_SEEDS_MODULE_PATHS, *save = NULL;
    for (char *p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save))
        if (access(p, R_OK) == 0) {
            snprintf(found, sizeof found, "%s", p);
            return found;
        }
    return NULL;
}

/* Shared buffers holding copies of the case's buffers. */
static int share_buffers(cli_seed *s)
{
    const gt_seed_case *sc = s->sc;
    for (unsigned i = 0; i < sc->nbuffers; i++) {
        if (gt_buffer_create(s->c, sc->buffer_bytes[i], &s->buffers[i]) != 0) {
            say("%s: %s", sc->bench->name, gt_last_error(s->c));
            return -1;
        }
        memcpy(gt_buffer_data(s->buffers[i]), sc->buffers[i], sc->buffer_bytes[i]);
    }
    return 0;
}

/* The case's arguments as client arguments: buffers by identity, scalars by their bytes. */
static void case_args(cli_seed *s)
{
    const gt_seed_case *sc = s->sc;
    for (unsigned i = 0; i < sc->nargs; i++) {
        const gt_arg_value *a = &sc->args[i];
        if (a->is_buffer) {
            for (unsigned b = 0; b < sc->nbuffers; b++)
                if (sc->buffers[b] == a->v.ptr)
                    s->args[i] = gt_arg_buffer(s->buffers[b]);
        } else {
            s->args[i] = a->size == 4 ? gt_arg_u32(a->v.u32) : gt_arg_u64(a->v.u64);
        }
    }
}

int cli_seed_open(gt_client *c, const char *module, const gt_seed_bench *b, size_t n, cli_seed *s)
{
    char err[512];
    *s = (cli_seed){.c = c};
    if (gt_seed_case_create(b, n, &s->sc, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    if (share_buffers(s) != 0)
        return -1;
    if (gt_kernel_load(c, module, b->kernel, &s->kernel) != 0) {
        say("%s: %s", b->name, gt_last_error(c));
        return -1;
    }
    case_args(s);
    return 0;
}

void cli_seed_close(cli_seed *s)
{
    gt_kernel_release(s->kernel);
    for (unsigned i = 0; i < GT_SEED_MAX_BUFFERS; i++)
        if (s->buffers[i])
            gt_buffer_release(s->buffers[i]);
    if (s->sc)
        gt_seed_case_destroy(s->sc);
    *s = (cli_seed){0};
}

int cli_launch(gt_client *c, const char *what, gt_kernel *k, const gt_range *range, const gt_arg *args,
               unsigned nargs, const gt_launch_options *opts, char **report, uint64_t *wall_ns)
{
    gt_event ev = 0;
    *report = NULL;
    uint64_t start = gt_clock_ns();
    int rc = gt_run(c, k, range, args, nargs, opts, &ev);
    if (wall_ns)
        *wall_ns = gt_clock_ns() - start;
    if (rc == 0)
        rc = gt_report(c, ev, report);
    if (rc != 0)
        say("%s: %s", what, gt_last_error(c));
    if (ev)
        gt_event_release(c, ev);
    return rc ? -1 : 0;
}

int cli_seed_run(cli_seed *s, const char *what, const gt_launch_options *opts, char **report, uint64_t *wall_ns)
{
    gt_seed_case *sc = s->sc;
    char err[512];
    gt_seed_case_poison_output(sc);
    memcpy(gt_buffer_data(s->buffers[sc->output]), sc->buffers[sc->output], sc->buffer_bytes[sc->output]);
    if (cli_launch(s->c, what, s->kernel, &sc->range, s->args, sc->nargs, opts, report, wall_ns) != 0)
        return -1;
    memcpy(sc->buffers[sc->output], gt_buffer_data(s->buffers[sc->output]), sc->buffer_bytes[sc->output]);
    if (gt_seed_case_verify(sc, err, sizeof err) != 0) {
        say("%s: wrong output: %s", what, err);
        free(*report);
        *report = NULL;
        return -1;
    }
    return 0;
}
