/* socket_path.h: where gridtuned listens, shared by libgridtune and gridtuned.
 * Per user: $XDG_RUNTIME_DIR/gridtune/gridtuned.sock when XDG_RUNTIME_DIR is an absolute
 * path, else /tmp/gridtune-$UID/gridtuned.sock. The directory is private (mode 0700). In
 * system mode: /run/gridtune/gridtuned.sock, open to one group. */
#ifndef GT_SOCKET_PATH_H
#define GT_SOCKET_PATH_H

#include <stddef.h>

#define GT_SYSTEM_SOCKET_DIR "/run/gridtune"
#define GT_ENV_SOCKET "GRIDTUNE_SOCKET"

/* Writes the per-user socket directory into buf. Returns 0, or -ENAMETOOLONG with a
 * sentence in err. */
int gt_socket_user_dir(char *buf, size_t len, char *err, size_t errlen);
/* Writes dir + "/" + GT_SOCKET_NAME into buf; 0 or -ENAMETOOLONG with a sentence. The
 * limit is sun_path's, so a path that fits can be bound. */
int gt_socket_path_in(const char *dir, char *buf, size_t len, char *err, size_t errlen);
/* The per-user default socket path; 0 or -ENAMETOOLONG with a sentence. */
int gt_socket_user_path(char *buf, size_t len, char *err, size_t errlen);

#endif
