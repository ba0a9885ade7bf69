/* message.h: the pieces of protocol messages (protocol.h) the client makes and reads: a
 * request of a type, ids sent as JSON numbers, ids and JSON text taken out of results. */
#ifndef GT_CLIENT_MESSAGE_H
#define GT_CLIENT_MESSAGE_H

#include <gridtune/gridtune.h>

#include <cjson/cJSON.h>
#include <stdint.h>

/* The largest integer a JSON number (a double) holds exactly: the bound of ids and sizes. */
#define GT_JSON_INT_MAX ((UINT64_C(1) << 53) - 1)

/* {"type": type}, or NULL without memory. */
cJSON *gt_msg_request(const char *type);
/* Adds field: id as a JSON number. 0, or -ENOMEM. */
int gt_msg_add_id(cJSON *msg, const char *field, uint64_t id);
/* Reads field of result as an id (an integer 1 .. GT_JSON_INT_MAX) into *out; 0, or -EPROTO with
 * a sentence on c naming the request type and the field. */
int gt_msg_result_id(gt_client *c, const cJSON *result, const char *type, const char *field, uint64_t *out);
/* Prints field of result as compact JSON into a malloc'd *out; 0, -EPROTO when the field is
 * missing, or -ENOMEM; with a sentence on c. */
int gt_msg_result_json(gt_client *c, const cJSON *result, const char *type, const char *field, char **out);

#endif
