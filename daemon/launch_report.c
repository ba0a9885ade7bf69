/* launch_report.c: a launch's report, written when first read (launch_report.h). */
#include "launch_report.h"

#include "tuner/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_launch_report {
    unsigned refs;
    gt_tune_config cfg;
    gt_tune_launch launch; /* its strings point into kernel, hash and machine below */
    gt_tune_result result;
    gt_counter_status counters;
    bool counted;
    gt_probe_status probes;
    bool probed;
    unsigned workers;
    char id[24];
    int64_t started;
    char *text; /* once written */
    char *kernel, *hash, *machine;
};

static char *copy(const char *s)
{
    return s ? strdup(s) : NULL;
}

gt_launch_report *gt_launch_report_new(const gt_tune_config *cfg, const gt_tune_launch *tl, gt_tune_result *res,
                                       const gt_counter_status *counters, const gt_probe_status *probes,
                                       unsigned workers, uint64_t id, int64_t started)
{
    gt_launch_report *r = calloc(1, sizeof *r);
    if (r) {
        r->kernel = copy(tl->kernel);
        r->hash = copy(tl->kernel_hash);
        r->machine = copy(tl->machine);
    }
    if (!r || (tl->kernel && !r->kernel) || (tl->kernel_hash && !r->hash) || (tl->machine && !r->machine)) {
        gt_tune_result_free(res);
        gt_launch_report_unref(r);
        return NULL;
    }
    r->refs = 1;
    r->cfg = *cfg;
    r->launch = *tl;
    r->launch.kernel = r->kernel;
    r->launch.kernel_hash = r->hash;
    r->launch.machine = r->machine;
    r->result = *res; /* the candidates move here */
    *res = (gt_tune_result){0};
    r->counted = counters != NULL;
    if (counters)
        r->counters = *counters;
    r->probed = probes != NULL;
    if (probes)
        r->probes = *probes;
    r->workers = workers;
    snprintf(r->id, sizeof r->id, "%" PRIu64, id);
    r->started = started;
    return r;
}

gt_launch_report *gt_launch_report_ref(gt_launch_report *r)
{
    r->refs++;
    return r;
}

void gt_launch_report_unref(gt_launch_report *r)
{
    if (!r || (r->refs && --r->refs > 0))
        return;
    gt_tune_result_free(&r->result);
    free(r->text);
    free(r->kernel);
    free(r->hash);
    free(r->machine);
    free(r);
}

const char *gt_launch_report_text(gt_launch_report *r)
{
    if (r->text)
        return r->text;
    gt_report_input in = {.config = &r->cfg, .launch = &r->launch, .result = &r->result, .counters = r->counted ? &r->counters : NULL,
                          .probes = r->probed ? &r->probes : NULL, .workers = r->workers, .id = r->id,
                          .started = r->started};
    cJSON *report = gt_report_build(&in);
    r->text = report ? cJSON_PrintUnformatted(report) : NULL;
    cJSON_Delete(report);
    return r->text;
}
