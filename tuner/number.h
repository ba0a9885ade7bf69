/* number.h: strict decimal parsing for the text forms (schedules, command-line values). */
#ifndef GT_NUMBER_H
#define GT_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* Parses exactly len characters as a decimal number in [min, max]: digits only, no sign, no
 * spaces, no empty string. Returns 0, or -EINVAL (not a number) / -ERANGE (out of range). */
int gt_parse_u32(const char *text, size_t len, uint32_t min, uint32_t max, uint32_t *out);

#endif
