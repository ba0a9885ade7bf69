/* machine.h: identities that key the wisdom: the machine, and a kernel's code.
 * A decision is only valid on the machine that measured it, so the signature covers what
 * changes the best schedule: the CPU model, its cache sizes and the CPUs this process may use. */
#ifndef GT_MACHINE_H
#define GT_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a, continued from h (start with GT_HASH_SEED). */
#define GT_HASH_SEED 0xcbf29ce484222325ULL
uint64_t gt_hash_bytes(uint64_t h, const void *data, size_t len);

/* 16 lowercase hex digits and a terminator. */
#define GT_HASH_TEXT_MAX 17
void gt_hash_format(uint64_t h, char out[GT_HASH_TEXT_MAX]);

/* Signature of this machine: CPU model name, cache sizes and the CPUs in this process's
 * affinity mask, hashed. Also writes a readable description into desc (may be NULL), such
 * as "Intel(R) Xeon(R) ..., 2 CPUs". Never fails: what cannot be read is left out. */
void gt_machine_signature(char out[GT_HASH_TEXT_MAX], char *desc, size_t desclen);

/* The hash of a file's bytes and a kernel name: the kernel's identity in the wisdom.
 * Returns 0 or a negative errno with a sentence. */
int gt_kernel_identity(const char *module_path, const char *kernel, char out[GT_HASH_TEXT_MAX],
                       char *err, size_t errlen);

#endif
