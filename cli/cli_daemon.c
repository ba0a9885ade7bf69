/* cli_daemon.c: `gridtune status` and `gridtune reports`: what the running daemon says about
 * itself and its recent launches, as text for people or --json for scripts. */
#include "cli.h"

#include "tuner/report_read.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

gt_client *cli_connect(const options *o)
{
    gt_client *c = NULL;
    if (gt_connect(o->socket, &c) != 0) {
        say("cannot reach gridtuned: %s", c ? gt_last_error(c) : gt_last_error(NULL));
        gt_disconnect(c);
        return NULL;
    }
    return c;
}

/* The daemon's status (what = "status") or its `limit` latest reports ("reports") as JSON
 * text; NULL after saying why. */
static char *fetch(const options *o, const char *what, unsigned limit)
{
    gt_client *c = cli_connect(o);
    if (!c)
        return NULL;
    char *text = NULL;
    int rc = strcmp(what, "status") == 0 ? gt_status(c, &text) : gt_reports(c, limit, &text);
    if (rc)
        say("%s: %s", what, gt_last_error(c));
    gt_disconnect(c);
    return rc ? NULL : text;
}

/* Parses "--json" and, when limit is not NULL, "--limit N"; prints help for -h. Returns -1 to
 * go on, else the exit status. */
static int parse_flags(int argc, char **argv, const char *usage, bool *json, unsigned *limit)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"limit", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'}, {0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hn:", longopts, NULL)) != -1) {
        char *end;
        unsigned long v;
        switch (c) {
        case 'j':
            *json = true;
            break;
        case 'n':
            v = strtoul(optarg, &end, 10);
            if (!limit || *end || !*optarg || v < 1 || v > 1000) {
                say("%s: --limit takes an integer from 1 to 1000", argv[0]);
                return EXIT_USAGE;
            }
            *limit = (unsigned)v;
            break;
        case 'h':
            printf("usage: " PROG " %s\n", usage);
            return EXIT_OK;
        default:
            say("%s: unknown option \"%s\"; usage: " PROG " %s", argv[0], argv[optind - 1], usage);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        say("%s: unexpected argument \"%s\"; usage: " PROG " %s", argv[0], argv[optind], usage);
        return EXIT_USAGE;
    }
    return -1;
}

static double num(const cJSON *obj, const char *path)
{
    char key[64];
    snprintf(key, sizeof key, "%s", path);
    const cJSON *v = obj;
    for (char *save = NULL, *k = strtok_r(key, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = cJSON_GetObjectItemCaseSensitive(v, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *obj, const char *path)
{
    char key[64];
    snprintf(key, sizeof key, "%s", path);
    const cJSON *v = obj;
    for (char *save = NULL, *k = strtok_r(key, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = cJSON_GetObjectItemCaseSensitive(v, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void print_counters(const cJSON *s)
{
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(s, "counters"), *e;
    printf("counters:   %s", str(counters, "mode") ? str(counters, "mode") : "?");
    const char *sep = ": ";
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(counters, "used"))
    {
        printf("%s%s", sep, cJSON_IsString(e) ? e->valuestring : "?");
        sep = ", ";
    }
    printf("\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(counters, "unavailable"))
        printf("            unavailable: %s (%s)\n", str(e, "name") ? str(e, "name") : "?",
               str(e, "reason") ? str(e, "reason") : "?");
}

static void print_probes(const cJSON *s)
{
    printf("probes:     %s", str(s, "probes.summary") ? str(s, "probes.summary") : "?");
    if (str(s, "probes.state") && strcmp(str(s, "probes.state"), "on") == 0)
        printf("; %.0f samples disturbed so far", num(s, "probes.disturbed_samples"));
    printf("\n");
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "probes"), "workers"))
        printf("            worker %.0f (tid %.0f): %.0f involuntary switches, %.3f ms preempted, %.0f migrations, "
               "%.0f page faults\n",
               num(w, "worker"), num(w, "tid"), num(w, "involuntary_switches"), num(w, "offcpu_ns") / 1e6,
               num(w, "migrations"), num(w, "page_faults"));
}

static void print_status(const cJSON *s)
{
    long up = (long)num(s, "uptime_s");
    printf("%s (protocol %.0f), pid %.0f, up %ldh%02ldm%02lds, %s mode\n", str(s, "daemon"), num(s, "protocol"),
           num(s, "pid"), up / 3600, up % 3600 / 60, up % 60, str(s, "mode") ? str(s, "mode") : "?");
    printf("socket:     %s\nworkers:    %.0f\n", str(s, "socket"), num(s, "workers"));
    print_counters(s);
    print_probes(s);
    printf("compiler:   %s\n", str(s, "compiler") ? str(s, "compiler") : "none (kernel builds are off)");
    printf("wisdom:     %s, %.0f entries of at most %.0f, %.0f evicted%s%s\n", str(s, "wisdom.path"),
           num(s, "wisdom.entries"), num(s, "wisdom.max_entries"), num(s, "wisdom.evicted"),
           str(s, "wisdom.warning") && *str(s, "wisdom.warning") ? "; " : "",
           str(s, "wisdom.warning") ? str(s, "wisdom.warning") : "");
    if (str(s, "http"))
        printf("http:       %s, %.0f connections open\n", str(s, "http"), num(s, "http_connections"));
    else
        printf("http:       off\n");
    printf("clients:    %.0f (%.0f refused since start)\n", num(s, "clients"), num(s, "clients_refused"));
    printf("held:       %.0f bytes of partly received frames, %.0f bytes of answers not yet read\n",
           num(s, "held_for_clients.partial_frame_bytes"), num(s, "held_for_clients.answer_bytes"));
    const char *huge = str(s, "buffers.huge_pages");
    const char *store = str(s, "buffers.store"), *note = str(s, "buffers.store_note");
    printf("buffers:    %.0f, %.0f bytes (%s, huge pages: %s%s%s)\n", num(s, "buffers.count"), num(s, "buffers.bytes"),
           store ? store : "unknown", huge ? huge : "unknown", note && *note ? "; " : "", note ? note : "");
    printf("launches:   %.0f total, %.0f queued, %.0f running, %.0f succeeded, %.0f failed, %.0f cancelled\n",
           num(s, "launches.total"), num(s, "launches.queued"), num(s, "launches.running"),
           num(s, "launches.succeeded"), num(s, "launches.failed"), num(s, "launches.cancelled"));
    double groups = num(s, "workgroups.total");
    printf("workgroups: %.0f, %.1f%% of them in analysis\n", groups,
           groups > 0 ? 100 * num(s, "workgroups.analysis") / groups : 0.0);
    printf("wisdom hits %.0f, errors answered %.0f\n", num(s, "wisdom_hits"), num(s, "errors"));
}

int cli_status(const options *o, int argc, char **argv)
{
    bool json = false;
    int rc = parse_flags(argc, argv, "status [--json]", &json, NULL);
    if (rc >= 0)
        return rc;
    char *text = fetch(o, "status", 0);
    if (!text)
        return EXIT_FAILED;
    cJSON *s = json ? NULL : cJSON_Parse(text);
    if (json)
        printf("%s\n", text);
    else if (s)
        print_status(s);
    else
        say("status: the daemon's answer is not JSON");
    cJSON_Delete(s);
    free(text);
    return json || s ? EXIT_OK : EXIT_FAILED;
}

/* One table row per report: the launch and the decision a dashboard would show first. */
static void print_report_row(const cJSON *r)
{
    char range[64] = "";
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "range"), "global");
    int dims = (int)num(r, "range.dims"), n = 0;
    for (int d = 0; d < dims && d < 3; d++)
        n += snprintf(range + n, sizeof range - (size_t)n, "%s%.0f", d ? "x" : "",
                      cJSON_IsNumber(cJSON_GetArrayItem(g, d)) ? cJSON_GetArrayItem(g, d)->valuedouble : 0);
    gt_report_summary s;
    gt_report_read(r, &s);
    char gain_text[16] = "-";
    if (!isnan(s.estimated_gain))
        snprintf(gain_text, sizeof gain_text, "%+.0f%%", s.estimated_gain * 100);
    /* a workgroup kernel's local memory; "-" for a kernel run item by item */
    char local[16] = "-";
    const char *form = str(r, "kernel_form");
    if (form && strcmp(form, "workgroup") == 0)
        snprintf(local, sizeof local, "%.0f", num(r, "local_bytes"));
    printf("%-6s %-14s %-11s %7s %-9s %6.1f%% %7s %9.2f  %s\n", str(r, "id") ? str(r, "id") : "-", str(r, "kernel"),
           range, local, s.source, 100 * s.analysis_fraction, gain_text, s.total_ns / 1e6, s.winner);
}

int cli_reports(const options *o, int argc, char **argv)
{
    bool json = false;
    unsigned limit = 20;
    int rc = parse_flags(argc, argv, "reports [--json] [--limit N]", &json, &limit);
    if (rc >= 0)
        return rc;
    char *text = fetch(o, "reports", limit);
    if (!text)
        return EXIT_FAILED;
    cJSON *list = json ? NULL : cJSON_Parse(text);
    if (json) {
        printf("%s\n", text);
    } else if (cJSON_GetArraySize(list) == 0) {
        printf("no reports yet: the daemon keeps the reports of its recent launches\n");
    } else {
        printf("%-6s %-14s %-11s %7s %-9s %7s %7s %9s  %s\n", "id", "kernel", "range", "local", "source", "anal.",
               "gain", "total ms", "winner");
        const cJSON *r;
        cJSON_ArrayForEach(r, list) print_report_row(r);
    }
    cJSON_Delete(list);
    free(text);
    return EXIT_OK;
}
