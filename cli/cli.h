/* cli.h: what the gridtune command's subcommand files share: the global options, the exit
 * statuses, the one-sentence error printer (kernels/say.h), and the subcommands themselves. */
#ifndef GT_CLI_H
#define GT_CLI_H

#include "kernels/say.h"

#include <gridtune/gridtune.h>

#include <stdbool.h>
#include <stdio.h>

#define PROG "gridtune"
#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2

typedef struct options {
    const char *wisdom; /* --wisdom; NULL: $GRIDTUNE_WISDOM, else the default path */
    const char *socket; /* --socket; NULL: $GRIDTUNE_SOCKET, else the per-user default */
} options;

/* Connects to the daemon (starting it when needed), printing why on failure. */
gt_client *cli_connect(const options *o);

/* Subcommands that parse their own flags: argv[0] is the command's name. */
int cli_status(const options *o, int argc, char **argv);
int cli_reports(const options *o, int argc, char **argv);
int cli_demo(const options *o, int argc, char **argv);
int cli_bench(const options *o, int argc, char **argv);

#endif
