/* compiler_run.h: running the C compiler as a child process under a deadline (internal to gt_build).
 * The child gets its own process group, a pipe for stdin, one pipe for stdout and stderr, no
 * other fd, a minimal environment and, when asked, a working directory and a Landlock sandbox; the
 * parent feeds the input and reads the output together, so neither side can block the other, and
 * never returns before the child is reaped. */
#ifndef GT_COMPILER_RUN_H
#define GT_COMPILER_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* Where a sandboxed compiler may reach, as NULL-terminated lists of paths (a path that does not
 * exist is skipped): read and execute beneath exec_paths, read beneath read_paths, and read,
 * create, write and remove files beneath write_paths. Everything else is closed to the child and
 * its helpers, and so are TCP binds and connections where the kernel can close them (Landlock
 * ABI 4). Landlock does not govern metadata: stat and readlink still work everywhere. */
/* The first Landlock ABI that can close TCP to the sandbox. */
#define GT_COMPILER_SANDBOX_NET_ABI 4

typedef struct gt_compiler_sandbox {
    const char *const *exec_paths;
    const char *const *read_paths;
    const char *const *write_paths;
} gt_compiler_sandbox;

typedef struct gt_compiler_job {
    const char *path;   /* absolute path of the program to execute */
    char *const *argv;  /* NULL-terminated, argv[0] included */
    const char *input;  /* written to the child's stdin, which is then closed */
    size_t input_len;
    unsigned timeout_ms;
    size_t max_output;  /* bytes of output kept; the rest is read and dropped */
    const char *dir;    /* the child's working directory and TMPDIR; NULL: the daemon's, no TMPDIR */
    const gt_compiler_sandbox *sandbox; /* NULL: unconfined; else the run fails if it cannot be applied */
} gt_compiler_job;

typedef struct gt_compiler_result {
    int status;      /* as waitpid reports it */
    char *output;    /* stdout and stderr merged, NUL-terminated; malloc'd, the caller frees */
    size_t len;
    bool truncated;  /* the child wrote more than max_output bytes */
} gt_compiler_result;

/* Returns 0 when the child ran to its end, whatever its exit status (*res is then filled);
 * -ETIME when the deadline passed (the child's whole process group was killed and reaped);
 * another negative errno for a system failure (the sandbox or the working directory could not be
 * set up, the program could not be executed...). Every failure leaves a sentence in err and no
 * output to free. */
int gt_compiler_run(const gt_compiler_job *job, gt_compiler_result *res, char *err, size_t errlen);

/* The Landlock ABI version this kernel offers (1 or more), or a negative errno with a sentence in
 * err saying why there is none (the kernel lacks it, or it is disabled at boot). */
int gt_compiler_sandbox_abi(char *err, size_t errlen);

#endif
