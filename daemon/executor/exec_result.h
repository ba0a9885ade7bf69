/* exec_result.h: a launch's tuner result (gt_tune_result) as the executor sends it back, so
 * that gridtuned writes the report itself, only when someone reads it, as it does for the
 * launches it runs in-process: writing JSON in the executor cost every launch ~18 us of CPU,
 * ~57 us on its path on 2 cores. The bytes are the structures themselves (the executor comes
 * from the same build: exec_msg.h), but gridtuned reads them as untrusted input: a kernel can
 * write anything into the reply. */
#ifndef GT_EXEC_RESULT_H
#define GT_EXEC_RESULT_H

#include "tuner/tune.h"

#include <stddef.h>

/* More candidates than any candidate space has: a result that claims more is refused. */
#define GT_EXEC_RESULT_MAX_CANDIDATES 4096u

/* Writes r into buf (cap bytes): the result, its candidates, then each one's samples. Returns
 * the bytes written, or 0 when they do not fit. */
size_t gt_exec_result_write(const gt_tune_result *r, void *buf, size_t cap);

/* Reads len bytes as gt_exec_result_write wrote them into *out, checked: counts within the
 * bytes, every enum in range, every bool 0 or 1, strings terminated, schedules well formed,
 * confirmation indices within the candidates. 0, or -EPROTO with a sentence; *out is then
 * empty. Free a result read with gt_tune_result_free. */
int gt_exec_result_read(const void *buf, size_t len, gt_tune_result *out, char *err, size_t errlen);

#endif
