/* wisdom_lock.c: one gridtuned per wisdom file (wisdom_lock.h). */
#include "wisdom_lock.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define HOLDER_MAX 256

int gt_wisdom_lock_take(const char *wisdom, const char *socket, int *fd, char *err, size_t errlen)
{
    char path[GT_PATH_MAX + 8];
    *fd = -1;
    if ((size_t)snprintf(path, sizeof path, "%s.lock", wisdom) >= sizeof path) {
        snprintf(err, errlen, "the wisdom path %s is too long", wisdom);
        return -ENAMETOOLONG;
    }
    int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open the wisdom's lock file %s: %s", path, strerror(e));
        return -e;
    }
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char holder[HOLDER_MAX] = "";
        ssize_t n = e == EWOULDBLOCK ? pread(lock, holder, sizeof holder - 1, 0) : -1;
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (e == EWOULDBLOCK)
            snprintf(err, errlen,
                     "the wisdom %s is in use by another gridtuned (%s); stop it, or give this one its own --wisdom",
                     wisdom, holder[0] ? holder : "its pid and socket unknown");
        else
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(e));
        close(lock);
        return e == EWOULDBLOCK ? -EBUSY : -e;
    }
    char holder[HOLDER_MAX];
    int len = snprintf(holder, sizeof holder, "pid %ld, socket %s\n", (long)getpid(), socket);
    if (len > 0 && (size_t)len >= sizeof holder)
        len = (int)sizeof holder - 1;
    /* only for the sentence above: the lock holds without it */
    bool noted = ftruncate(lock, 0) == 0 && pwrite(lock, holder, (size_t)len, 0) == len;
    (void)noted;
    *fd = lock;
    return 0;
}
