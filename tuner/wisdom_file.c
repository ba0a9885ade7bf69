/* wisdom_file.c: where the wisdom's file lives, and its reading and writing.
 * A file that cannot be read or parsed is renamed aside (<path>.corrupt-<unix time>) with a
 * warning, so that a bad file never stops a launch; saving replaces the file atomically
 * (durable_file.h). Export and import move the same format to and from other files. */
#include "wisdom_private.h"

#include "durable_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STATE_SUBPATH "gridtune/wisdom.json"
#define HOME_STATE_SUBPATH ".local/state/" STATE_SUBPATH
#define DIR_MODE 0700
/* Above any wisdom gridtuned keeps (at most 16384 entries of at most ~2.8 KB); stops a
   runaway file from being read. */
#define FILE_MAX ((size_t)64 << 20)
/* Tries of <path>.corrupt-<time>.N when files were set aside more than once in a second. */
#define ASIDE_TRIES 100

/* Renames from to to unless to exists. Falls back to a check and a plain rename on file
 * systems without RENAME_NOREPLACE. */
static int rename_noreplace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -errno;
    struct stat st;
    if (lstat(to, &st) == 0)
        return -EEXIST;
    return rename(from, to) == 0 ? 0 : -errno;
}

/* Moves the wisdom's file to <path>.corrupt-<unix time> (.N appended if taken) and writes
 * the warning; what = why, as a predicate: "is corrupt: ...", "cannot be read (...)". */
static void set_aside(gt_wisdom *w, const char *what)
{
    long long now = (long long)time(NULL);
    char aside[PATH_MAX + 64];
    int rc = -EEXIST;
    for (int n = 0; n < ASIDE_TRIES && rc == -EEXIST; n++) {
        int len = n ? snprintf(aside, sizeof aside, "%s.corrupt-%lld.%d", w->path, now, n)
                    : snprintf(aside, sizeof aside, "%s.corrupt-%lld", w->path, now);
        rc = len > 0 && (size_t)len < sizeof aside ? rename_noreplace(w->path, aside) : -ENAMETOOLONG;
    }
    if (rc == 0)
        snprintf(w->warning, sizeof w->warning, "wisdom file %s %s; moved it to %s and started with empty wisdom",
                 w->path, what, aside);
    else
        snprintf(w->warning, sizeof w->warning,
                 "wisdom file %s %s; could not move it aside (%s), so it stays and will be replaced on the next "
                 "save; started with empty wisdom",
                 w->path, what, strerror(-rc));
}

/* Failures that say nothing about the file: the file is left alone and opening fails. */
static bool is_transient(int e)
{
    return e == ENOMEM || e == EMFILE || e == ENFILE || e == EINTR || e == ENOBUFS || e == EAGAIN;
}

int gt_wisdom_file_load(gt_wisdom *w, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO in the file's place must not hang the opener. */
    int fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT)
        return 0;
    char what[GT_WISDOM_PROBLEM_MAX + 32];
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        set_aside(w, "is not a regular file");
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = fd < 0 ? -errno : gt_file_read_all(fd, FILE_MAX, &text, &len);
    if (fd >= 0)
        close(fd);
    if (rc && is_transient(-rc))
        return gt_sentence_fail(err, errlen, rc, "cannot read wisdom file %s: %s", w->path, strerror(-rc));
    if (rc) {
        if (rc == -EFBIG)
            snprintf(what, sizeof what, "is larger than %zu MiB", FILE_MAX >> 20);
        else
            snprintf(what, sizeof what, "cannot be read (%s)", strerror(-rc));
        set_aside(w, what);
        return 0;
    }
    char problem[GT_WISDOM_PROBLEM_MAX];
    gt_wisdom_set in = {0};
    rc = gt_wisdom_codec_parse(text, len, &in, problem, sizeof problem);
    free(text);
    if (rc) {
        gt_wisdom_set_free(&in);
        if (rc == -ENOMEM)
            return gt_sentence_fail(err, errlen, rc, "out of memory reading wisdom file %s", w->path);
        snprintf(what, sizeof what, "is corrupt: %s", problem);
        set_aside(w, what);
        return 0;
    }
    w->set = in;
    return 0;
}

static int env_dir(const char *name, const char **out)
{
    const char *v = getenv(name);
    /* The XDG base directory spec: relative paths are invalid and to be ignored. */
    if (!v || v[0] != '/')
        return -ENOENT;
    *out = v;
    return 0;
}

int gt_wisdom_default_path(char *buf, size_t len, char *err, size_t errlen)
{
    const char *base;
    int n;
    if (env_dir("XDG_STATE_HOME", &base) == 0)
        n = snprintf(buf, len, "%s/" STATE_SUBPATH, base);
    else if (env_dir("HOME", &base) == 0)
        n = snprintf(buf, len, "%s/" HOME_STATE_SUBPATH, base);
    else
        return gt_sentence_fail(err, errlen, -ENOENT, "no place for the wisdom file: neither XDG_STATE_HOME nor "
                                                    "HOME is set to an absolute path");
    if (n < 0 || (size_t)n >= len)
        return gt_sentence_fail(err, errlen, -ENAMETOOLONG, "the wisdom file's path under %s is too long", base);
    return 0;
}

int gt_wisdom_save(gt_wisdom *w, char *err, size_t errlen)
{
    if (!w->path)
        return gt_sentence_fail(err, errlen, -EINVAL, "this wisdom has no file; it lives in memory only");
    char *text = gt_wisdom_codec_print(&w->set);
    if (!text)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory saving wisdom file %s", w->path);
    int rc = gt_file_replace(w->path, text, strlen(text), DIR_MODE, err, errlen);
    free(text);
    return rc;
}

/* Devices and FIFOs (/dev/stdout, a pipe) are written through; renaming over them would
 * replace the device node instead. */
static int write_through(const char *path, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return gt_sentence_fail(err, errlen, -errno, "cannot open %s: %s", path, strerror(errno));
    int rc = gt_file_write_all(fd, text, strlen(text));
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc)
        gt_sentence_fail(err, errlen, rc, "cannot write %s: %s", path, strerror(-rc));
    return rc;
}

int gt_wisdom_export(const gt_wisdom *w, const char *path, char *err, size_t errlen)
{
    char *text = gt_wisdom_codec_print(&w->set);
    if (!text)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory exporting the wisdom");
    int rc = 0;
    struct stat st;
    if (strcmp(path, "-") == 0) {
        errno = 0;
        if (fputs(text, stdout) == EOF || fflush(stdout) == EOF)
            rc = gt_sentence_fail(err, errlen, errno ? -errno : -EIO, "cannot write the wisdom to standard output: %s",
                                strerror(errno ? errno : EIO));
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        rc = write_through(path, text, err, errlen);
    } else {
        rc = gt_file_replace(path, text, strlen(text), 0, err, errlen);
    }
    free(text);
    return rc;
}

int gt_wisdom_import(gt_wisdom *w, const char *path, size_t *merged, char *err, size_t errlen)
{
    bool std_in = strcmp(path, "-") == 0;
    const char *name = std_in ? "standard input" : path;
    int fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return gt_sentence_fail(err, errlen, -errno, "cannot open %s: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    int rc = gt_file_read_all(fd, FILE_MAX, &text, &len);
    if (!std_in)
        close(fd);
    if (rc == -EFBIG)
        return gt_sentence_fail(err, errlen, rc, "%s is larger than %zu MiB; nothing was imported", name, FILE_MAX >> 20);
    if (rc)
        return gt_sentence_fail(err, errlen, rc, "cannot read %s: %s", name, strerror(-rc));
    rc = gt_wisdom_merge_text(w, text, len, name, merged, err, errlen);
    free(text);
    return rc;
}
