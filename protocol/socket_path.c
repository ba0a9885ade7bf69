/* socket_path.c: the per-user and system socket locations (socket_path.h). */
#include "socket_path.h"

#include "protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/un.h>
#include <unistd.h>

int gt_socket_user_dir(char *buf, size_t len, char *err, size_t errlen)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int n = runtime && runtime[0] == '/' ? snprintf(buf, len, "%s/gridtune", runtime)
                                         : snprintf(buf, len, "/tmp/gridtune-%u", (unsigned)getuid());
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "the socket directory under XDG_RUNTIME_DIR=%s is too long", runtime ? runtime : "");
        return -ENAMETOOLONG;
    }
    return 0;
}

int gt_socket_path_in(const char *dir, char *buf, size_t len, char *err, size_t errlen)
{
    size_t limit = sizeof ((struct sockaddr_un *)0)->sun_path;
    if (len > limit)
        len = limit;
    int n = snprintf(buf, len, "%s/%s", dir, GT_SOCKET_NAME);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "the socket path %s/%s is longer than a Unix socket allows (%zu bytes)", dir,
                 GT_SOCKET_NAME, limit - 1);
        return -ENAMETOOLONG;
    }
    return 0;
}

int gt_socket_user_path(char *buf, size_t len, char *err, size_t errlen)
{
    char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
    int rc = gt_socket_user_dir(dir, sizeof dir, err, errlen);
    return rc ? rc : gt_socket_path_in(dir, buf, len, err, errlen);
}
