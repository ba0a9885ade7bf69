/* durable_file.h: files that survive a crash whole, and the directories they go in.
 * The one home of mkdir -p and of the atomic replace (a locked temporary in the same directory,
 * fsync, rename, fsync of the directory) for the wisdom, the build cache and the daemon's state
 * directory. Every failure comes with a sentence in err (which may be NULL). */
#ifndef GT_DURABLE_FILE_H
#define GT_DURABLE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Creates dir and its missing parents with mode; existing ones are left as they are. 0, or a
 * negative errno with a sentence naming the directory that could not be made. */
int gt_file_make_dirs(const char *dir, mode_t mode, char *err, size_t errlen);

/* Replaces path with the len bytes of data: a temporary <path>.tmp-XXXXXX (mode 0600) in the
 * same directory, locked with flock until the rename is done, fsync, rename, fsync of the
 * directory, so that a crash leaves the old file or the new one, never a mix. With dir_mode
 * not 0, the directory and its missing parents are created first with that mode. 0, or a
 * negative errno with a sentence; a failure leaves the old file and no temporary behind. */
int gt_file_replace(const char *path, const void *data, size_t len, mode_t dir_mode, char *err, size_t errlen);

/* Removes the temporaries of path (<path>.tmp-XXXXXX, regular files of this user) that writers
 * which died before their rename left behind. A living writer's file is locked and stays.
 * Returns how many were removed. */
unsigned gt_file_remove_stale_temporaries(const char *path);

/* Reads all of fd into a malloc'd buffer (*out, *len). 0, -EFBIG when fd holds max bytes or
 * more, or a negative errno; no sentence, since fd has no name here. */
int gt_file_read_all(int fd, size_t max, char **out, size_t *len);
/* Writes all len bytes to fd, going on after short writes and EINTR. 0 or a negative errno. */
int gt_file_write_all(int fd, const void *data, size_t len);
/* fsyncs the file at path, so that a rename of it is whole after a crash too. 0, or a
 * negative errno with a sentence. */
int gt_file_sync(const char *path, char *err, size_t errlen);

#endif
