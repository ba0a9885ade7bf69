/* describe.h: gridtune-exec --describe MODULE KERNEL, the loader process that opens a module for
 * gridtuned, so that gridtuned never runs a module's code (its constructors included). It
 * writes one JSON object to descriptor GT_DESCRIBE_ANSWER_FD (3; standard output is left to
 * what the module prints) and exits 0:
 *   {"kernel": DESCRIPTION}            (kernel_info.h's format), or
 *   {"error": SENTENCE, "errno": N}    when the module cannot be opened or lacks the kernel.
 * gridtuned's side, which starts it and reads the answer as untrusted input, is describe_run.h. */
#ifndef GT_DESCRIBE_H
#define GT_DESCRIBE_H

/* The loader's whole life; returns the process's exit status. */
int gt_describe_main(const char *module, const char *kernel);

#define GT_DESCRIBE_ANSWER_FD 3

#endif
