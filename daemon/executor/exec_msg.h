/* exec_msg.h: the messages between gridtuned and its executor processes, over a channel
 * (engine/channel.h). gridtuned starts the executor from the same build, so the messages are
 * plain structures; the hello carries GT_EXEC_PROTOCOL and the structures' sizes, and
 * gridtuned refuses an executor that disagrees. Requests are trusted by the executor; every
 * reply is checked by gridtuned, which trusts nothing the executor says (exec_proc.c). */
#ifndef GT_EXEC_MSG_H
#define GT_EXEC_MSG_H

#include "protocol/protocol.h"
#include "tuner/instruments.h"
#include "tuner/machine.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define GT_EXEC_PROTOCOL 1u
#define GT_EXEC_ERR_MAX 512
#define GT_EXEC_NAME_MAX 128
#define GT_EXEC_WORKERS_MAX 256 /* GT_POOL_MAX_WORKERS */

typedef enum gt_exec_op {
    GT_EXEC_HELLO = 1, /* the executor's first reply, unasked */
    GT_EXEC_MAP,       /* map a buffer: its memfd rides with the request */
    GT_EXEC_UNMAP,
    GT_EXEC_LOAD, /* load a kernel from a module file */
    GT_EXEC_SEAL, /* enter the sandbox (engine/sandbox.h): no more loads after it */
    GT_EXEC_LAUNCH,
} gt_exec_op;

typedef struct gt_exec_arg {
    bool is_buffer;
    uint32_t size;   /* a scalar's bytes */
    uint64_t buffer; /* a buffer's id (gt_shm.serial) */
    unsigned char bytes[8];
} gt_exec_arg;

typedef struct gt_exec_launch {
    uint64_t kernel; /* its id (gt_loaded_kernel.serial) */
    unsigned nargs;
    gt_exec_arg args[GT_MAX_ARGS];
    gt_range range;
    gt_tune_config cfg;
    bool run_here; /* small enough to run on the executor's control thread, without the pool */
    char kernel_hash[GT_HASH_TEXT_MAX];
    char machine[GT_HASH_TEXT_MAX];
    bool has_entry; /* gridtuned's wisdom has the launch's key: entry is its decision */
    gt_wisdom_entry entry;
    uint64_t report_id;
    int64_t started_ms;
} gt_exec_launch;

typedef struct gt_exec_request {
    uint32_t op;
    union {
        struct {
            uint64_t id, size;
        } map;
        struct {
            uint64_t id;
        } unmap;
        struct {
            uint64_t id;
            char path[PATH_MAX];
            char name[GT_EXEC_NAME_MAX];
        } load;
        gt_exec_launch launch;
    };
} gt_exec_request;

/* What a launch's reply says besides rc and err. After the workers, a successful launch's
 * reply carries its tuner result, result_len bytes (exec_result.h), from which gridtuned
 * writes the report when someone reads it. */
typedef struct gt_exec_outcome {
    uint64_t groups, groups_analysis;
    unsigned disturbed_samples;
    gt_decision_source source;
    bool wisdom_changed; /* entry is the launch's new decision or state, for key */
    gt_wisdom_key key;
    gt_wisdom_entry entry;
    unsigned workers; /* what ran it: the pool's, or 1 on the executor's own thread */
    uint32_t result_len;
} gt_exec_outcome;

typedef struct gt_exec_hello {
    uint32_t protocol;
    uint32_t request_size, reply_size; /* sizeof both structures, as the executor was built */
    unsigned workers;
    gt_counter_status counters;
    gt_probe_status probes;
} gt_exec_hello;

/* A worker's thread and what the probes counted of it since the executor started. */
typedef struct gt_exec_worker {
    int32_t tid;
    gt_probe_figures figures;
} gt_exec_worker;

typedef struct gt_exec_reply {
    uint32_t op; /* the request's */
    int32_t rc;  /* 0 or a negative errno, with err; a launch's -EDOM: a precondition refused it */
    char err[GT_EXEC_ERR_MAX];
    union {
        gt_exec_hello hello;
        struct {
            uint64_t addr; /* where the executor mapped the buffer, to place a fault's address */
        } map;
        gt_exec_outcome launch;
    };
    /* Every reply: the workers as the probes saw them (0 without probes). Only the first
       nworkers travel; a launch's result follows them. */
    unsigned nworkers;
    gt_exec_worker workers[GT_EXEC_WORKERS_MAX];
} gt_exec_reply;

/* Only what a message uses travels, so that a launch copies a few KiB, not tens. */
static inline size_t gt_exec_request_size(uint32_t op)
{
    size_t head = offsetof(gt_exec_request, launch);
    return head + (op == GT_EXEC_MAP ? sizeof(((gt_exec_request *)0)->map)
                   : op == GT_EXEC_UNMAP ? sizeof(((gt_exec_request *)0)->unmap)
                   : op == GT_EXEC_LOAD ? sizeof(((gt_exec_request *)0)->load)
                   : op == GT_EXEC_LAUNCH ? sizeof(gt_exec_launch)
                   : 0);
}

#define GT_EXEC_REPLY_HEAD offsetof(gt_exec_reply, workers)

static inline size_t gt_exec_reply_size(const gt_exec_reply *r)
{
    return GT_EXEC_REPLY_HEAD + r->nworkers * sizeof r->workers[0];
}

/* A launch's result, after the workers that travel. */
static inline unsigned char *gt_exec_reply_result(gt_exec_reply *r)
{
    return (unsigned char *)r + gt_exec_reply_size(r);
}

#endif
