/* gridtune.c: the gridtune command. One binary; each subcommand is one row of `commands`
 * (a group such as "wisdom" and a verb, or a single word such as "status", its arguments and
 * the function that runs it), so a new subcommand is one function and one row, and --help is
 * printed from the same table. Global flags come before the subcommand:
 * gridtune [--wisdom PATH] wisdom show. The daemon's commands live in cli_daemon.c,
 * cli_demo.c and cli_bench.c. Exit status: 0 done, 1 failed (one sentence on stderr), 2 bad
 * command line. */
#include "cli.h"

#include "tuner/refine.h"
#include "tuner/space.h"
#include "tuner/wisdom.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENV_WISDOM "GRIDTUNE_WISDOM"

typedef struct command {
    const char *group;   /* first word: "wisdom" */
    const char *name;    /* second word: "show"; NULL for a one-word command, which parses its
                            own flags (its argv[0] is the command) */
    const char *args;    /* its arguments, for --help */
    int min_args, max_args;
    int (*run)(const options *o, int argc, char **argv);
    const char *summary;
} command;

static int wisdom_show(const options *o, int argc, char **argv);
static int wisdom_path(const options *o, int argc, char **argv);
static int wisdom_export(const options *o, int argc, char **argv);
static int wisdom_import(const options *o, int argc, char **argv);
static int wisdom_clear(const options *o, int argc, char **argv);

static const command commands[] = {
    {"status", NULL, "[--json]", 0, 0, cli_status, "the daemon: version, workers, counters, probes, launches"},
    {"reports", NULL, "[--json] [--limit N]", 0, 0, cli_reports, "the daemon's recent launch reports as a table"},
    {"demo", NULL, "[--module PATH] [--size N]", 0, 0, cli_demo,
     "launch the seed kernels and one built from source through the daemon, and summarise"},
    {"bench", NULL, "[--bench NAME]... [--rounds N] [--size N] [--oracle] [--json FILE]", 0, 0, cli_bench,
     "time default, cold and warm tuned launches of the seed kernels through the daemon"},
    {"wisdom", "show", "", 0, 0, wisdom_show, "list the remembered schedules as a table"},
    {"wisdom", "path", "", 0, 0, wisdom_path, "print the wisdom file in use"},
    {"wisdom", "export", "[FILE|-]", 0, 1, wisdom_export, "write the wisdom file's format to FILE or stdout (-)"},
    {"wisdom", "import", "FILE|-", 1, 1, wisdom_import,
     "merge a wisdom file (-: stdin) and save; all or nothing (through gridtuned if it runs)"},
    {"wisdom", "clear", "", 0, 0, wisdom_clear,
     "forget every remembered schedule and save (through gridtuned if it runs)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The flags, for getopt_long and for --help; `help` is what usage() prints. */
enum { OPT_WISDOM = 256, OPT_SOCKET, OPT_VERSION };
static const struct flag {
    struct option opt;
    const char *form, *help;
} flags[] = {
    {{"wisdom", required_argument, NULL, OPT_WISDOM}, "    --wisdom PATH",
     "the wisdom file (default: see the environment)"},
    {{"socket", required_argument, NULL, OPT_SOCKET}, "    --socket PATH",
     "the daemon's socket (default: see the environment)"},
    {{"help", no_argument, NULL, 'h'}, "-h, --help", "this text; `gridtune GROUP --help` for one group"},
    {{"version", no_argument, NULL, OPT_VERSION}, "    --version", "print the version"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static const struct env_var {
    const char *name, *help;
} environment[] = {
    {ENV_WISDOM, "the wisdom file, when --wisdom is not given"},
    {"GRIDTUNE_SOCKET", "the daemon's socket, when --socket is not given; else the per-user default"},
    {"GRIDTUNE_NO_AUTOSTART", "1: do not start gridtuned when none answers"},
    {"XDG_STATE_HOME", "else $XDG_STATE_HOME/gridtune/wisdom.json (when set to an absolute path)"},
    {"HOME", "else $HOME/.local/state/gridtune/wisdom.json"},
};

const char *const say_prog = PROG;

static void print_commands(FILE *out, const char *group)
{
    int width = 0;
    char form[128];
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < NCOMMANDS; i++) {
            const command *c = &commands[i];
            if (group && strcmp(c->group, group) != 0)
                continue;
            int n = snprintf(form, sizeof form, "%s%s%s%s%s", c->group, c->name ? " " : "", c->name ? c->name : "",
                             *c->args ? " " : "", c->args);
            if (pass == 0 && n > width)
                width = n;
            if (pass == 1)
                fprintf(out, "  %-*s  %s\n", width, form, c->summary);
        }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: " PROG " [OPTIONS] COMMAND [ARGS]\n"
                 "Talks to the gridtune daemon, gridtuned (started when none runs), and inspects and edits\n"
                 "what gridtune remembers: the wisdom, the schedule decided for each kernel, range, worker\n"
                 "count and machine, which lets a repeated launch skip analysis.\n"
                 "\noptions:\n");
    for (size_t i = 0; i < NFLAGS; i++)
        fprintf(out, "  %-18s  %s\n", flags[i].form, flags[i].help);
    fprintf(out, "\ncommands:\n");
    print_commands(out, NULL);
    fprintf(out, "\nenvironment:\n");
    for (size_t i = 0; i < sizeof environment / sizeof *environment; i++)
        fprintf(out, "  %-18s  %s\n", environment[i].name, environment[i].help);
    fprintf(out, "\nexit status: %d done, %d failed, %d wrong command line\n", EXIT_OK, EXIT_FAILED, EXIT_USAGE);
}

static int usage_error(const char *group, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const char *group, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage:\n");
    if (group)
        print_commands(stderr, group);
    else
        fprintf(stderr, "  " PROG " [OPTIONS] COMMAND [ARGS]; " PROG " --help lists them\n");
    return EXIT_USAGE;
}

/* ---- wisdom ---- */

/* The daemon that owns the wisdom: a running gridtuned, when the user named no file (--wisdom
 * or $GRIDTUNE_WISDOM). It is never started for this. NULL when none answers. */
static gt_client *wisdom_daemon(const options *o)
{
    const char *env = getenv(ENV_WISDOM);
    if (o->wisdom || (env && *env))
        return NULL;
    setenv("GRIDTUNE_NO_AUTOSTART", "1", 1);
    gt_client *c = NULL;
    if (gt_connect(o->socket, &c) == 0)
        return c;
    gt_disconnect(c);
    return NULL;
}

/* The file the daemon uses, from its status. */
static int daemon_wisdom_path(gt_client *c, char *buf, size_t len)
{
    char *text = NULL;
    if (gt_status(c, &text) != 0) {
        say("status: %s", gt_last_error(c));
        return -EIO;
    }
    cJSON *status = cJSON_Parse(text);
    free(text);
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(status, "wisdom"), "path");
    int rc = cJSON_IsString(path) && snprintf(buf, len, "%s", path->valuestring) < (int)len ? 0 : -EPROTO;
    if (rc)
        say("the daemon's status does not name its wisdom file");
    cJSON_Delete(status);
    return rc;
}

/* The wisdom file: the one --wisdom or $GRIDTUNE_WISDOM names, else the running daemon's,
 * else the default. */
static int resolve_path(const options *o, char *buf, size_t len)
{
    gt_client *daemon = wisdom_daemon(o);
    if (daemon) {
        int rc = daemon_wisdom_path(daemon, buf, len);
        gt_disconnect(daemon);
        return rc;
    }
    const char *path = o->wisdom;
    if (!path) {
        const char *env = getenv(ENV_WISDOM);
        path = env && *env ? env : NULL;
    }
    if (path) {
        if (snprintf(buf, len, "%s", path) >= (int)len) {
            say("wisdom path \"%.64s...\" is too long", path);
            return -ENAMETOOLONG;
        }
        return 0;
    }
    char err[256];
    int rc = gt_wisdom_default_path(buf, len, err, sizeof err);
    if (rc)
        say("%s; set " ENV_WISDOM " or use --wisdom PATH", err);
    return rc;
}

/* All of a file ("-": stdin) as a string, for sending to the daemon. NULL after saying why. */
static char *read_text(const char *path)
{
    bool std_in = strcmp(path, "-") == 0;
    FILE *f = std_in ? stdin : fopen(path, "re");
    if (!f) {
        say("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *text = malloc(cap);
    while (text) {
        n += fread(text + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *more = realloc(text, cap *= 2);
        if (!more)
            free(text);
        text = more;
    }
    bool failed = ferror(f);
    if (!std_in)
        fclose(f);
    if (!text || failed) {
        say("cannot read %s: %s", std_in ? "standard input" : path, text ? strerror(EIO) : "out of memory");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Opens the wisdom, printing the warning when its file was set aside. */
static gt_wisdom *open_wisdom(const options *o)
{
    char path[PATH_MAX], err[1024];
    if (resolve_path(o, path, sizeof path))
        return NULL;
    gt_wisdom *w = NULL;
    if (gt_wisdom_open(path, &w, err, sizeof err) != 0) {
        say("%s", err);
        return NULL;
    }
    if (*gt_wisdom_warning(w))
        say("warning: %s", gt_wisdom_warning(w));
    return w;
}

static int save(gt_wisdom *w)
{
    char err[1024];
    if (gt_wisdom_save(w, err, sizeof err) == 0)
        return EXIT_OK;
    say("%s", err);
    return EXIT_FAILED;
}

enum {
    COL_KERNEL, COL_RANGE, COL_WORKERS, COL_SCHEDULE, COL_METRIC, COL_COST, COL_GAIN, COL_DECIDED, COL_USER,
    COL_REFINE, NCOLS
};
static const char *const column_names[NCOLS] = {"kernel", "range", "workers", "schedule", "metric",
                                                "cost", "gain", "decided", "user", "refine"};
#define CELL_MAX GT_SCHEDULE_TEXT_MAX

/* 8192x8192/16x16: global sizes / local sizes of the used dimensions. */
static void format_range(const gt_range *r, char *buf, size_t len)
{
    int n = 0;
    for (unsigned d = 0; d < r->dims; d++)
        n += snprintf(buf + n, len - (size_t)n, "%s%zu", d ? "x" : "", r->global[d]);
    for (unsigned d = 0; d < r->dims; d++)
        n += snprintf(buf + n, len - (size_t)n, "%s%zu", d ? "x" : "/", r->local[d]);
}

/* "settled", or "refining 3 launches, 2 contenders" while launches still compare contenders,
   and "; resumes group+span" while the next launch resumes the analysis over those axes. */
static void format_refine(const gt_wisdom_refine *r, char *buf, size_t len)
{
    if (r->state == GT_REFINE_SETTLED) {
        snprintf(buf, len, "%s", gt_refine_state_name(r->state));
        return;
    }
    int n = snprintf(buf, len, "%s %u launch%s, %u contender%s", gt_refine_state_name(r->state), r->launches,
                     r->launches == 1 ? "" : "es", r->ncontenders, r->ncontenders == 1 ? "" : "s");
    const char *sep = "; resumes ";
    for (int a = 0; gt_refine_can_resume(r) && a < GT_AXIS_COUNT && n > 0 && (size_t)n < len; a++)
        if (r->unexplored & (1u << a)) {
            n += snprintf(buf + n, len - (size_t)n, "%s%s", sep, gt_axis_name((gt_axis)a));
            sep = "+";
        }
}

static void format_row(const gt_wisdom_key *k, const gt_wisdom_entry *e, char cells[NCOLS][CELL_MAX])
{
    format_refine(&e->refine, cells[COL_REFINE], CELL_MAX);
    snprintf(cells[COL_KERNEL], CELL_MAX, "%s", k->kernel);
    format_range(&k->range, cells[COL_RANGE], CELL_MAX);
    snprintf(cells[COL_WORKERS], CELL_MAX, "%u", k->workers);
    gt_schedule_format(&e->schedule, cells[COL_SCHEDULE], CELL_MAX);
    snprintf(cells[COL_METRIC], CELL_MAX, "%s", e->metric);
    if (isnan(e->cost))
        snprintf(cells[COL_COST], CELL_MAX, "-");
    else
        snprintf(cells[COL_COST], CELL_MAX, "%.4g", e->cost);
    if (isnan(e->gain))
        snprintf(cells[COL_GAIN], CELL_MAX, "-");
    else
        snprintf(cells[COL_GAIN], CELL_MAX, "%+.1f%%", e->gain * 100);
    time_t t = (time_t)e->decided;
    struct tm tm;
    if (gmtime_r(&t, &tm) && strftime(cells[COL_DECIDED], CELL_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
        return;
    snprintf(cells[COL_DECIDED], CELL_MAX, "%" PRId64, e->decided);
}

/* Who stored the entry: the user's name, else the uid, "-" when the file does not say. */
static void format_user(const gt_wisdom *w, size_t index, char *buf, size_t len)
{
    uint32_t uid;
    struct passwd pw, *found = NULL;
    char names[1024];
    if (!gt_wisdom_owner(w, index, &uid))
        snprintf(buf, len, "-");
    else if (getpwuid_r((uid_t)uid, &pw, names, sizeof names, &found) == 0 && found)
        snprintf(buf, len, "%s", found->pw_name);
    else
        snprintf(buf, len, "%u", (unsigned)uid);
}

static int wisdom_show(const options *o, int argc, char **argv)
{
    (void)argc, (void)argv;
    gt_wisdom *w = open_wisdom(o);
    if (!w)
        return EXIT_FAILED;
    size_t n = gt_wisdom_count(w);
    if (n == 0) {
        printf("no entries in %s\n", gt_wisdom_path(w));
        gt_wisdom_close(w);
        return EXIT_OK;
    }
    char (*cells)[NCOLS][CELL_MAX] = calloc(n, sizeof *cells);
    if (!cells) {
        say("out of memory listing %zu entries", n);
        gt_wisdom_close(w);
        return EXIT_FAILED;
    }
    int width[NCOLS];
    for (int c = 0; c < NCOLS; c++)
        width[c] = (int)strlen(column_names[c]);
    for (size_t i = 0; i < n; i++) {
        gt_wisdom_key k;
        gt_wisdom_entry e;
        gt_wisdom_get(w, i, &k, &e);
        format_row(&k, &e, cells[i]);
        format_user(w, i, cells[i][COL_USER], CELL_MAX);
        for (int c = 0; c < NCOLS; c++)
            if ((int)strlen(cells[i][c]) > width[c])
                width[c] = (int)strlen(cells[i][c]);
    }
    for (int c = 0; c < NCOLS; c++)
        printf("%-*s%s", c + 1 < NCOLS ? width[c] : 0, column_names[c], c + 1 < NCOLS ? "  " : "\n");
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < NCOLS; c++)
            printf("%-*s%s", c + 1 < NCOLS ? width[c] : 0, cells[i][c], c + 1 < NCOLS ? "  " : "\n");
    free(cells);
    gt_wisdom_close(w);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

static int wisdom_path(const options *o, int argc, char **argv)
{
    (void)argc, (void)argv;
    char path[PATH_MAX];
    if (resolve_path(o, path, sizeof path))
        return EXIT_FAILED;
    printf("%s\n", path);
    return EXIT_OK;
}

static int wisdom_export(const options *o, int argc, char **argv)
{
    gt_wisdom *w = open_wisdom(o);
    if (!w)
        return EXIT_FAILED;
    char err[1024];
    int rc = gt_wisdom_export(w, argc ? argv[0] : "-", err, sizeof err);
    if (rc)
        say("%s", err);
    gt_wisdom_close(w);
    return rc ? EXIT_FAILED : EXIT_OK;
}

static int wisdom_import_daemon(gt_client *c, const char *path)
{
    char *text = read_text(path), file[PATH_MAX];
    size_t merged = 0;
    int status = EXIT_FAILED;
    if (text && gt_daemon_wisdom_import(c, text, &merged) != 0) {
        say("%s", gt_last_error(c));
    } else if (text && daemon_wisdom_path(c, file, sizeof file) == 0) {
        printf("imported %zu entr%s into the wisdom of the running gridtuned (%s)\n", merged, merged == 1 ? "y" : "ies",
               file);
        status = EXIT_OK;
    }
    free(text);
    gt_disconnect(c);
    return status;
}

static int wisdom_import(const options *o, int argc, char **argv)
{
    (void)argc;
    gt_client *daemon = wisdom_daemon(o);
    if (daemon)
        return wisdom_import_daemon(daemon, argv[0]);
    gt_wisdom *w = open_wisdom(o);
    if (!w)
        return EXIT_FAILED;
    char err[1024];
    size_t before = gt_wisdom_count(w), merged = 0;
    int status = EXIT_FAILED;
    if (gt_wisdom_import(w, argv[0], &merged, err, sizeof err) != 0)
        say("%s", err);
    else if ((status = save(w)) == EXIT_OK)
        printf("imported %zu entr%s into %s: %zu new, %zu replaced\n", merged, merged == 1 ? "y" : "ies",
               gt_wisdom_path(w), gt_wisdom_count(w) - before, merged - (gt_wisdom_count(w) - before));
    gt_wisdom_close(w);
    return status;
}

static int wisdom_clear(const options *o, int argc, char **argv)
{
    (void)argc, (void)argv;
    gt_client *daemon = wisdom_daemon(o);
    if (daemon) {
        size_t cleared = 0;
        char file[PATH_MAX];
        int status = EXIT_FAILED;
        if (gt_daemon_wisdom_clear(daemon, &cleared) != 0) {
            say("%s", gt_last_error(daemon));
        } else if (daemon_wisdom_path(daemon, file, sizeof file) == 0) {
            printf("cleared %zu entr%s from the wisdom of the running gridtuned (%s)\n", cleared,
                   cleared == 1 ? "y" : "ies", file);
            status = EXIT_OK;
        }
        gt_disconnect(daemon);
        return status;
    }
    gt_wisdom *w = open_wisdom(o);

    if (!w)
        return EXIT_FAILED;
    size_t n = gt_wisdom_count(w);
    gt_wisdom_clear(w);
    int status = save(w);
    if (status == EXIT_OK)
        printf("cleared %zu entr%s from %s\n", n, n == 1 ? "y" : "ies", gt_wisdom_path(w));
    gt_wisdom_close(w);
    return status;
}

/* ---- dispatch ---- */

static bool is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static bool group_exists(const char *group)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].group, group) == 0)
            return true;
    return false;
}

/* argv[0] is the group, argv[1] the verb, the rest its arguments. */
static int dispatch(const options *o, int argc, char **argv)
{
    const char *group = argv[0];
    if (!group_exists(group))
        return usage_error(NULL, "unknown command \"%s\"", group);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].group, group) == 0 && !commands[i].name)
            return commands[i].run(o, argc, argv);
    if (argc < 2)
        return usage_error(group, "%s needs a command", group);
    if (is_help(argv[1])) {
        printf("usage: " PROG " [OPTIONS] %s COMMAND [ARGS]\n", group);
        print_commands(stdout, group);
        return EXIT_OK;
    }
    const command *c = NULL;
    for (size_t i = 0; i < NCOMMANDS && !c; i++)
        if (strcmp(commands[i].group, group) == 0 && commands[i].name && strcmp(commands[i].name, argv[1]) == 0)
            c = &commands[i];
    if (!c)
        return usage_error(group, "unknown command \"%s %s\"", group, argv[1]);
    int nargs = argc - 2;
    char **args = argv + 2;
    for (int i = 0; i < nargs; i++) {
        if (is_help(args[i])) {
            printf("usage: " PROG " [OPTIONS] %s %s %s\n  %s\n", c->group, c->name, c->args, c->summary);
            return EXIT_OK;
        }
        if (strcmp(args[i], "--") == 0) { /* what follows is an argument, even "-x" */
            memmove(&args[i], &args[i + 1], (size_t)(nargs - i - 1) * sizeof *args);
            nargs--;
            break;
        }
        if (args[i][0] == '-' && args[i][1])
            return usage_error(group, "%s %s: unknown option \"%s\"", c->group, c->name, args[i]);
    }
    if (nargs < c->min_args || nargs > c->max_args)
        return usage_error(group, "%s %s takes %s", c->group, c->name, *c->args ? c->args : "no arguments");
    return c->run(o, nargs, args);
}

int main(int argc, char **argv)
{
    struct option longopts[NFLAGS + 1];
    for (size_t i = 0; i < NFLAGS; i++)
        longopts[i] = flags[i].opt;
    longopts[NFLAGS] = (struct option){0};
    options o = {0};
    opterr = 0; /* our own messages, prefixed with PROG rather than argv[0] */
    int c;
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_WISDOM:
            if (!*optarg)
                return usage_error(NULL, "--wisdom needs a path");
            o.wisdom = optarg;
            break;
        case OPT_SOCKET:
            if (!*optarg)
                return usage_error(NULL, "--socket needs a path");
            o.socket = optarg;
            break;
        case 'h':
            usage(stdout);
            return EXIT_OK;
        case OPT_VERSION:
            printf(PROG " %s\n", GT_VERSION);
            return EXIT_OK;
        case ':':
            return usage_error(NULL, "%s needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256)
                return usage_error(NULL, "unknown option \"-%c\"", optopt);
            return usage_error(NULL, "unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return usage_error(NULL, "no command given");
    return dispatch(&o, argc - optind, argv + optind);
}
