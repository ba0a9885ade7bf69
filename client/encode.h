/* encode.h: a launch's range, arguments, options and wait list as the fields of a "launch"
 * request, in the forms protocol.h gives. Each returns 0, or -EINVAL / -ENOMEM with a
 * sentence on c naming the bad value; nothing is sent for a launch that fails here. */
#ifndef GT_CLIENT_ENCODE_H
#define GT_CLIENT_ENCODE_H

#include <gridtune/gridtune.h>

#include <cjson/cJSON.h>

int gt_encode_range(gt_client *c, cJSON *req, const gt_range *range);
int gt_encode_args(gt_client *c, cJSON *req, const gt_arg *args, unsigned nargs);
/* "options" always (an empty object when all are the defaults); "wait" only when nwait > 0. */
int gt_encode_options(gt_client *c, cJSON *req, const gt_launch_options *opts);

#endif
