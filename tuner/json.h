/* json.h: values for cJSON trees, shared by the wisdom and the reports: numbers that print
 * exactly, and lists of axes.
 * cJSON keeps numbers as doubles and prints them with "%1.15g", falling back to "%1.17g" only
 * when a loose comparison says too much was lost: the last bit of a double, or an integer of
 * more than 15 digits, can come out wrong. These build raw number text instead, with a '.'
 * whatever the locale. JSON has no NaN or infinity: a non-finite double becomes null. */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <cjson/cJSON.h>
#include <stdint.h>

/* NULL when out of memory. */
cJSON *gt_json_real(double v);
cJSON *gt_json_int(int64_t v);
cJSON *gt_json_uint(uint64_t v);
/* The names of the axes whose bits (1 << gt_axis) are set, in the axes' order; NULL when out
   of memory. */
cJSON *gt_json_axes(unsigned axes);

#endif
