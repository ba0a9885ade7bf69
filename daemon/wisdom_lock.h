/* wisdom_lock.h: one gridtuned per wisdom file.
 * The socket's lock keeps a second daemon off one socket, but one user's daemons may be given
 * different sockets (another XDG_RUNTIME_DIR under su, cron or ssh) and the same wisdom: each
 * would save its own decisions over the other's, and both would fill the CPUs. So a daemon
 * also holds an exclusive lock on WISDOM.lock for its whole life, in which it writes its pid
 * and socket for the sentence a second one refuses to start with. */
#ifndef GT_WISDOM_LOCK_H
#define GT_WISDOM_LOCK_H

#include <stddef.h>

/* Takes the lock of wisdom for this process (socket: where it serves), in the wisdom's
 * directory, which must exist; *fd holds it, close on exec, until the process ends. -EBUSY with a sentence naming the holder when another
 * daemon holds it, another negative errno when the lock file cannot be made. */
int gt_wisdom_lock_take(const char *wisdom, const char *socket, int *fd, char *err, size_t errlen);

#endif
