/* ab_cold.c: the cold decisions of two gridtuneds side by side (not part of the build).
 * Each round, on each daemon in turn (which goes first alternates): a cold launch that retunes
 * (GT_TUNING_RETUNE), then one warm launch with the schedule it just decided, timed on the
 * client's clock around gt_run. Prints, per daemon, the median warm launch and how often each
 * winner was picked: the warm time is what the decision costs the launches after it; and on
 * stderr a line per launch pair: the daemon (a, b), the round, the warm ms and the pick.
 * With REPORTS, each cold launch's report goes to REPORTS.a.jsonl or REPORTS.b.jsonl, a line
 * each (count_paths.py reads them).
 * usage: ab_cold ROUNDS BENCHMARK SOCKET_A SOCKET_B [REPORTS]   (run.sh starts the daemons) */
#include "seeds_client.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const say_prog = "ab_cold";

#define MAX_ROUNDS 200

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The winner named by a launch's report, into out. */
static void winner_of(const char *report, char *out, size_t len)
{
    cJSON *j = cJSON_Parse(report);
    const cJSON *w = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "decision"), "winner");
    snprintf(out, len, "%s", cJSON_IsString(w) ? w->valuestring : "?");
    cJSON_Delete(j);
}

/* Appends report, made one line, to prefix.a.jsonl (daemon 0) or prefix.b.jsonl. */
static void keep_report(const char *prefix, int d, const char *report)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%c.jsonl", prefix, d ? 'b' : 'a');
    cJSON *j = cJSON_Parse(report);
    char *line = j ? cJSON_PrintUnformatted(j) : NULL;
    FILE *f = line ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
    free(line);
    cJSON_Delete(j);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6 || atoi(argv[1]) < 1 || atoi(argv[1]) > MAX_ROUNDS || !gt_seed_bench_find(argv[2])) {
        fprintf(stderr, "usage: ab_cold ROUNDS(1-%d) BENCHMARK SOCKET_A SOCKET_B [REPORTS]\n", MAX_ROUNDS);
        return 2;
    }
    int rounds = atoi(argv[1]);
    gt_client *c[2];
    cli_seed s[2] = {{0}};
    static char picks[2][MAX_ROUNDS][160];
    static double warm[2][MAX_ROUNDS];
    for (int d = 0; d < 2; d++)
        if (gt_connect(argv[3 + d], &c[d]) != 0 ||
            cli_seed_open(c[d], cli_seeds_module(), gt_seed_bench_find(argv[2]), 0, &s[d]) != 0) {
            fprintf(stderr, "ab_cold: %s: %s\n", argv[3 + d], gt_last_error(NULL));
            return 1;
        }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int d = (k + r) % 2;
            gt_launch_options cold = gt_launch_options_default(), auto_ = gt_launch_options_default();
            cold.tuning = GT_TUNING_RETUNE;
            char *report = NULL;
            uint64_t ns = 0;
            if (cli_seed_run(&s[d], "cold", &cold, &report, &ns) != 0)
                return 1;
            winner_of(report, picks[d][r], sizeof picks[d][r]);
            if (argc == 6)
                keep_report(argv[5], d, report);
            free(report);
            if (cli_seed_run(&s[d], "warm", &auto_, &report, &ns) != 0)
                return 1;
            free(report);
            warm[d][r] = (double)ns / 1e6;
            fprintf(stderr, "%c %d %.3f %s\n", d ? 'b' : 'a', r, warm[d][r], picks[d][r]);
        }
    for (int d = 0; d < 2; d++) {
        printf("%s: %s\n", argv[3 + d], argv[2]);
        for (int r = 0; r < rounds; r++) {
            int seen = 0, n = 0;
            for (int q = 0; q < r && !seen; q++)
                seen = strcmp(picks[d][q], picks[d][r]) == 0;
            for (int q = r; q < rounds && !seen; q++)
                n += strcmp(picks[d][q], picks[d][r]) == 0;
            if (!seen)
                printf("  %3d x %s\n", n, picks[d][r]);
        }
        qsort(warm[d], (size_t)rounds, sizeof warm[d][0], cmp_double);
        printf("  warm launch after each cold one: median %.2f ms, 25-75%% %.2f-%.2f ms\n", warm[d][rounds / 2],
               warm[d][rounds / 4], warm[d][3 * rounds / 4]);
    }
    for (int d = 0; d < 2; d++)
        cli_seed_close(&s[d]);
    return 0;
}
