/* sentence.c: writing a failure's sentence (sentence.h). */
#include "sentence.h"

#include <stdarg.h>
#include <stdio.h>

int gt_sentence_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
