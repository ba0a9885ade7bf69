/* fuzz.h: what the fuzz targets share: libFuzzer's entry point (replay_main.c calls it too)
 * and FUZZ_CHECK, which turns a broken promise of the code under test into a crash the fuzzer
 * reports and keeps the input for. */
#ifndef GT_FUZZ_H
#define GT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif
