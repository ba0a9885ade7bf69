/* build_options.c: the allow list for a kernel build's options.
 * The module a build makes is loaded into the daemon, so an option passes only when it steers code
 * generation, warnings, the language standard or macros: exact -O/-g levels, -march/-mtune/-mcpu,
 * named ISA extensions, named code-generation -f options and -D/-U/-W/-std. Anything else is
 * refused, and a second table only explains why, naming the class (sanitizers, profiling, plugins,
 * linker input, other files...). Values hold no '/', so none can name a file; a -D value is free
 * text, since it only reaches the preprocessor, and the compiler's sandbox keeps reads in bounds. */
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
/* No ',': that keeps out -Wl,..., -Wa,... and -Wp,..., which pass options to the linker,
 * the assembler and the preprocessor. */
#define WARNING_CHARS ALNUM "_.+=-"
#define IDENT_FIRST "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
#define IDENT_CHARS ALNUM "_"
/* How much of an over-long option a sentence quotes. */
#define QUOTE_MAX 32

#define ALLOWED_SUMMARY                                                                                   \
    "allowed: -O0..-O3, -Os, -Ofast, -Og, -g, -g0..-g3, -w, -march=, -mtune=, -mcpu=, an ISA extension " \
    "such as -mavx2 or -mno-fma, a code-generation -f option such as -ffast-math, -funroll-loops or "     \
    "-fvect-cost-model= (and its -fno- form), -DNAME[=VALUE], -UNAME, -W<warning>, -std=, -pedantic"

static const char *const exact_options[] = {"-O0", "-O1", "-O2", "-O3", "-Os", "-Ofast", "-Og", "-g", "-g0",
                                            "-g1", "-g2", "-g3", "-w", "-pedantic", "-pedantic-errors"};

/* How a listed -f or -m option takes a value. */
enum takes { BARE, VALUE, EITHER };

typedef struct named_option {
    const char *name; /* after "-f" or "-m" */
    enum takes takes;
} named_option;

/* -f options that only change the code generated for the kernel itself: none reads or writes a
 * file, links a library, loads a plugin or calls out of the kernel's code. */
static const named_option features[] = {
    {"fast-math", BARE},           {"unroll-loops", BARE},          {"unroll-all-loops", BARE},
    {"peel-loops", BARE},          {"tree-vectorize", BARE},        {"tree-loop-vectorize", BARE},
    {"tree-slp-vectorize", BARE},  {"vect-cost-model", EITHER},     {"simd-cost-model", VALUE},
    {"openmp-simd", BARE},         {"omit-frame-pointer", BARE},    {"strict-aliasing", BARE},
    {"inline", BARE},              {"inline-functions", BARE},      {"inline-small-functions", BARE},
    {"inline-limit", VALUE},       {"associative-math", BARE},      {"reciprocal-math", BARE},
    {"finite-math-only", BARE},    {"signed-zeros", BARE},          {"trapping-math", BARE},
    {"rounding-math", BARE},       {"math-errno", BARE},            {"fp-contract", VALUE},
    {"excess-precision", VALUE},   {"cx-limited-range", BARE},      {"single-precision-constant", BARE},
    {"signed-char", BARE},         {"unsigned-char", BARE},         {"wrapv", BARE},
    {"prefetch-loop-arrays", BARE}, {"align-loops", EITHER},        {"align-functions", EITHER},
    {"align-jumps", EITHER},       {"align-labels", EITHER},        {"schedule-insns", BARE},
    {"schedule-insns2", BARE},     {"gcse", BARE},                  {"ipa-cp-clone", BARE},
    {"ipa-pta", BARE},             {"loop-interchange", BARE},      {"loop-unroll-and-jam", BARE},
    {"tree-loop-distribution", BARE}, {"split-loops", BARE},        {"unswitch-loops", BARE},
    {"version-loops-for-strides", BARE}, {"predictive-commoning", BARE}, {"ivopts", BARE},
    {"tree-pre", BARE},            {"tree-partial-pre", BARE},      {"tracer", BARE},
    {"variable-expansion-in-unroller", BARE}, {"builtin", BARE},   {"jump-tables", BARE},
    {"common", BARE},              {"diagnostics-color", EITHER},   {"max-errors", VALUE},
};

/* -m options that pick instruction-set extensions or a vector width (-march= and the like have
 * their own rules). */
static const named_option machine_options[] = {
    {"sse", BARE},      {"sse2", BARE},     {"sse3", BARE},     {"ssse3", BARE},    {"sse4", BARE},
    {"sse4.1", BARE},   {"sse4.2", BARE},   {"sse4a", BARE},    {"avx", BARE},      {"avx2", BARE},
    {"fma", BARE},      {"fma4", BARE},     {"f16c", BARE},     {"bmi", BARE},      {"bmi2", BARE},
    {"popcnt", BARE},   {"lzcnt", BARE},    {"avx512f", BARE},  {"avx512vl", BARE}, {"avx512bw", BARE},
    {"avx512dq", BARE}, {"avx512cd", BARE}, {"avx512vnni", BARE}, {"avx512bf16", BARE},
    {"avx512fp16", BARE}, {"avxvnni", BARE}, {"prefer-vector-width", VALUE},
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

/* -Wl, -Wa and -Wp without a comma are refused too: they only ever mean the other tools. */
static bool is_warning(const char *s)
{
    if (!strcmp(s, "l") || !strcmp(s, "a") || !strcmp(s, "p"))
        return false;
    return !*s || only(s, WARNING_CHARS);
}

/* s is a listed name, bare or =value as the list says; "no-" turns off a name that can stand bare. */
static bool is_listed(const char *s, const named_option *list, size_t n)
{
    bool negated = strncmp(s, "no-", 3) == 0;
    if (negated)
        s += 3;
    size_t len = strcspn(s, "=");
    for (size_t i = 0; i < n; i++) {
        if (strlen(list[i].name) != len || strncmp(s, list[i].name, len) != 0)
            continue;
        if (!s[len])
            return list[i].takes != VALUE;
        return !negated && list[i].takes != BARE && is_value(s + len + 1);
    }
    return false;
}

static bool is_feature(const char *s)
{
    return is_listed(s, features, sizeof features / sizeof *features);
}

static bool is_machine_option(const char *s)
{
    return is_listed(s, machine_options, sizeof machine_options / sizeof *machine_options);
}

static const struct option_rule {
    const char *prefix;
    bool (*check)(const char *rest);
} option_rules[] = {
    {"-march=", is_value}, {"-mtune=", is_value},  {"-mcpu=", is_value}, {"-std=", is_value},
    {"-f", is_feature},    {"-m", is_machine_option}, {"-D", is_define}, {"-U", is_identifier},
    {"-W", is_warning},
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

/* ---- why an option is refused ------------------------------------------------------------------
 * Only the sentence comes from here: what passes is decided by the allow list above alone. */

#define WHY_SANITIZER "sanitizer options are refused: a sanitizer's runtime would be loaded into the daemon, and it can end the daemon"
#define WHY_PROFILE "it instruments the code for profiling or coverage, or reads or writes profile files"
#define WHY_INSTRUMENT "it instruments the code with calls into other code"
#define WHY_PLUGIN "it loads a plugin into the compiler"
#define WHY_SPECS "it reads a specs file, which can make the compiler run other programs"
#define WHY_PROGRAMS "it makes the compiler run other programs as its parts"
#define WHY_LINKER "it passes options to the linker, past this check"
#define WHY_ASSEMBLER "it passes options to the assembler, past this check"
#define WHY_PREPROCESSOR "it passes options to the preprocessor, past this check"
#define WHY_LIBRARIES "it links other libraries or startup files into the module, whose code would run in the daemon"
#define WHY_HEADERS "it reads headers from other directories or files; the include path is kernel.h's directory and the system's headers"
#define WHY_FILES "it names, reads or writes other files"
#define WHY_INPUT "it changes the input, which is the request's source and nothing else"
#define WHY_NO_MODULE "it stops the compiler before a module is made"
#define WHY_RECORD "it writes the compiler's command line, with the daemon's paths, into the module"
#define WHY_UNLISTED "it is not on the allow list, or its value is not of the allowed form"

static const struct refusal {
    const char *text;
    bool exact; /* else a prefix */
    const char *why;
} refusals[] = {
    {"-fsanitize", false, WHY_SANITIZER},      {"-fno-sanitize", false, WHY_SANITIZER},
    {"-fprofile", false, WHY_PROFILE},         {"-fno-profile", false, WHY_PROFILE},
    {"-fcoverage", false, WHY_PROFILE},        {"--coverage", true, WHY_PROFILE},
    {"-ftest-coverage", true, WHY_PROFILE},    {"-fauto-profile", false, WHY_PROFILE},
    {"-fbranch-probabilities", true, WHY_PROFILE}, {"-pg", true, WHY_INSTRUMENT},
    {"-p", true, WHY_INSTRUMENT},              {"-finstrument-functions", false, WHY_INSTRUMENT},
    {"-mfentry", true, WHY_INSTRUMENT},        {"-mrecord-mcount", true, WHY_INSTRUMENT},
    {"-mnop-mcount", true, WHY_INSTRUMENT},    {"-fpatchable-function-entry", false, WHY_INSTRUMENT},
    {"-fplugin", false, WHY_PLUGIN},           {"-specs", false, WHY_SPECS},
    {"--specs", false, WHY_SPECS},             {"-B", false, WHY_PROGRAMS},
    {"-wrapper", true, WHY_PROGRAMS},          {"-no-integrated-cpp", true, WHY_PROGRAMS},
    {"-fuse-ld", false, WHY_PROGRAMS},         {"-Xlinker", true, WHY_LINKER},
    {"-Wl,", false, WHY_LINKER},               {"-Wl", true, WHY_LINKER},
    {"-Xassembler", true, WHY_ASSEMBLER},      {"-Wa,", false, WHY_ASSEMBLER},
    {"-Wa", true, WHY_ASSEMBLER},              {"-Xpreprocessor", true, WHY_PREPROCESSOR},
    {"-Wp,", false, WHY_PREPROCESSOR},         {"-Wp", true, WHY_PREPROCESSOR},
    {"-l", false, WHY_LIBRARIES},              {"-L", false, WHY_LIBRARIES},
    {"-fopenmp", true, WHY_LIBRARIES},         {"-fopenacc", true, WHY_LIBRARIES},
    {"-static", false, WHY_LIBRARIES},         {"-nostdlib", true, WHY_LIBRARIES},
    {"-nodefaultlibs", true, WHY_LIBRARIES},   {"-nostartfiles", true, WHY_LIBRARIES},
    {"-I", false, WHY_HEADERS},                {"-i", false, WHY_HEADERS},
    {"--sysroot", false, WHY_HEADERS},         {"-nostdinc", true, WHY_HEADERS},
    {"@", false, WHY_FILES},                   {"-o", false, WHY_FILES},
    {"-save-temps", false, WHY_FILES},         {"-M", false, WHY_FILES},
    {"-dump", false, WHY_FILES},               {"-fdump", false, WHY_FILES},
    {"-frecord-gcc-switches", true, WHY_RECORD}, {"-fopt-info", false, WHY_FILES},
    {"-fstack-usage", true, WHY_FILES},        {"-fcallgraph-info", false, WHY_FILES},
    {"-gsplit-dwarf", true, WHY_FILES},        {"-aux-info", true, WHY_FILES},
    {"-fdebug-prefix-map", false, WHY_FILES},  {"-ffile-prefix-map", false, WHY_FILES},
    {"-fmacro-prefix-map", false, WHY_FILES},  {"-fsave-optimization-record", false, WHY_FILES},
    {"-fcompare-debug", false, WHY_FILES},     {"-x", false, WHY_INPUT},
    {"-E", true, WHY_NO_MODULE},               {"-c", true, WHY_NO_MODULE},
    {"-S", true, WHY_NO_MODULE},               {"-fsyntax-only", true, WHY_NO_MODULE},
};

static const char *why_refused(const char *o)
{
    if (o[0] != '-')
        return WHY_INPUT;
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
        const struct refusal *r = &refusals[i];
        if (r->exact ? strcmp(o, r->text) == 0 : strncmp(o, r->text, strlen(r->text)) == 0)
            return r->why;
    }
    return WHY_UNLISTED;
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
        snprintf(err, errlen, "option \"%s\" is not allowed in a kernel build: %s (%s)", o, why_refused(o),
                 ALLOWED_SUMMARY);
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
