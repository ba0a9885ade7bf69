/* status.c: the status object and the Prometheus metrics (status.h). Both read the figures
 * the loop's thread keeps in d->stats, so they never wait for a running launch. */
#include "status.h"

#include "daemon/executor/exec_proc.h"
#include "daemon/executor/executors.h"

#include "buffer_store.h"
#include "http_conns.h"
#include "session.h"
#include "usage.h"

#include "daemon/build/build.h"
#include "protocol/protocol.h"
#include "tuner/clock.h"
#include "tuner/report.h"

#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

static unsigned http_connections(const gt_daemon *d)
{
    return d->http_conns ? gt_http_conns_open(d->http_conns) : 0;
}

static cJSON *launches_object(const gt_daemon *d)
{
    const gt_daemon_counts *st = &d->stats;
    uint64_t pending = st->launches - st->succeeded - st->failed - st->cancelled;
    /* one that has run but whose completion the loop has not taken yet counts as queued */
    uint64_t running = atomic_load(&d->launches_running);
    running = running < pending ? running : pending;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "total", (double)st->launches);
    cJSON_AddNumberToObject(o, "queued", (double)(pending - running));
    cJSON_AddNumberToObject(o, "running", (double)running);
    cJSON_AddNumberToObject(o, "paused", d->executors ? (double)gt_executors_pauses(d->executors) : 0);
    cJSON_AddNumberToObject(o, "direct", (double)st->direct);
    cJSON_AddNumberToObject(o, "succeeded", (double)st->succeeded);
    cJSON_AddNumberToObject(o, "failed", (double)st->failed);
    cJSON_AddNumberToObject(o, "cancelled", (double)st->cancelled);
    return o;
}

/* The probes' state as reports show it, and what they counted per worker so far (with executor
 * processes: as of the latest reply of gridtuned's own user's executor). */
static void add_probes(cJSON *s, const gt_daemon *d)
{
    if (!gt_report_add_probes(s, &d->probe_status))
        return;
    cJSON *probes = cJSON_GetObjectItemCaseSensitive(s, "probes");
    cJSON *workers = cJSON_AddArrayToObject(probes, "workers");
    cJSON_AddNumberToObject(probes, "disturbed_samples", (double)d->stats.disturbed_samples);
    static gt_exec_worker seen[GT_EXEC_WORKERS_MAX]; /* the loop's thread only */
    unsigned n = 0;
    if (d->own_executor) {
        n = gt_exec_proc_workers(d->own_executor, seen, GT_EXEC_WORKERS_MAX);
    } else if (d->pool && gt_pool_probed(d->pool)) {
        for (n = 0; n < gt_pool_workers(d->pool) && n < GT_EXEC_WORKERS_MAX; n++) {
            pid_t tid;
            gt_pool_worker_probe(d->pool, n, &tid, &seen[n].figures);
            seen[n].tid = (int32_t)tid;
        }
    }
    for (unsigned i = 0; workers && i < n; i++) {
        pid_t tid = seen[i].tid;
        gt_probe_figures f = seen[i].figures;
        cJSON *w = cJSON_CreateObject();
        cJSON_AddNumberToObject(w, "worker", i);
        cJSON_AddNumberToObject(w, "tid", tid);
        cJSON_AddNumberToObject(w, "involuntary_switches", (double)f.involuntary_switches);
        cJSON_AddNumberToObject(w, "offcpu_ns", (double)f.offcpu_ns);
        cJSON_AddNumberToObject(w, "migrations", (double)f.migrations);
        cJSON_AddNumberToObject(w, "page_faults", (double)f.page_faults);
        cJSON_AddItemToArray(workers, w);
    }
}

cJSON *gt_status_build(const gt_daemon *d)
{
    const gt_daemon_config *cfg = d->cfg;
    cJSON *s = cJSON_CreateObject(), *wisdom = cJSON_CreateObject(), *groups = cJSON_CreateObject(),
          *buffers = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "daemon", "gridtuned " GT_VERSION);
    cJSON_AddNumberToObject(s, "protocol", GT_PROTOCOL_VERSION);
    cJSON_AddNumberToObject(s, "pid", (double)getpid());
    cJSON_AddNumberToObject(s, "uptime_s", (double)(gt_clock_unix_ms() - d->started_ms) / 1000.0);
    cJSON_AddStringToObject(s, "mode", cfg->system ? "system" : "user");
    cJSON_AddStringToObject(s, "socket", cfg->socket);
    cJSON_AddNumberToObject(s, "workers", d->workers);
    gt_report_add_counters(s, d->counters ? gt_counters_status(d->counters) : NULL);
    add_probes(s, d);
    if (d->builder)
        cJSON_AddStringToObject(s, "compiler", gt_builder_compiler(d->builder));
    else
        cJSON_AddNullToObject(s, "compiler");
    cJSON_AddStringToObject(wisdom, "path", gt_wisdom_path(d->wisdom));
    gt_wisdom_figures wf = gt_wisdom_saver_figures(d->wisdom_saver);
    cJSON_AddNumberToObject(wisdom, "entries", (double)wf.entries);
    cJSON_AddNumberToObject(wisdom, "max_entries", (double)cfg->max_wisdom_entries);
    cJSON_AddNumberToObject(wisdom, "evicted", (double)wf.evicted);
    cJSON_AddBoolToObject(wisdom, "unsaved", wf.unsaved);
    cJSON_AddStringToObject(wisdom, "warning", gt_wisdom_warning(d->wisdom));
    cJSON_AddItemToObject(s, "wisdom", wisdom);
    if (d->http[0])
        cJSON_AddStringToObject(s, "http", d->http);
    else
        cJSON_AddNullToObject(s, "http");
    cJSON_AddNumberToObject(s, "http_connections", http_connections(d));
    cJSON_AddNumberToObject(s, "clients", d->stats.clients);
    cJSON_AddNumberToObject(s, "clients_refused", (double)d->stats.clients_refused);
    cJSON *clients_held = cJSON_AddObjectToObject(s, "held_for_clients");
    cJSON_AddNumberToObject(clients_held, "partial_frame_bytes", (double)d->partial_bytes);
    cJSON_AddNumberToObject(clients_held, "answer_bytes", (double)atomic_load(&d->output_bytes));
    gt_usage_counts held = gt_usage_total(d->usage);
    cJSON_AddNumberToObject(buffers, "count", held.buffers);
    cJSON_AddNumberToObject(buffers, "bytes", (double)held.buffer_bytes);
    cJSON_AddNumberToObject(buffers, "populating", d->stats.populating);
    cJSON_AddNumberToObject(buffers, "unmapping", d->stats.unmapping);
    cJSON_AddStringToObject(buffers, "huge_pages", d->huge_pages);
    const char *store_note, *store = gt_buffer_stores_kind(d->stores, &store_note);
    cJSON_AddStringToObject(buffers, "store", store);
    cJSON_AddStringToObject(buffers, "store_note", store_note);
    cJSON_AddItemToObject(s, "buffers", buffers);
    cJSON_AddItemToObject(s, "launches", launches_object(d));
    cJSON_AddNumberToObject(groups, "total", (double)d->stats.workgroups);
    cJSON_AddNumberToObject(groups, "analysis", (double)d->stats.workgroups_analysis);
    cJSON_AddItemToObject(s, "workgroups", groups);
    cJSON_AddNumberToObject(s, "wisdom_hits", (double)d->stats.wisdom_hits);
    cJSON_AddNumberToObject(s, "errors", (double)d->stats.errors);
    /* Each Add above fails only without memory; one check of the whole tree catches it. */
    if (!s || !cJSON_GetObjectItemCaseSensitive(s, "errors") || !cJSON_GetObjectItemCaseSensitive(s, "counters") ||
        !cJSON_GetObjectItemCaseSensitive(s, "launches") || !cJSON_GetObjectItemCaseSensitive(s, "workgroups") ||
        !cJSON_GetObjectItemCaseSensitive(s, "buffers") ||
        !cJSON_GetObjectItemCaseSensitive(clients_held, "answer_bytes")) {
        cJSON_Delete(s);
        return NULL;
    }
    return s;
}

int gt_status_metrics(const gt_daemon *d, struct evbuffer *out)
{
    const gt_daemon_counts *st = &d->stats;
    gt_usage_counts held = gt_usage_total(d->usage);
    double fraction = st->workgroups ? (double)st->workgroups_analysis / (double)st->workgroups : 0;
    gt_wisdom_figures wf = gt_wisdom_saver_figures(d->wisdom_saver);
    int n = evbuffer_add_printf(
        out,
        "# HELP gridtune_launches_total Launches received, by outcome.\n"
        "# TYPE gridtune_launches_total counter\n"
        "gridtune_launches_total{outcome=\"succeeded\"} %" PRIu64 "\n"
        "gridtune_launches_total{outcome=\"failed\"} %" PRIu64 "\n"
        "gridtune_launches_total{outcome=\"cancelled\"} %" PRIu64 "\n"
        "# HELP gridtune_launches_pending Launches queued or running.\n"
        "# TYPE gridtune_launches_pending gauge\n"
        "gridtune_launches_pending %" PRIu64 "\n"
        "# HELP gridtune_launch_pauses_total Times a user's executor was paused at the end of its time slice for "
        "another user's.\n"
        "# TYPE gridtune_launch_pauses_total counter\n"
        "gridtune_launch_pauses_total %" PRIu64 "\n"
        "# HELP gridtune_launches_direct_total Small launches the event loop sent straight to their user's "
        "executor, without waking the user's launcher thread.\n"
        "# TYPE gridtune_launches_direct_total counter\n"
        "gridtune_launches_direct_total %" PRIu64 "\n"
        "# HELP gridtune_workgroups_total Workgroups run, by phase.\n"
        "# TYPE gridtune_workgroups_total counter\n"
        "gridtune_workgroups_total{phase=\"analysis\"} %" PRIu64 "\n"
        "gridtune_workgroups_total{phase=\"remainder\"} %" PRIu64 "\n"
        "# HELP gridtune_analysis_fraction Share of all workgroups run during analysis.\n"
        "# TYPE gridtune_analysis_fraction gauge\n"
        "gridtune_analysis_fraction %.6f\n"
        "# HELP gridtune_wisdom_hits_total Launches whose schedule came from the wisdom.\n"
        "# TYPE gridtune_wisdom_hits_total counter\n"
        "gridtune_wisdom_hits_total %" PRIu64 "\n"
        "# HELP gridtune_wisdom_entries Decisions in the wisdom.\n"
        "# TYPE gridtune_wisdom_entries gauge\n"
        "gridtune_wisdom_entries %zu\n"
        "# HELP gridtune_wisdom_evicted_total Decisions evicted to keep the wisdom within --max-wisdom-entries.\n"
        "# TYPE gridtune_wisdom_evicted_total counter\n"
        "gridtune_wisdom_evicted_total %" PRIu64 "\n"
        "# HELP gridtune_errors_total Error answers sent to clients.\n"
        "# TYPE gridtune_errors_total counter\n"
        "gridtune_errors_total %" PRIu64 "\n"
        "# HELP gridtune_samples_disturbed_total Analysis samples the probes marked disturbed.\n"
        "# TYPE gridtune_samples_disturbed_total counter\n"
        "gridtune_samples_disturbed_total %" PRIu64 "\n"
        "# HELP gridtune_clients Connected clients.\n"
        "# TYPE gridtune_clients gauge\n"
        "gridtune_clients %u\n"
        "# HELP gridtune_clients_refused_total Connections refused by --max-clients or --max-user-clients.\n"
        "# TYPE gridtune_clients_refused_total counter\n"
        "gridtune_clients_refused_total %" PRIu64 "\n"
        "# HELP gridtune_partial_frame_bytes Bytes of frames partly received from all clients (--max-partial-bytes).\n"
        "# TYPE gridtune_partial_frame_bytes gauge\n"
        "gridtune_partial_frame_bytes %zu\n"
        "# HELP gridtune_answer_bytes Bytes of answers queued to all clients, not yet read (--max-total-output).\n"
        "# TYPE gridtune_answer_bytes gauge\n"
        "gridtune_answer_bytes %zu\n"
        "# HELP gridtune_http_connections HTTP connections open (--http-max-connections).\n"
        "# TYPE gridtune_http_connections gauge\n"
        "gridtune_http_connections %u\n"
        "# HELP gridtune_buffers Buffers mapped for all clients (each one mapping).\n"
        "# TYPE gridtune_buffers gauge\n"
        "gridtune_buffers %u\n"
        "# HELP gridtune_buffer_bytes Bytes of the buffers mapped for all clients.\n"
        "# TYPE gridtune_buffer_bytes gauge\n"
        "gridtune_buffer_bytes %" PRIu64 "\n",
        st->succeeded, st->failed, st->cancelled, st->launches - st->succeeded - st->failed - st->cancelled,
        d->executors ? gt_executors_pauses(d->executors) : 0, st->direct, st->workgroups_analysis, st->workgroups - st->workgroups_analysis, fraction, st->wisdom_hits,
        wf.entries, wf.evicted, st->errors, st->disturbed_samples, st->clients, st->clients_refused, d->partial_bytes,
        atomic_load(&d->output_bytes), http_connections(d), held.buffers, held.buffer_bytes);
    return n < 0 ? -ENOMEM : 0;
}
