/* wisdom.h: the remembered decisions, (kernel, range shape, workers, machine) -> schedule.
 * Kept in memory and persisted as one JSON file (schemas/wisdom.schema.json), by default
 * $XDG_STATE_HOME/gridtune/wisdom.json. Saving is atomic: a temporary file in the same
 * directory, fsync, rename, fsync of the directory. A file that cannot be parsed or does not
 * match the format is renamed aside (<path>.corrupt-<unix time>) with a warning, and the
 * wisdom starts empty: a bad file never stops a launch. Not thread-safe: one owner. */
#ifndef GT_WISDOM_H
#define GT_WISDOM_H

#include "schedule.h"

#include <gridtune/range.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_wisdom gt_wisdom;

#define GT_WISDOM_TEXT_MAX 128

typedef struct gt_wisdom_key {
    char kernel[GT_WISDOM_TEXT_MAX];      /* kernel name */
    char kernel_hash[GT_WISDOM_TEXT_MAX]; /* hex hash of the module's code and the name */
    char machine[GT_WISDOM_TEXT_MAX];     /* hex machine signature */
    gt_range range;                       /* normalized: unused dimensions are 1 */
    unsigned workers;
} gt_wisdom_key;

/* Launches that keep learning (refine.h): after analysis decided, the next launches with the
 * same key run the winner on most of the launch and one contender on a share of it, until the
 * rank test settles between them or a limit of launches is reached. */
#define GT_REFINE_CONTENDERS 5
#define GT_REFINE_OBSERVATIONS 8
/* The most launches, and drifted launches, an entry counts; the wisdom refuses more. */
#define GT_REFINE_COUNT_MAX 1000000
/* An analysis that left axes unexplored resumes from its winner in a later launch, at most
   this many times after the first decision. */
#define GT_REFINE_RESUMES 2

typedef enum gt_refine_state {
    GT_REFINE_SETTLED,  /* the winner runs the whole launch */
    GT_REFINE_REFINING, /* launches still compare contenders with the winner */
    GT_REFINE_REOPENED, /* as refining, after a settled winner's cost drifted */
} gt_refine_state;
#define GT_REFINE_STATES 3
const char *gt_refine_state_name(gt_refine_state s);
int gt_refine_state_parse(const char *text, gt_refine_state *out);

typedef struct gt_refine_contender {
    gt_schedule schedule;
    unsigned n; /* launches that ran it on a share, the latest GT_REFINE_OBSERVATIONS kept */
    double cost[GT_REFINE_OBSERVATIONS];      /* its cost per work-item on its share */
    double incumbent[GT_REFINE_OBSERVATIONS]; /* the winner's on the rest of the same launch */
} gt_refine_contender;

typedef struct gt_wisdom_refine {
    gt_refine_state state;
    unsigned launches;   /* refining launches since the decision, or since it reopened */
    unsigned ncontenders;
    gt_refine_contender contenders[GT_REFINE_CONTENDERS];
    double settled_cost; /* the winner's whole-launch cost per work-item once settled; NaN before */
    unsigned drifted;    /* settled launches in a row whose cost drifted beyond the threshold */
    /* The axes (bit 1 << gt_axis) the entry's last analysis left unexplored: the next launch's
       analysis resumes from the winner over them, while resumes < GT_REFINE_RESUMES. */
    unsigned unexplored;
    unsigned resumes; /* analyses resumed since the first decision */
} gt_wisdom_refine;

typedef struct gt_wisdom_entry {
    gt_schedule schedule;
    char metric[16];  /* the metric it won on, gt_metric_name */
    double cost;      /* the winner's median cost per work-item in that metric; NaN if unknown */
    double gain;      /* estimated gain over the default when it was decided; NaN if unknown */
    int64_t decided;  /* unix time of the decision */
    gt_wisdom_refine refine; /* all zero (settled, no contenders) for an entry from an older file */
} gt_wisdom_entry;

/* The default file: $XDG_STATE_HOME/gridtune/wisdom.json, else
 * $HOME/.local/state/gridtune/wisdom.json. An empty or relative value counts as unset (the
 * XDG base directory spec). -ENOENT with a sentence when neither is set, -ENAMETOOLONG when
 * the path does not fit in len. */
int gt_wisdom_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Loads path (NULL: the default). A missing file gives an empty wisdom; its directory is
 * created on the first save. A file that is corrupt (bad JSON, a bad field anywhere) or
 * unreadable (a directory in its place, EACCES) is moved aside and noted in
 * gt_wisdom_warning; the wisdom then starts empty. Returns 0, or with a sentence: -ENOMEM,
 * -ENAMETOOLONG, -ENOENT (no default path), -EINVAL (empty path), or -EMFILE and the like
 * when the file could not be read for reasons that are not its own (it is left alone). */
int gt_wisdom_open(const char *path, gt_wisdom **out, char *err, size_t errlen);
/* A wisdom with no file: it starts empty, and gt_wisdom_save refuses it. An executor process
 * holds one launch's entry in one while gridtuned keeps the file. 0 or -ENOMEM. */
int gt_wisdom_open_memory(gt_wisdom **out);
/* Frees the wisdom without saving it; NULL is allowed. */
void gt_wisdom_close(gt_wisdom *w);
/* The file in use ("" for one in memory); the wisdom owns the string, valid until gt_wisdom_close. */
const char *gt_wisdom_path(const gt_wisdom *w);
/* "" or one sentence, such as why the file was set aside and where it went. */
const char *gt_wisdom_warning(const gt_wisdom *w);
/* How many temporary files (<path>.tmp-XXXXXX) of writers that died before their rename
 * gt_wisdom_open removed; files a living writer holds are left alone. */
unsigned gt_wisdom_stale_removed(const gt_wisdom *w);

/* Keys match on kernel, kernel_hash, machine, the normalized range (dims, global and local
 * sizes) and workers. A hit counts as a use of the entry (gt_wisdom_limit). */
bool gt_wisdom_lookup(gt_wisdom *w, const gt_wisdom_key *key, gt_wisdom_entry *out);
/* The same launch: names, machine, workers and the normalized range, field by field (never
 * memcmp: a key's padding is not part of it). */
bool gt_wisdom_key_equal(const gt_wisdom_key *a, const gt_wisdom_key *b);
/* Adds or replaces the key's entry, in memory. The key's range is stored normalized.
 * Returns 0, -ENOMEM, or -EINVAL for what the file could not hold and load again: a kernel
 * that is not a C identifier, kernel_hash or machine not 16 lowercase hex digits (as
 * gt_hash_format writes), a range gt_range_check refuses, 0 workers, a metric other than
 * time, ipc, l1, l2 or energy, a negative or non-finite cost, an infinite gain, a decided
 * time outside 0..2^53-1; and in refine: an unknown state, more than GT_REFINE_CONTENDERS
 * contenders or GT_REFINE_OBSERVATIONS paired costs, a contender's schedule that would be
 * refused as the entry's, a negative or non-finite cost among a contender's first n, a
 * settled_cost other than NaN or a finite cost of at least 0, launches or drifted above
 * GT_REFINE_COUNT_MAX, an unexplored axis that does not exist, or resumes above
 * GT_REFINE_RESUMES. */
int gt_wisdom_store(gt_wisdom *w, const gt_wisdom_key *key, const gt_wisdom_entry *entry, char *err, size_t errlen);
size_t gt_wisdom_count(const gt_wisdom *w);
/* Copies the index-th entry and its key (either may be NULL), for listing: entries keep the
 * order in which their keys were first stored (an entry stored in place of an evicted one
 * takes its place). False when index >= gt_wisdom_count. */
bool gt_wisdom_get(const gt_wisdom *w, size_t index, gt_wisdom_key *key, gt_wisdom_entry *entry);
/* Forgets every entry, in memory; gt_wisdom_save makes it stick. The limit and the count of
 * evicted entries stay. */
void gt_wisdom_clear(gt_wisdom *w);

/* Keeps at most max entries (0: no limit, as after gt_wisdom_open): storing a new key into a
 * full wisdom evicts the least recently used entry (looked up or stored longest ago; entries
 * loaded from a file count as used in the file's order, the first the longest ago) of the
 * owner that holds the most entries (of owners that hold as many, the one whose entry was
 * used longest ago), so that one user's flood of new keys evicts its own entries first.
 * Entries of no known owner count as one owner. Entries over the limit now
 * are evicted at once, the least recently used first whoever owns them. 0, or -ENOMEM (the
 * entries are then all kept, and the limit holds from the next store). */
int gt_wisdom_limit(gt_wisdom *w, size_t max);
size_t gt_wisdom_max(const gt_wisdom *w);
/* Records that the key's entry was stored for user uid (the file keeps it as "uid"); a store
 * that replaces an entry keeps its owner. False when the key has no entry. */
bool gt_wisdom_claim(gt_wisdom *w, const gt_wisdom_key *key, uint32_t uid);
/* The uid of the index-th entry's owner into *uid; false when it has none known, or when
 * index >= gt_wisdom_count. */
bool gt_wisdom_owner(const gt_wisdom *w, size_t index, uint32_t *uid);
/* Entries evicted to keep within the limit since the wisdom was opened. */
uint64_t gt_wisdom_evicted(const gt_wisdom *w);
/* A copy of the wisdom (its entries, file and limit) to save without holding the original:
 * the copy costs a memory copy, saving it a print of every entry. 0 or -ENOMEM. */
int gt_wisdom_copy(const gt_wisdom *w, gt_wisdom **out);

/* Writes the entries to the wisdom's own file, atomically, creating its directory (and the
 * missing parents, mode 0700) first. Returns 0 or a negative errno with a sentence; a
 * failed save leaves the old file and no temporary file behind. */
int gt_wisdom_save(gt_wisdom *w, char *err, size_t errlen);
/* Writes the entries, in the file format, to path ("-": stdout). A regular file is replaced
 * atomically as by gt_wisdom_save (but no directory is created); a device or FIFO is
 * written through. Returns 0 or a negative errno with a sentence. */
int gt_wisdom_export(const gt_wisdom *w, const char *path, char *err, size_t errlen);
/* Merges the entries of a wisdom file ("-": stdin) in memory; an imported entry replaces one
 * with the same key, and *merged (may be NULL) is the number of entries read. A file that
 * does not match the format is refused whole, with a sentence naming the first bad entry
 * (numbered from 0, as in the file's array), and nothing is merged. */
int gt_wisdom_import(gt_wisdom *w, const char *path, size_t *merged, char *err, size_t errlen);

/* The same merge, from a document's text already in memory (len bytes); name says where it
 * came from in the sentences ("the client's wisdom"). */
int gt_wisdom_merge_text(gt_wisdom *w, const char *text, size_t len, const char *name, size_t *merged, char *err,
                         size_t errlen);

#endif
