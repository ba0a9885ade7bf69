/* server.c: the listening socket and accepting clients (server.h). */
#include "server.h"

#include "accept_guard.h"
#include "log.h"
#include "session.h"

#include "protocol/socket_path.h"
#include "tuner/clock.h"

#include <errno.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LISTEN_BACKLOG 128
/* How long a new daemon waits for a stopping one to exit: the default --stop-grace (10 s), the
   time the stopping one then gives its clients to read their answers, and some. */
#define STOPPING_WAIT_MS 20000
#define STOPPING_POLL_MS 50

struct gt_server {
    gt_daemon *d;
    struct evconnlistener *listener;
    gt_accept_guard *guard; /* pauses accepting while out of descriptors */
    int lock_fd;
    bool socket_made;
};

/* Per-user mode: the directory must be ours and closed to everyone else, since the socket's
 * own mode is not a reliable barrier on every system. */
static int private_dir(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the socket directory %s: %s", dir, strerror(errno));
        return -errno;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the socket directory %s is not a directory", dir);
        return -ENOTDIR;
    }
    if (st.st_uid != getuid()) {
        snprintf(err, errlen, "the socket directory %s belongs to uid %u, not to this user (uid %u); remove it or "
                 "use --socket", dir, (unsigned)st.st_uid, (unsigned)getuid());
        return -EPERM;
    }
    if ((st.st_mode & 077) && chmod(dir, 0700) != 0) {
        snprintf(err, errlen, "cannot make the socket directory %s private: %s", dir, strerror(errno));
        return -errno;
    }
    return 0;
}

static int group_id(const char *name, gid_t *out, char *err, size_t errlen)
{
    struct group *g = getgrnam(name);
    if (!g) {
        snprintf(err, errlen, "the group \"%s\" does not exist; create it (groupadd %s) or give --group", name, name);
        return -ENOENT;
    }
    *out = g->gr_gid;
    return 0;
}

/* System mode: the directory and socket are open to one group. A directory that was there
 * already is given to the group only when it is a private one of this user (systemd's
 * RuntimeDirectory=, or one made for the socket): one that others may enter, such as /tmp or
 * /run, is shared with other programs and stays as it is. */
static int group_dir(const char *dir, gid_t gid, char *err, size_t errlen)
{
    bool made = mkdir(dir, 0750) == 0;
    if (!made && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the socket directory %s: %s", dir, strerror(errno));
        return -errno;
    }
    struct stat st;
    if (!made && (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) { /* a symbolic link is not followed */
        snprintf(err, errlen, "the socket directory %s is not a directory", dir);
        return -ENOTDIR;
    }
    if (!made && (st.st_uid != getuid() || (st.st_mode & 007))) {
        bool group_enters = (st.st_mode & 001) || (st.st_gid == gid && (st.st_mode & 010));
        if (!group_enters)
            gt_log_warn("the socket directory %s is not open to the group %u; its members may not reach the socket",
                        dir, (unsigned)gid);
        return 0;
    }
    if (chown(dir, (uid_t)-1, gid) != 0 || chmod(dir, 0750) != 0) {
        snprintf(err, errlen, "cannot give the socket directory %s to its group: %s", dir, strerror(errno));
        return -errno;
    }
    return 0;
}

static int prepare_dir(gt_daemon *d, gid_t *gid, char *err, size_t errlen)
{
    const gt_daemon_config *cfg = d->cfg;
    char dir[sizeof cfg->socket];
    snprintf(dir, sizeof dir, "%s", cfg->socket);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (cfg->system) {
        int rc = group_id(cfg->group, gid, err, errlen);
        return rc ? rc : group_dir(dir, *gid, err, errlen);
    }
    /* The per-user directory is checked and made private even when named with --socket, as
       libgridtune's autostart does; another directory given is only created when missing. */
    char user[sizeof cfg->socket], unused[256];
    bool is_user_default = gt_socket_user_path(user, sizeof user, unused, sizeof unused) == 0 &&
                           strcmp(user, cfg->socket) == 0;
    if (!cfg->socket_given || is_user_default)
        return private_dir(dir, err, errlen);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the socket directory %s: %s", dir, strerror(errno));
        return -errno;
    }
    return 0;
}

/* The lock is held but the socket is gone: a gridtuned that is stopping (it removes its socket
 * at once and lets its running launch finish, --stop-grace) holds it until it exits. Waiting
 * for that, instead of failing, lets a program that finds no daemon during a restart start the
 * next one. */
static int wait_for_stopping(gt_server *srv, const char *socket, char *err, size_t errlen)
{
    gt_log_info("another gridtuned holds %s.lock without a socket (stopping?); waiting up to %d s for it to exit",
                socket, STOPPING_WAIT_MS / 1000);
    for (int waited = 0; waited < STOPPING_WAIT_MS; waited += STOPPING_POLL_MS) {
        gt_clock_sleep_ms(STOPPING_POLL_MS);
        if (flock(srv->lock_fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK)
            break;
        if (access(socket, F_OK) == 0) {
            snprintf(err, errlen, "another gridtuned already serves %s", socket);
            return -EADDRINUSE;
        }
    }
    snprintf(err, errlen,
             "another gridtuned holds %s.lock but has no socket at %s, and did not exit within %d s: it is stopping "
             "(see its --stop-grace), or its socket was removed while it runs",
             socket, socket, STOPPING_WAIT_MS / 1000);
    return -EBUSY;
}

static int take_lock(gt_server *srv, const char *socket, char *err, size_t errlen)
{
    char path[sizeof ((struct sockaddr_un *)0)->sun_path + 8];
    snprintf(path, sizeof path, "%s.lock", socket);
    srv->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (srv->lock_fd < 0) {
        snprintf(err, errlen, "cannot open the lock file %s: %s", path, strerror(errno));
        return -errno;
    }
    if (flock(srv->lock_fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    int e = errno;
    if (e == EWOULDBLOCK && access(socket, F_OK) != 0 && errno == ENOENT)
        return wait_for_stopping(srv, socket, err, errlen);
    snprintf(err, errlen, e == EWOULDBLOCK ? "another gridtuned already serves %s" : "cannot lock %s: %s", socket,
             strerror(e));
    return e == EWOULDBLOCK ? -EADDRINUSE : -e;
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *addr, int len, void *arg)
{
    (void)l, (void)addr, (void)len;
    gt_server *srv = arg;
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
        gt_log_warn("refused a client: SO_PEERCRED failed: %s", strerror(errno));
        close(fd);
        return;
    }
    if (!srv->d->cfg->system && cred.uid != getuid() && cred.uid != 0) {
        gt_log_warn("refused client %d: it runs as uid %u, and this per-user gridtuned serves uid %u only",
                    (int)cred.pid, (unsigned)cred.uid, (unsigned)getuid());
        close(fd);
        return;
    }
    if (atomic_load(&srv->d->stopping)) {
        close(fd);
        return;
    }
    gt_accept_guard_accepted(srv->guard);
    gt_session_open(srv->d, fd, cred.uid, cred.pid);
}

static int bind_socket(gt_server *srv, gid_t gid, char *err, size_t errlen)
{
    const gt_daemon_config *cfg = srv->d->cfg;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", cfg->socket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
        return -errno;
    }
    /* We hold the lock, so a socket file left here belongs to a daemon that is gone. */
    if (unlink(cfg->socket) != 0 && errno != ENOENT)
        gt_log_warn("cannot remove the stale socket %s: %s", cfg->socket, strerror(errno));
    mode_t old = umask(cfg->system ? 0007 : 0077);
    int rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (rc != 0 || (cfg->system && (chown(cfg->socket, (uid_t)-1, gid) != 0 || chmod(cfg->socket, 0660) != 0)) ||
        listen(fd, LISTEN_BACKLOG) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot listen on %s: %s", cfg->socket, strerror(e));
        close(fd);
        return -e;
    }
    srv->socket_made = true;
    srv->listener = evconnlistener_new(srv->d->base, on_accept, srv, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
                                       -1, fd);
    if (!srv->listener) {
        close(fd);
        snprintf(err, errlen, "cannot watch the socket %s", cfg->socket);
        return -ENOMEM;
    }
    if (!(srv->guard = gt_accept_guard_new(srv->d->base, srv->listener, "clients"))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int gt_server_start(gt_daemon *d, gt_server **out, char *err, size_t errlen)
{
    gt_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    srv->d = d;
    srv->lock_fd = -1;
    gid_t gid = (gid_t)-1;
    int rc = prepare_dir(d, &gid, err, errlen);
    if (!rc)
        rc = take_lock(srv, d->cfg->socket, err, errlen);
    if (!rc)
        rc = bind_socket(srv, gid, err, errlen);
    if (rc) {
        gt_server_free(srv);
        return rc;
    }
    *out = srv;
    return 0;
}

void gt_server_stop_accepting(gt_server *srv)
{
    gt_accept_guard_free(srv->guard);
    srv->guard = NULL;
    if (srv->listener) {
        evconnlistener_free(srv->listener);
        srv->listener = NULL;
    }
    if (srv->socket_made && unlink(srv->d->cfg->socket) != 0 && errno != ENOENT)
        gt_log_warn("cannot remove the socket %s: %s", srv->d->cfg->socket, strerror(errno));
    srv->socket_made = false;
}

void gt_server_free(gt_server *srv)
{
    if (!srv)
        return;
    gt_server_stop_accepting(srv);
    if (srv->lock_fd >= 0)
        close(srv->lock_fd);
    free(srv);
}
