/* build_options.c: the allow list for a kernel build's options.
 * An option passes when it only steers code generation, warnings, the language standard or
 * macros. Values are limited to characters no path needs (no '/'), so no value can name a file
 * outside the compiler's working directory; the -f options that take a file name even so, or load
 * code, are refused by name. A -D value is free text: it only reaches the preprocessor. */
#include "build_options.h"

#include "build.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPACES " \t\n\r\v\f"
#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#define VALUE_CHARS ALNUM "_.,:+-"
#define FEATURE_NAME_CHARS ALNUM "_-"
/* No ',': that keeps out -Wl,..., -Wa,... and -Wp,..., which pass options to the linker,
 * the assembler and the preprocessor. */
#define WARNING_CHARS ALNUM "_.+=-"
#define IDENT_FIRST "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
#define IDENT_CHARS ALNUM "_"
/* How much of an over-long option a sentence quotes. */
#define QUOTE_MAX 32

#define ALLOWED_SUMMARY                                                                           \
    "allowed: -O0..-O3, -Os, -Ofast, -Og, -g, -march=, -mtune=, -f<name>[=value] and -fno-<name> " \
    "(not -fplugin, -fdump, -fprofile or others that read or write files), -DNAME[=VALUE], "       \
    "-UNAME, -W<name> (not -Wl, -Wa, -Wp), -std=, -pedantic"

static const char *const exact_options[] = {"-O0", "-O1", "-O2", "-O3", "-Os", "-Ofast", "-Og", "-g",
                                            "-pedantic", "-pedantic-errors"};

/* -f options that write or read files, or load code, whatever their value. */
static const char *const refused_features[] = {
    "plugin",       "dump",          "profile",   "opt-info",       "save-optimization-record",
    "callgraph-info", "stack-usage", "auto-profile", "use-ld",      "compare-debug",
};

static bool only(const char *s, const char *chars)
{
    return *s && strspn(s, chars) == strlen(s);
}

static bool is_value(const char *s)
{
    return only(s, VALUE_CHARS);
}

/* The length of the C identifier s starts with; 0 when it starts with none. */
static size_t identifier_len(const char *s)
{
    return *s && strchr(IDENT_FIRST, *s) ? strspn(s, IDENT_CHARS) : 0;
}

static bool is_identifier(const char *s)
{
    size_t n = identifier_len(s);
    return n && !s[n];
}

/* NAME or NAME=anything */
static bool is_define(const char *s)
{
    size_t n = identifier_len(s);
    return n && (!s[n] || s[n] == '=');
}

static bool is_warning(const char *s)
{
    return !*s || only(s, WARNING_CHARS);
}

/* name or name=value, after "-f"; a -fno- option only turns something off, so it is never refused
 * by name */
static bool is_feature(const char *s)
{
    for (size_t i = 0; i < sizeof refused_features / sizeof *refused_features; i++)
        if (strncmp(s, refused_features[i], strlen(refused_features[i])) == 0)
            return false;
    size_t len = strcspn(s, "=");
    if (len == 0 || strspn(s, FEATURE_NAME_CHARS) != len)
        return false;
    return !s[len] || is_value(s + len + 1);
}

static const struct option_rule {
    const char *prefix;
    bool (*check)(const char *rest);
} option_rules[] = {
    {"-march=", is_value}, {"-mtune=", is_value}, {"-std=", is_value},  {"-f", is_feature},
    {"-D", is_define},     {"-U", is_identifier}, {"-W", is_warning},
};

static bool option_allowed(const char *o)
{
    for (size_t i = 0; i < sizeof exact_options / sizeof *exact_options; i++)
        if (strcmp(o, exact_options[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof option_rules / sizeof *option_rules; i++) {
        size_t n = strlen(option_rules[i].prefix);
        if (strncmp(o, option_rules[i].prefix, n) == 0)
            return option_rules[i].check(o + n);
    }
    return false;
}

static int check_option(const char *o, size_t index, char *err, size_t errlen)
{
    if (index == GT_BUILD_MAX_OPTIONS) {
        snprintf(err, errlen, "a kernel build takes at most %u options", GT_BUILD_MAX_OPTIONS);
        return -EINVAL;
    }
    if (strlen(o) > GT_BUILD_MAX_OPTION_LEN) {
        snprintf(err, errlen, "option \"%.*s...\" is longer than %u characters", QUOTE_MAX, o,
                 GT_BUILD_MAX_OPTION_LEN);
        return -EINVAL;
    }
    if (!option_allowed(o)) {
        snprintf(err, errlen, "option \"%s\" is not allowed in a kernel build; " ALLOWED_SUMMARY, o);
        return -EINVAL;
    }
    return 0;
}

void gt_build_options_free(gt_build_options *o)
{
    free(o->argv);
    free(o->text);
    free(o->store);
    *o = (gt_build_options){0};
}

int gt_build_options_parse(const char *options, gt_build_options *out, char *err, size_t errlen)
{
    *out = (gt_build_options){0};
    out->store = strdup(options ? options : "");
    out->argv = calloc(GT_BUILD_MAX_OPTIONS, sizeof *out->argv);
    out->text = out->store ? calloc(strlen(out->store) + 1, 1) : NULL;
    if (!out->argv || !out->text) {
        gt_build_options_free(out);
        snprintf(err, errlen, "out of memory for the build options");
        return -ENOMEM;
    }
    char *save = NULL, *end = out->text;
    for (char *o = strtok_r(out->store, SPACES, &save); o; o = strtok_r(NULL, SPACES, &save)) {
        int rc = check_option(o, out->count, err, errlen);
        if (rc) {
            gt_build_options_free(out);
            return rc;
        }
        if (out->count) /* the text stays no longer than the input */
            *end++ = ' ';
        end = stpcpy(end, o);
        out->argv[out->count++] = o;
    }
    return 0;
}
