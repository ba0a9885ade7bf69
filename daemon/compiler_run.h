/* compiler_run.h: running the C compiler as a child process under a deadline (internal to gt_build).
 * The child gets its own process group, a pipe for stdin, one pipe for stdout and stderr, no
 * other fd and a minimal environment; the parent feeds the input and reads the output together,
 * so neither side can block the other, and never returns before the child is reaped. */
#ifndef GT_COMPILER_RUN_H
#define GT_COMPILER_RUN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gt_compiler_job {
    const char *path;   /* absolute path of the program to execute */
    char *const *argv;  /* NULL-terminated, argv[0] included */
    const char *input;  /* written to the child's stdin, which is then closed */
    size_t input_len;
    unsigned timeout_ms;
    size_t max_output;  /* bytes of output kept; the rest is read and dropped */
} gt_compiler_job;

typedef struct gt_compiler_result {
    int status;      /* as waitpid reports it */
    char *output;    /* stdout and stderr merged, NUL-terminated; malloc'd, the caller frees */
    size_t len;
    bool truncated;  /* the child wrote more than max_output bytes */
} gt_compiler_result;

/* Returns 0 when the child ran to its end, whatever its exit status (*res is then filled);
 * -ETIME when the deadline passed (the child's whole process group was killed and reaped);
 * another negative errno for a system failure. Every failure leaves a sentence in err and no
 * output to free. */
int gt_compiler_run(const gt_compiler_job *job, gt_compiler_result *res, char *err, size_t errlen);

#endif
