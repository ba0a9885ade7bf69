/* reply.h: one request being answered: who sent it, its id and type, and the helpers that
 * read its fields and answer it. A field helper that finds a bad field answers the request
 * with a bad_request error naming the field and returns false, so a handler just returns. */
#ifndef GT_REPLY_H
#define GT_REPLY_H

#include "daemon/session.h"
#include "protocol/protocol.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct gt_request {
    gt_session *s;
    uint64_t id;      /* 0: the frame had no readable id (answered with id null) */
    const char *type; /* the request's type as the daemon knows it, or NULL */
    const cJSON *msg;
    int *fds;         /* the descriptors that came with it; a handler that keeps one sets it to -1 */
    unsigned nfds;
} gt_request;

/* Answers with result (type and id are added; result is taken; NULL: an empty result). */
void gt_request_reply(const gt_request *r, cJSON *result);
/* Answers with an error; errnum is positive. */
void gt_request_fail(const gt_request *r, const char *code, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same, to a request answered later (wait, report), known by session, id and type. */
void gt_reply_error(gt_session *s, uint64_t id, const char *type, const char *code, int errnum, const char *message);
void gt_reply_result(gt_session *s, uint64_t id, const char *type, cJSON *result);
/* The result message answering request id, around result's fields (result is taken; NULL:
 * none); NULL without memory. Touches no session: any thread may build one. */
cJSON *gt_result_message(uint64_t id, cJSON *result);

/* An object id: an integer from 1 to 2^53-1. */
bool gt_field_id(const gt_request *r, const cJSON *obj, const char *key, uint64_t *out);
/* An integer from lo to hi; absent gives *out = dflt when optional. */
bool gt_field_uint(const gt_request *r, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi, bool optional,
                   uint64_t dflt, uint64_t *out);
/* A string (non-empty unless allow_empty); absent gives NULL when optional. */
bool gt_field_string(const gt_request *r, const cJSON *obj, const char *key, bool optional, bool allow_empty,
                     const char **out);
/* The value of key if it is there (NULL otherwise), checking its JSON type when present. */
bool gt_field_typed(const gt_request *r, const cJSON *obj, const char *key, int cjson_type, const char *expected,
                    const cJSON **out);

/* Every key of obj must be a word of allowed or of also (space-separated lists); an unknown
 * one, such as a misspelt option, is answered as a bad request naming it. */
bool gt_fields_known(const gt_request *r, const cJSON *obj, const char *allowed, const char *also);

#define GT_ID_MAX ((1ull << 53) - 1)

#endif
