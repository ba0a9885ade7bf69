/* buffer_store.c: users' tmpfs stores for buffers with huge pages (buffer_store.h). */
#include "buffer_store.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- one store ---- */

/* The steps of making a store, named in its failure. */
enum step { STEP_OPEN, STEP_OPTION, STEP_CREATE, STEP_MOUNT, STEP_NAMESPACE, STEP_MAP, STEP_CHILD };
static const char *const step_names[] = {
    [STEP_OPEN] = "fsopen(\"tmpfs\")", [STEP_OPTION] = "setting its options", [STEP_CREATE] = "creating it",
    [STEP_MOUNT] = "fsmount", [STEP_NAMESPACE] = "unshare(CLONE_NEWUSER | CLONE_NEWNS)",
    [STEP_MAP] = "mapping the user into the new namespace", [STEP_CHILD] = "the process that makes it",
};

static int set_option(int fs, const char *key, const char *value)
{
    return (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, value, 0);
}

/* The mount itself, in the current namespaces. Returns its descriptor, or -1 with errno set and
 * the failed step in *step. Only system calls: it also runs in a forked child. */
static int mount_tmpfs(const char *uid_text, enum step *step)
{
    *step = STEP_OPEN;
    int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
    if (fs < 0)
        return -1;
    int mnt = -1;
    *step = STEP_OPTION;
    /* size 0 and nr_inodes 0 are tmpfs for "no limit", as a memfd has none: a user's buffers are
       limited by gridtuned's --max-user-buffer-bytes, not by a page fault failing with SIGBUS */
    if (set_option(fs, "huge", GT_BUFFER_STORE_HUGE) == 0 && set_option(fs, "mode", "0700") == 0 &&
        set_option(fs, "uid", uid_text) == 0 && set_option(fs, "size", "0") == 0 &&
        set_option(fs, "nr_inodes", "0") == 0) {
        *step = STEP_CREATE;
        if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0) {
            *step = STEP_MOUNT;
            mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
        }
    }
    int e = errno;
    close(fs);
    errno = e;
    return mnt;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

typedef struct child_answer {
    int err;
    int step;
} child_answer;

/* The child's part: a user namespace where it holds CAP_SYS_ADMIN, mapping only its own uid and
 * gid, and a mount namespace owned by it, where tmpfs may be mounted. Sends its answer, with the
 * mount's descriptor when it has one, and ends. */
static void child_mounts(int sock, const char *uid_text, const char *uid_map, const char *gid_map)
{
    child_answer a = {0};
    enum step step = STEP_NAMESPACE;
    int mnt = -1;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) {
        step = STEP_MAP;
        if (write_text("/proc/self/setgroups", "deny") == 0 && write_text("/proc/self/uid_map", uid_map) == 0 &&
            write_text("/proc/self/gid_map", gid_map) == 0)
            mnt = mount_tmpfs(uid_text, &step);
    }
    a.err = mnt < 0 ? errno : 0;
    a.step = (int)step;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control = {0};
    struct iovec iov = {.iov_base = &a, .iov_len = sizeof a};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (mnt >= 0) {
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &mnt, sizeof mnt);
    }
    _exit(sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof a ? 0 : 1);
}

/* Takes the child's answer: the mount's descriptor, or -1 with errno and *step set. */
static int take_child_answer(int sock, enum step *step)
{
    child_answer a = {.err = EPROTO, .step = STEP_CHILD};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = &a, .iov_len = sizeof a};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n;
    while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    int mnt = -1;
    struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&mnt, CMSG_DATA(c), sizeof mnt);
    if (n != (ssize_t)sizeof a || a.err != 0 || mnt < 0) {
        if (mnt >= 0)
            close(mnt);
        *step = n == (ssize_t)sizeof a && a.step >= 0 && a.step <= STEP_CHILD ? (enum step)a.step : STEP_CHILD;
        errno = n == (ssize_t)sizeof a && a.err > 0 ? a.err : EPROTO;
        return -1;
    }
    return mnt;
}

/* mount_tmpfs in a child with namespaces of its own, for a gridtuned without CAP_SYS_ADMIN. */
static int mount_in_child(const char *uid_text, enum step *step)
{
    char uid_map[64], gid_map[64];
    snprintf(uid_map, sizeof uid_map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(gid_map, sizeof gid_map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
    int sv[2];
    *step = STEP_CHILD;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        child_mounts(sv[1], uid_text, uid_map, gid_map);
    }
    int e = errno;
    close(sv[1]);
    int mnt = -1;
    if (pid > 0) {
        mnt = take_child_answer(sv[0], step);
        e = errno;
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(sv[0]);
    errno = e;
    return mnt;
}

int gt_buffer_store_mount(uid_t uid, bool *namespaced, char *err, size_t errlen)
{
    if (namespaced)
        *namespaced = false;
    char uid_text[24];
    snprintf(uid_text, sizeof uid_text, "%u", (unsigned)uid);
    enum step step;
    int mnt = mount_tmpfs(uid_text, &step);
    if (mnt < 0 && errno == EPERM && step == STEP_OPEN) {
        if (uid != geteuid()) {
            snprintf(err, errlen, "making a tmpfs for uid %u's buffers needs CAP_SYS_ADMIN, which gridtuned lacks",
                     (unsigned)uid);
            return -EPERM;
        }
        mnt = mount_in_child(uid_text, &step);
        if (namespaced)
            *namespaced = true;
    }
    if (mnt < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot make a tmpfs for uid %u's buffers: %s failed: %s", (unsigned)uid,
                 step_names[step], strerror(e));
        return -e;
    }
    return mnt;
}

/* ---- every user's ---- */

typedef struct store {
    uid_t uid;
    int fd; /* -1: none could be made for uid */
    dev_t dev;
    struct store *next;
} store;

struct gt_buffer_stores {
    bool enabled;
    char why[320]; /* why there are none, or why the last user's could not be made */
    store *list;
};

gt_buffer_stores *gt_buffer_stores_new(bool enabled, const char *off_why)
{
    gt_buffer_stores *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->enabled = enabled;
    snprintf(s->why, sizeof s->why, "%s", enabled || !off_why ? "" : off_why);
    return s;
}

void gt_buffer_stores_free(gt_buffer_stores *s)
{
    if (!s)
        return;
    for (store *t = s->list, *next; t; t = next) {
        next = t->next;
        if (t->fd >= 0)
            close(t->fd);
        free(t);
    }
    free(s);
}

static store *find(const gt_buffer_stores *s, uid_t uid)
{
    for (store *t = s->list; t; t = t->next)
        if (t->uid == uid)
            return t;
    return NULL;
}

int gt_buffer_stores_get(gt_buffer_stores *s, uid_t uid)
{
    if (!s || !s->enabled)
        return -1;
    store *t = find(s, uid);
    if (t)
        return t->fd;
    t = calloc(1, sizeof *t);
    if (!t)
        return -1; /* asked again next time */
    char err[sizeof s->why];
    struct stat st;
    t->uid = uid;
    bool namespaced;
    t->fd = gt_buffer_store_mount(uid, &namespaced, err, sizeof err);
    if (t->fd >= 0 && fstat(t->fd, &st) != 0) {
        snprintf(err, sizeof err, "cannot stat the tmpfs made for uid %u's buffers: %s", (unsigned)uid,
                 strerror(errno));
        close(t->fd);
        t->fd = -1;
    }
    if (t->fd >= 0) {
        t->dev = st.st_dev;
        gt_log_info("buffer store for uid %u: a tmpfs with huge=%s, mounted nowhere%s", (unsigned)uid,
                    GT_BUFFER_STORE_HUGE, namespaced ? ", made in a user namespace (gridtuned lacks CAP_SYS_ADMIN)" : "");
    } else {
        snprintf(s->why, sizeof s->why, "%s", err);
        gt_log_warn("%s; that user's buffers are memfds, with huge pages only as shmem_enabled allows", err);
    }
    t->next = s->list;
    s->list = t;
    return t->fd;
}

bool gt_buffer_stores_holds(const gt_buffer_stores *s, uid_t uid, int fd)
{
    const store *t = s ? find(s, uid) : NULL;
    struct stat st;
    return t && t->fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == t->dev;
}

const char *gt_buffer_stores_kind(const gt_buffer_stores *s, const char **why)
{
    bool made = false, failed = false;
    for (const store *t = s ? s->list : NULL; t; t = t->next) {
        made |= t->fd >= 0;
        failed |= t->fd < 0;
    }
    *why = s ? s->why : "no memory";
    return s && s->enabled && (made || !failed) ? "tmpfs" : "memfd";
}
