/* gridtune-exec: the process in which a user's kernels run, started by gridtuned (one per
 * user, exec_proc.c). It holds the worker pool, the counters and the probes, maps the user's
 * buffers and loads the user's kernels as gridtuned asks, and runs each launch through the
 * tuner, next to the workers: analysis never crosses a process boundary. gridtuned keeps the
 * wisdom; a launch comes with its entry and goes back with the changed one and the tuner's
 * result, from which gridtuned writes the report.
 *
 * A kernel that faults, divides by zero or aborts kills this process only. The fatal-signal
 * handler first writes what it knows into the channel's crash record, for gridtuned's error.
 * Not meant to be run by hand: it needs the channel's descriptors (3 and 4). Started with
 * --describe MODULE KERNEL GRIDTUNED_PID, it is instead the loader that opens a module for
 * gridtuned (describe.h). */
#include "exec_msg.h"

#include "describe.h"
#include "exec_result.h"
#include "engine/channel.h"
#include "engine/counters.h"
#include "engine/guarded_map.h"
#include "engine/module.h"
#include "engine/pool.h"
#include "engine/pool_executor.h"
#include "engine/sandbox.h"
#include "tuner/grow.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CHANNEL_MEM_FD 3
#define CHANNEL_SOCK_FD 4
#define MAX_EVENTS 16

typedef struct mapped_buffer {
    uint64_t id;
    gt_guarded_map map; /* between guard regions: an overrun faults (guarded_map.h) */
    size_t size;
} mapped_buffer;

typedef struct loaded {
    uint64_t id;
    gt_module *module;
    const gt_kernel_desc *desc;
    char name[GT_EXEC_NAME_MAX];
} loaded;

typedef struct executor {
    gt_channel *ch;
    gt_counters *counters;
    gt_probes *probes;
    gt_probe_status probe_status;
    gt_pool *pool;
    gt_wisdom *wisdom; /* in memory: the one entry of the launch being run */
    mapped_buffer *buffers;
    size_t nbuffers, capbuffers;
    loaded *kernels;
    size_t nkernels, capkernels;
    bool populate;
    bool sealed;
    gt_exec_request req;
    gt_exec_reply *reply; /* GT_CHANNEL_REPLY_MAX bytes: the reply, then a launch's result */
    gt_tune_result result; /* the latest launch's, until sent with its reply */
    bool has_result;
} executor;

/* In a sanitizer build, the faults here are the kernels' and this process's handler reports
 * them (a sanitizer's would report them as gridtune's own bugs, and its report needs system
 * calls the sandbox forbids). Read by AddressSanitizer only; unused otherwise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:handle_sigtrap=0:"
           "allow_user_segv_handler=1";
}

static gt_channel_crash *crash_record;

/* From the fault handler (engine/sandbox.c): what gridtuned reads after this process died. */
static void record_fault(const gt_fault *f)
{
    if (!crash_record || atomic_load(&crash_record->signal) != 0)
        return;
    crash_record->code = f->code;
    crash_record->addr = f->addr;
    crash_record->syscall = f->syscall;
    atomic_store(&crash_record->signal, (uint32_t)f->signal);
}

static int fail(executor *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(executor *x, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->reply->err, sizeof x->reply->err, fmt, ap);
    va_end(ap);
    return rc;
}

static mapped_buffer *find_buffer(executor *x, uint64_t id)
{
    for (size_t i = 0; i < x->nbuffers; i++)
        if (x->buffers[i].id == id)
            return &x->buffers[i];
    return NULL;
}

static loaded *find_kernel(executor *x, uint64_t id)
{
    for (size_t i = 0; i < x->nkernels; i++)
        if (x->kernels[i].id == id)
            return &x->kernels[i];
    return NULL;
}

/* The buffer's pages are mapped in now, so that no launch takes their first-touch faults. */
static int do_map(executor *x)
{
    int fd = gt_channel_take_fd(x->ch);
    uint64_t id = x->req.map.id, size = x->req.map.size;
    if (fd < 0)
        return fail(x, -EBADF, "the request to map buffer %llu came without its descriptor", (unsigned long long)id);
    int rc = 0;
    gt_guarded_map map = {0};
    char why[256];
    if (find_buffer(x, id) || !gt_grow((void **)&x->buffers, &x->capbuffers, x->nbuffers, sizeof *x->buffers))
        rc = fail(x, find_buffer(x, id) ? -EEXIST : -ENOMEM, "cannot map buffer %llu twice, or without memory",
                  (unsigned long long)id);
    else if ((rc = gt_guarded_map_open(fd, (size_t)size, &map, why, sizeof why)) != 0)
        fail(x, rc, "buffer %llu: %s", (unsigned long long)id, why);
    close(fd);
    if (rc)
        return rc;
    (void)madvise(map.data, size, MADV_HUGEPAGE);
    if (x->populate)
        (void)madvise(map.data, size, MADV_POPULATE_WRITE);
    x->buffers[x->nbuffers++] = (mapped_buffer){.id = id, .map = map, .size = size};
    x->reply->map.addr = (uint64_t)(uintptr_t)map.data;
    return 0;
}

static int do_unmap(executor *x)
{
    mapped_buffer *b = find_buffer(x, x->req.unmap.id);
    if (!b)
        return fail(x, -ENOENT, "there is no buffer %llu to unmap", (unsigned long long)x->req.unmap.id);
    gt_guarded_map_close(&b->map);
    *b = x->buffers[--x->nbuffers];
    return 0;
}

static int do_load(executor *x)
{
    x->req.load.path[sizeof x->req.load.path - 1] = '\0';
    x->req.load.name[sizeof x->req.load.name - 1] = '\0';
    if (find_kernel(x, x->req.load.id))
        return 0;
    if (x->sealed)
        return fail(x, -EPERM, "the executor is in its sandbox and loads no more kernels");
    if (!gt_grow((void **)&x->kernels, &x->capkernels, x->nkernels, sizeof *x->kernels))
        return fail(x, -ENOMEM, "out of memory loading a kernel");
    loaded k = {.id = x->req.load.id};
    int rc = gt_module_open(x->req.load.path, &k.module, x->reply->err, sizeof x->reply->err);
    if (rc)
        return rc;
    if (!(k.desc = gt_module_find(k.module, x->req.load.name))) {
        gt_module_close(k.module);
        return fail(x, -ENOENT, "the module %s has no kernel \"%s\"", x->req.load.path, x->req.load.name);
    }
    snprintf(k.name, sizeof k.name, "%s", x->req.load.name);
    x->kernels[x->nkernels++] = k;
    return 0;
}

/* After this, the process cannot open files, make sockets, run programs or fork; its kernels
 * are loaded (gridtuned starts a new executor to load more). */
static int do_seal(executor *x)
{
    char err[GT_EXEC_ERR_MAX - 64];
    int rc = gt_sandbox_enter(err, sizeof err);
    if (rc)
        return fail(x, rc, "the executor cannot enter its sandbox: %s", err);
    x->sealed = true;
    return 0;
}

/* The launch's arguments as the kernel takes them, and each buffer's size (0 for scalars). */
static int bind_args(executor *x, const gt_exec_launch *l, gt_arg_value *args, size_t *bytes)
{
    if (l->nargs > GT_MAX_ARGS)
        return fail(x, -EINVAL, "a launch with %u arguments", l->nargs);
    for (unsigned i = 0; i < l->nargs; i++) {
        const gt_exec_arg *a = &l->args[i];
        args[i] = (gt_arg_value){.is_buffer = a->is_buffer, .size = a->size};
        bytes[i] = 0;
        if (!a->is_buffer) {
            memcpy(args[i].v.bytes, a->bytes, sizeof a->bytes);
            continue;
        }
        mapped_buffer *b = find_buffer(x, a->buffer);
        if (!b)
            return fail(x, -ENOENT, "argument %u names buffer %llu, which is not mapped here", i,
                        (unsigned long long)a->buffer);
        args[i].v.ptr = b->map.data;
        bytes[i] = b->size;
    }
    return 0;
}

static int do_launch(executor *x)
{
    gt_exec_launch *l = &x->req.launch;
    gt_exec_outcome *out = &x->reply->launch;
    loaded *k = find_kernel(x, l->kernel);
    if (!k)
        return fail(x, -ENOENT, "kernel %llu is not loaded here", (unsigned long long)l->kernel);
    gt_arg_value args[GT_MAX_ARGS];
    void *slots[GT_MAX_ARGS];
    size_t bytes[GT_MAX_ARGS];
    int rc = bind_args(x, l, args, bytes);
    if (rc)
        return rc;
    if (l->nargs != k->desc->nparams)
        return fail(x, -EINVAL, "a launch of %s with %u arguments; it takes %u", k->name, l->nargs, k->desc->nparams);
    if (gt_preconditions_check(k->module, k->desc, &l->range, args, bytes, x->reply->err, sizeof x->reply->err) != 0)
        return -EDOM; /* refused, before any workgroup runs (exec_msg.h) */
    gt_args_bind(args, l->nargs, slots);
    gt_pool_executor pe;
    gt_executor exec;
    gt_pool_executor_init(&pe, x->pool, x->counters, &x->probe_status, k->desc, slots, &l->range, &exec);
    if (l->run_here)
        gt_pool_executor_run_here(&pe, &exec);
    gt_tune_launch tl = {.kernel = k->name, .kernel_hash = l->kernel_hash, .machine = l->machine, .range = l->range};
    gt_tune_wisdom_key(&tl, exec.workers, &out->key);
    gt_wisdom_clear(x->wisdom);
    if (l->has_entry && (rc = gt_wisdom_store(x->wisdom, &out->key, &l->entry, x->reply->err, sizeof x->reply->err)))
        return rc;
    gt_tune_result res;
    rc = gt_tune_run(&l->cfg, &tl, &exec, x->wisdom, &res, x->reply->err, sizeof x->reply->err);
    out->groups = res.groups_analysis + res.groups_remainder;
    out->groups_analysis = res.groups_analysis;
    out->disturbed_samples = res.disturbed_samples;
    out->source = res.source;
    out->wisdom_changed = rc == 0 && res.wisdom_changed && gt_wisdom_lookup(x->wisdom, &out->key, &out->entry);
    out->workers = exec.workers;
    if (rc == 0) { /* sent after the workers (serve), for gridtuned's report */
        x->result = res;
        x->has_result = true;
    } else {
        gt_tune_result_free(&res);
    }
    return rc;
}

static void report_workers(executor *x)
{
    unsigned n = gt_pool_probed(x->pool) ? gt_pool_workers(x->pool) : 0;
    for (unsigned i = 0; i < n && i < GT_EXEC_WORKERS_MAX; i++) {
        pid_t tid;
        gt_pool_worker_probe(x->pool, i, &tid, &x->reply->workers[i].figures);
        x->reply->workers[i].tid = (int32_t)tid;
    }
    x->reply->nworkers = n;
}

static void serve(executor *x)
{
    for (;;) {
        size_t len;
        int rc = gt_channel_receive(x->ch, &x->req, sizeof x->req, &len, -1, -1);
        if (rc == -EPIPE)
            return; /* gridtuned closed the channel: time to go */
        if (rc)
            continue;
        memset(x->reply, 0, GT_EXEC_REPLY_HEAD);
        x->reply->op = x->req.op;
        if (len < sizeof x->req.op || len != gt_exec_request_size(x->req.op))
            rc = fail(x, -EPROTO, "a request of %zu bytes", len);
        else if (x->req.op == GT_EXEC_MAP)
            rc = do_map(x);
        else if (x->req.op == GT_EXEC_UNMAP)
            rc = do_unmap(x);
        else if (x->req.op == GT_EXEC_LOAD)
            rc = do_load(x);
        else if (x->req.op == GT_EXEC_SEAL)
            rc = do_seal(x);
        else if (x->req.op == GT_EXEC_LAUNCH)
            rc = do_launch(x);
        else
            rc = fail(x, -EPROTO, "unknown request %u", x->req.op);
        x->reply->rc = rc;
        report_workers(x);
        size_t size = gt_exec_reply_size(x->reply);
        if (x->has_result) { /* a result too large to send leaves the launch without a report */
            x->reply->launch.result_len = (uint32_t)gt_exec_result_write(&x->result, gt_exec_reply_result(x->reply),
                                                                         GT_CHANNEL_REPLY_MAX - size);
            size += x->reply->launch.result_len;
            gt_tune_result_free(&x->result);
            x->has_result = false;
        }
        if (gt_channel_send(x->ch, x->reply, size, NULL, 0) == -EPIPE)
            return;
    }
}

typedef struct options {
    unsigned workers, spin_us;
    bool no_pin, no_probes, no_populate;
    const char *events[MAX_EVENTS];
    unsigned nevents;
} options;

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {{"uid", required_argument, NULL, 'u'},
                                          {"workers", required_argument, NULL, 'w'},
                                          {"spin-us", required_argument, NULL, 's'},
                                          {"no-pin", no_argument, NULL, 'p'},
                                          {"no-probes", no_argument, NULL, 'n'},
                                          {"no-populate", no_argument, NULL, 'P'},
                                          {"event", required_argument, NULL, 'e'},
                                          {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (c == 'u')
            continue; /* names whose kernels these are, for ps */
        if (c == 'w')
            o->workers = (unsigned)strtoul(optarg, NULL, 10);
        else if (c == 's')
            o->spin_us = (unsigned)strtoul(optarg, NULL, 10);
        else if (c == 'p')
            o->no_pin = true;
        else if (c == 'n')
            o->no_probes = true;
        else if (c == 'P')
            o->no_populate = true;
        else if (c == 'e' && o->nevents < MAX_EVENTS)
            o->events[o->nevents++] = optarg;
        else
            return -EINVAL;
    }
    return 0;
}

static int start(executor *x, const options *o, gt_exec_hello *hello, char *err, size_t errlen)
{
    int rc = gt_counters_create(o->nevents ? o->events : NULL, o->nevents, o->workers ? o->workers : GT_POOL_MAX_WORKERS,
                                &x->counters, err, errlen);
    if (rc)
        return rc;
    gt_probes_start(o->no_probes, &x->probes, &x->probe_status);
    rc = gt_pool_create(&(gt_pool_config){.workers = o->workers, .no_pin = o->no_pin, .counters = x->counters,
                                          .probes = x->probes, .spin_us = o->spin_us},
                        &x->pool, err, errlen);
    if (rc)
        return rc;
    gt_pool_probe_status(x->pool, &x->probe_status);
    if (gt_wisdom_open_memory(&x->wisdom) != 0)
        return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
    hello->workers = gt_pool_workers(x->pool);
    hello->counters = *gt_counters_status(x->counters);
    hello->probes = x->probe_status;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--describe") == 0) {
        /* Without gridtuned no one waits for the answer: die with it, also when it went before
           this asked to (its pid, the last argument, is then no longer the parent's). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != (pid_t)strtol(argv[4], NULL, 10))
            return 1;
        return gt_describe_main(argv[2], argv[3]);
    }
    options o = {0};
    if (parse_options(argc, argv, &o) != 0) {
        fprintf(stderr, "gridtune-exec: gridtuned starts this program; it is not run by hand\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    executor x = {0};
    char err[GT_EXEC_ERR_MAX];
    if (gt_channel_attach(CHANNEL_MEM_FD, CHANNEL_SOCK_FD, &x.ch, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-exec: %s\n", err);
        return 2;
    }
    gt_channel_set_spin(x.ch, o.spin_us);
    x.populate = !o.no_populate;
    crash_record = gt_channel_crash_record(x.ch);
    if (gt_sandbox_catch_faults(record_fault, err, sizeof err) != 0) {
        fprintf(stderr, "gridtune-exec: %s\n", err);
        return 2;
    }
    if (!(x.reply = calloc(1, GT_CHANNEL_REPLY_MAX)))
        return 1;
    x.reply->op = GT_EXEC_HELLO;
    x.reply->hello = (gt_exec_hello){.protocol = GT_EXEC_PROTOCOL, .request_size = sizeof(gt_exec_request),
                                     .reply_size = sizeof(gt_exec_reply)};
    x.reply->rc = start(&x, &o, &x.reply->hello, x.reply->err, sizeof x.reply->err);
    if (x.reply->rc == 0)
        report_workers(&x);
    if (gt_channel_send(x.ch, x.reply, gt_exec_reply_size(x.reply), NULL, 0) == 0 && x.reply->rc == 0)
        serve(&x);
    if (x.pool)
        gt_pool_destroy(x.pool);
    gt_probes_close(x.probes);
    if (x.counters)
        gt_counters_destroy(x.counters);
    for (size_t i = 0; i < x.nkernels; i++)
        gt_module_close(x.kernels[i].module);
    for (size_t i = 0; i < x.nbuffers; i++)
        gt_guarded_map_close(&x.buffers[i].map);
    free(x.kernels);
    free(x.buffers);
    gt_wisdom_close(x.wisdom);
    gt_channel_close(x.ch);
    free(x.reply);
    return 0;
}
