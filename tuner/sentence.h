/* sentence.h: the one helper that writes a failure's sentence for the caller, the way every
 * layer reports errors (STYLE.md: a negative errno and a sentence naming the bad value). */
#ifndef GT_TUNER_SENTENCE_H
#define GT_TUNER_SENTENCE_H

#include <stddef.h>

/* Writes the formatted sentence into err (when err is not NULL and errlen > 0) and returns rc,
 * so that `return gt_sentence_fail(err, errlen, -EINVAL, "...", ...);` reports and fails at once. */
int gt_sentence_fail(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
