/* fuzz_exec_result.c: a tuner result as an executor process sends it back (daemon/executor/
 * exec_result.h), which gridtuned must read as untrusted bytes: a kernel can write anything
 * into the reply. A result that is read is written out as a report, as gridtuned does when a
 * client asks for it, and written back to the bytes it came from (checked). The seeds are
 * results gt_exec_result_write made (make_corpus.py cannot: they are this build's structures);
 * exec_result_seeds.c writes them, and ctest checks they still read. */
#include "fuzz.h"

#include "daemon/executor/exec_result.h"
#include "tuner/report.h"

#include <cjson/cJSON.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_tune_result r;
    char err[256];
    if (gt_exec_result_read(data, size, &r, err, sizeof err) != 0)
        return 0;
    gt_tune_config cfg = gt_tune_config_default();
    gt_tune_launch tl = {.kernel = "fuzz", .kernel_hash = "0123456789abcdef", .machine = "0123456789abcdef",
                         .range = {.dims = 1, .global = {64, 1, 1}, .local = {64, 1, 1}}};
    gt_report_input in = {.config = &cfg, .launch = &tl, .result = &r, .workers = 2, .id = "1"};
    cJSON *report = gt_report_build(&in);
    char *text = report ? cJSON_PrintUnformatted(report) : NULL;
    FUZZ_CHECK(!report || text);
    free(text);
    cJSON_Delete(report);
    static uint8_t again[1 << 20];
    size_t n = gt_exec_result_write(&r, again, sizeof again);
    FUZZ_CHECK(n == 0 || n == size);
    gt_tune_result_free(&r);
    return 0;
}
