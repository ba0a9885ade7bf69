/* say.c: the one-sentence error printer of the gridtune command and the benchmark drivers
 * (say.h). Each program names itself in say_prog, which prefixes every sentence. */
#include "say.h"

#include <stdarg.h>
#include <stdio.h>

void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", say_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
