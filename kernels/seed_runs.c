/* seed_runs.c: the benchmark list and the JSON file (seed_runs.h). */
#include "seed_runs.h"

#include "say.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gt_bench_add_all(const gt_seed_bench **list, unsigned *n)
{
    size_t nall;
    const gt_seed_bench *all = gt_seed_benches(&nall);
    *n = 0;
    for (size_t i = 0; i < nall && i < GT_BENCH_MAX_BENCHES; i++)
        list[(*n)++] = &all[i];
}

int gt_bench_json_write(cJSON *root, const char *path)
{
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    errno = ENOMEM; /* what a failed print leaves to say */
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        say("cannot write %s: %s", path, strerror(errno));
    cJSON_free(text);
    return rc;
}
