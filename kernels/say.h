/* say.h: the one-sentence error printer of the gridtune command, the benchmark drivers and
 * the seed cases they launch through gridtuned (seeds_client.h). */
#ifndef GT_SAY_H
#define GT_SAY_H

/* Prints "say_prog: <sentence>" on stderr (kernels/say.c); each program defines say_prog. */
extern const char *const say_prog;
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
