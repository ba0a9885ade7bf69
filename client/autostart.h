/* autostart.h: starting gridtuned on demand when gt_connect(NULL) finds no daemon, as gpg
 * starts gpg-agent. The daemon detaches itself; the process started here only reports, by
 * its exit status, whether the socket is listening. */
#ifndef GT_CLIENT_AUTOSTART_H
#define GT_CLIENT_AUTOSTART_H

#include <stdbool.h>
#include <stddef.h>

/* "1" turns autostart off. */
#define GT_ENV_NO_AUTOSTART "GRIDTUNE_NO_AUTOSTART"
/* The daemon program to start, instead of gridtuned from $PATH. */
#define GT_ENV_DAEMON "GRIDTUNE_DAEMON"

bool gt_autostart_enabled(void);

/* Starts the daemon for the socket at path and connects to it: 0 with the socket in *fd, or a
 * negative errno with a sentence in err that says what was tried and how to turn autostart
 * off. first_rc is the error of the connect that found no daemon; the call returns it when
 * the daemon cannot be started. */
int gt_autostart(const char *path, int first_rc, int *fd, char *err, size_t errlen);

#endif
