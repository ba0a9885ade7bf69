/* wisdom_private.h: what the wisdom's three files share, and no one else includes.
 * wisdom.c holds the checks and the in-memory set, wisdom_codec.c turns a set into the file's
 * JSON and back (schemas/wisdom.schema.json), wisdom_file.c reads and writes the files
 * (durable_file.h does the writing). The public API stays in wisdom.h. */
#ifndef GT_WISDOM_PRIVATE_H
#define GT_WISDOM_PRIVATE_H

#include "sentence.h"
#include "wisdom.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest sentence about one bad entry or field. */
#define GT_WISDOM_PROBLEM_MAX 512
#define GT_WISDOM_WARNING_MAX (2 * PATH_MAX + GT_WISDOM_PROBLEM_MAX + 128)
/* The largest integer a JSON number (an IEEE double) holds exactly: 2^53 - 1. */
#define GT_WISDOM_JSON_INT_MAX 9007199254740991.0

typedef struct gt_wisdom_record {
    gt_wisdom_key key;
    gt_wisdom_entry entry;
    uint64_t hash; /* of the key, as set_hash computes it */
    uint64_t used; /* the set's tick when last stored or looked up: the least recent goes first */
    uint64_t owner; /* the uid of the user whose launch stored it, plus 1; 0: not known */
} gt_wisdom_record;

/* Records in an array, found through a hash index (open addressing, linear probing): a launch
 * looks its key up, and loading a file puts every record. Entries keep the order in which
 * their keys were first put, except that one put in place of an evicted record takes its
 * place. With max set, putting a new key into a full set evicts the least recently used
 * record of the owner that holds the most (of owners that hold as many, the one whose record
 * was used longest ago; records of no known owner count as one owner; the earliest in a file
 * just loaded counts as the least recent), so that one user's flood of new keys evicts its
 * own records before anyone else's. */
typedef struct gt_wisdom_set {
    gt_wisdom_record *v;
    size_t n, cap;
    size_t *slots; /* a record's index + 1, 0 for an empty slot; nslots is a power of two */
    size_t nslots;
    struct gt_wisdom_tally *tally; /* cap places to count records per owner when evicting */
    size_t max;       /* the most records kept; 0: no limit */
    uint64_t tick;    /* counts puts and lookups */
    uint64_t evicted; /* records evicted to keep within max, since the set began */
} gt_wisdom_set;

struct gt_wisdom {
    char *path;
    gt_wisdom_set set;
    char warning[GT_WISDOM_WARNING_MAX];
    unsigned stale_removed; /* temporary files of dead writers removed at open */
};

/* ---- wisdom.c ---- */

/* The checks shared by gt_wisdom_store and the codec, so that whatever is saved loads again.
 * 0, or -EINVAL with a sentence that starts with the field's name. */
int gt_wisdom_key_check(const gt_wisdom_key *k, char *err, size_t errlen);
int gt_wisdom_entry_check(const gt_wisdom_entry *e, char *err, size_t errlen);

/* Room for want records in all, in the array and the index. 0 or -ENOMEM. */
int gt_wisdom_set_reserve(gt_wisdom_set *s, size_t want);
/* Adds rec's key and entry, or replaces the entry of the record with its key (which keeps its
 * owner when rec has none), evicting a record when the set is full; with capacity reserved
 * beforehand it cannot fail. 0 or -ENOMEM. */
int gt_wisdom_set_put(gt_wisdom_set *s, const gt_wisdom_record *rec);
void gt_wisdom_set_free(gt_wisdom_set *s);

/* ---- wisdom_codec.c ---- */

/* Parses and checks a whole document into out (empty on entry). Returns 0, -EINVAL with the
 * problem in err, or -ENOMEM. Entries are numbered from 0, as in the file's array. */
int gt_wisdom_codec_parse(const char *text, size_t len, gt_wisdom_set *out, char *err, size_t errlen);
/* The whole file's text, pretty-printed with a final newline; free() it. NULL: no memory. */
char *gt_wisdom_codec_print(const gt_wisdom_set *s);

/* ---- wisdom_file.c ---- */

/* Reads the wisdom's own file into w->set. Returns 0 (with the file set aside and w->warning
 * written if it was bad), or a negative errno with a sentence for a failure that says nothing
 * about the file. */
int gt_wisdom_file_load(gt_wisdom *w, char *err, size_t errlen);

#endif
