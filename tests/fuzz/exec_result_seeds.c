/* exec_result_seeds.c: the seed corpus of fuzz_exec_result, which make_corpus.py cannot write:
 * the seeds are gt_exec_result_write's bytes of this build's structures, so every change to
 * gt_tune_result, gt_candidate or gt_sample makes the committed ones unreadable.
 *
 *   exec_result_seeds write DIR   writes analysis-0.bin, bad-source-0.bin and wisdom-0.bin
 *   exec_result_seeds check DIR   fails unless the first and last read and bad-source is refused
 *
 * ctest runs `check` on tests/fuzz/corpus/exec_result (fuzz_seeds_exec_result), so a structure
 * change that stales the seeds fails the tests instead of silently fuzzing garbage; `write`
 * mends them. */
#include "daemon/executor/exec_result.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SEEDS 3
/* The seeds in the order write_seeds makes them, and whether gt_exec_result_read takes each. */
static const struct {
    const char *name;
    bool reads;
} seeds[SEEDS] = {{"analysis-0.bin", true}, {"bad-source-0.bin", false}, {"wisdom-0.bin", true}};

/* A resumed analysis with two candidates and their samples, its confirmation and refinement. */
static void analysis(gt_tune_result *r, gt_candidate c[2], gt_sample s[2])
{
    char err[256];
    s[0] = (gt_sample){.kind = GT_SAMPLE_LOOK, .start = 64, .runs = 3, .round = 1, .groups = 32, .items = 8192,
                       .wall_ns = 250000, .cost = 30.5, .used = true, .probed = true, .probe = {.page_faults = 3}};
    s[1] = (gt_sample){.kind = GT_SAMPLE_CONFIRM, .start = 128, .runs = 2, .round = 2, .groups = 32, .items = 8192,
                       .wall_ns = 240000, .cost = 29.3, .used = true};
    c[0] = (gt_candidate){.schedule = gt_schedule_default, .nsamples = 1, .samples = &s[0], .median = 30.5,
                          .min = 30.5, .max = 30.5};
    snprintf(c[0].style, sizeof c[0].style, "wisdom");
    c[1] = (gt_candidate){.phase = 2, .nsamples = 2, .samples = s, .median = 29.9, .min = 29.3, .max = 30.5};
    gt_schedule_parse("group=column,span=4,item=tiled:4x4,assign=dynamic:2", &c[1].schedule, err, sizeof err);
    snprintf(c[1].style, sizeof c[1].style, "group=column");
    *r = (gt_tune_result){.source = GT_SOURCE_ANALYSIS, .winner = c[1].schedule, .candidates = c, .ncandidates = 2,
                          .groups_total = 4096, .groups_analysis = 64, .groups_remainder = 4032,
                          .items_per_group = 256, .resumed = true, .unexplored = 1u << GT_AXIS_SPAN,
                          .wisdom_changed = true, .analysis_ns = 1000000, .remainder_ns = 9000000,
                          .total_ns = 10000000, .estimated_gain = 0.25};
    snprintf(r->reason, sizeof r->reason, "won the resumed analysis");
    r->confirmation = (gt_confirmation){.ran = true, .incumbent = 0, .challenger = 1, .replaced = true};
    r->refine = (gt_refine_outcome){.ran = true, .state = 1};
}

/* A refining launch from the wisdom: no candidates, two contenders on a share each. */
static void wisdom(gt_tune_result *r)
{
    char err[256];
    *r = (gt_tune_result){.source = GT_SOURCE_WISDOM, .groups_total = 4096, .groups_remainder = 4096,
                          .items_per_group = 256, .remainder_ns = 5000000, .total_ns = 5000000,
                          .estimated_gain = 1.5};
    snprintf(r->reason, sizeof r->reason, "the wisdom has this kernel, range and worker count on this machine");
    gt_schedule_parse("group=linear,item=column,assign=stealing", &r->winner, err, sizeof err);
    r->refine = (gt_refine_outcome){.ran = true, .nshares = 2, .state = 1, .event = 3, .launch = 2, .incumbent_cost = 1.2};
    r->refine.shares[0] = (gt_refine_share){.cost = 1.5, .event = 1, .p = 0.1};
    r->refine.shares[1] = (gt_refine_share){.cost = 3.5, .event = 3, .cut_short = true, .p = 0.02};
    gt_schedule_parse("group=linear,span=64,item=column,assign=stealing", &r->refine.shares[0].contender, err, sizeof err);
    gt_schedule_parse("group=column,item=column,assign=block", &r->refine.shares[1].contender, err, sizeof err);
}

static int write_seeds(const char *dir)
{
    gt_tune_result r[SEEDS];
    gt_candidate c[2];
    gt_sample s[2];
    analysis(&r[0], c, s);
    r[1] = r[0];
    r[1].source = (gt_decision_source)(GT_SOURCE_DEFAULT + 1);
    wisdom(&r[2]);
    for (int i = 0; i < SEEDS; i++) {
        static unsigned char buf[1 << 16];
        char path[4096];
        size_t n = gt_exec_result_write(&r[i], buf, sizeof buf);
        snprintf(path, sizeof path, "%s/%s", dir, seeds[i].name);
        FILE *f = fopen(path, "wb");
        if (!n || !f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "exec_result_seeds: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}

static int check_seeds(const char *dir)
{
    int bad = 0;
    for (int i = 0; i < SEEDS; i++) {
        static unsigned char buf[1 << 16];
        char path[4096], err[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, seeds[i].name);
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        gt_tune_result r;
        int rc = gt_exec_result_read(buf, n, &r, err, sizeof err);
        gt_tune_result_free(&r);
        if ((rc == 0) != seeds[i].reads) {
            fprintf(stderr, "exec_result_seeds: %s %s (%s); run `exec_result_seeds write %s` to make them again\n",
                    path, seeds[i].reads ? "does not read" : "reads but should not", err, dir);
            bad = 1;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return write_seeds(argv[2]);
    if (argc == 3 && strcmp(argv[1], "check") == 0)
        return check_seeds(argv[2]);
    fprintf(stderr, "usage: exec_result_seeds write|check DIR\n");
    return 2;
}
