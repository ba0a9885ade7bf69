/* build_options.h: the compiler options a client may add to a kernel build (internal to gt_build).
 * The module is loaded into the daemon, which may run as a system service, so an option must not
 * load or instrument code (sanitizers, profiling, plugins, libraries), name a file to read or
 * write, or change how the input is taken: only a strict allow list passes. */
#ifndef GT_BUILD_OPTIONS_H
#define GT_BUILD_OPTIONS_H

#include <stddef.h>

typedef struct gt_build_options {
    char **argv;  /* count options, each its own string */
    size_t count;
    char *text;   /* the options joined by single spaces: the form that keys the cache */
    char *store;  /* what argv points into */
} gt_build_options;

/* Splits options (NULL or "" for none) on white space and checks each against the allow list.
 * Returns 0, -EINVAL with a sentence naming the first refused option and why, or -ENOMEM. On success the
 * caller frees *out with gt_build_options_free. */
int gt_build_options_parse(const char *options, gt_build_options *out, char *err, size_t errlen);
void gt_build_options_free(gt_build_options *o);

#endif
