/* exec_proc.c: starting an executor process, talking to it, and telling what killed it
 * (exec_proc.h). */
#include "exec_proc.h"

#include "daemon/log.h"
#include "engine/channel.h"
#include "engine/pool.h"
#include "engine/sandbox.h"
#include "tuner/clock.h"
#include "tuner/grow.h"
#include "tuner/sentence.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HELLO_TIMEOUT_MS 30000 /* loading PAPI and the probes takes a few hundred ms */
#define CANCEL_POLL_MS 20      /* how often a waiting launch looks at its cancel flag */
#define MAX_ARGV (16 + 2 * GT_COUNTERS_MAX)

extern char **environ;

/* A buffer the executor must map: in the running process, and again in every new one. fd is
 * gridtuned's (the buffer's own), which stays open until the buffer is forgotten here. */
typedef struct mapping {
    uint64_t id, addr, size;
    int fd;
    bool live; /* mapped in the running process, at addr */
} mapping;

/* A kernel the executor must have: loaded before it seals itself, and again by every new
 * process, which loads them all before its first launch seals it. */
typedef struct wanted {
    uint64_t id;
    char *path, *name;
    bool loaded; /* in the running process */
} wanted;

struct gt_exec_proc {
    gt_exec_proc_config cfg;
    uid_t uid;
    pid_t pid; /* 0: not running */
    gt_channel *ch;
    gt_exec_hello hello;
    mapping *maps;
    size_t nmaps, capmaps;
    wanted *kernels;
    size_t nkernels, capkernels;
    bool sealed; /* the running process is in its sandbox */
    gt_exec_request req;
    gt_exec_reply *reply; /* GT_CHANNEL_REPLY_MAX bytes */
    size_t reply_len;
    gt_exec_outcome outcome; /* the latest launch's */
    /* pid, and the pauses: the CPU grant pauses and resumes the process from other threads */
    pthread_mutex_t pid_lock;
    uint64_t paused_at_ns, paused_ns; /* since when it is paused (0: it is not), and in all */
    unsigned pauses;
    pthread_mutex_t workers_lock; /* the status reads the workers from the loop's thread */
    unsigned nworkers;
    gt_exec_worker workers[GT_EXEC_WORKERS_MAX];
};

gt_exec_proc *gt_exec_proc_new(const gt_exec_proc_config *cfg, uid_t uid)
{
    gt_exec_proc *p = calloc(1, sizeof *p);
    if (p && !(p->reply = malloc(GT_CHANNEL_REPLY_MAX))) {
        free(p);
        return NULL;
    }
    if (p) {
        p->cfg = *cfg;
        p->uid = uid;
        pthread_mutex_init(&p->workers_lock, NULL);
        pthread_mutex_init(&p->pid_lock, NULL);
    }
    return p;
}

uid_t gt_exec_proc_uid(const gt_exec_proc *p)
{
    return p->uid;
}

const gt_exec_hello *gt_exec_proc_hello(const gt_exec_proc *p)
{
    return &p->hello;
}

/* Forgets the process that was (reaped: pid_lock held) and what it held. */
static void forget(gt_exec_proc *p)
{
    p->pid = 0;
    p->paused_at_ns = 0;
    for (size_t i = 0; i < p->nmaps; i++)
        p->maps[i].live = false;
    p->sealed = false;
    for (size_t i = 0; i < p->nkernels; i++)
        p->kernels[i].loaded = false;
}

/* Reaps the process (which is gone or going) and forgets what it held. Returns its status. */
static int reap(gt_exec_proc *p)
{
    int status = 0;
    pthread_mutex_lock(&p->pid_lock); /* no pause or resume signals a pid reused meanwhile */
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
        ;
    forget(p);
    pthread_mutex_unlock(&p->pid_lock);
    return status;
}

void gt_exec_proc_pause(gt_exec_proc *p)
{
    pthread_mutex_lock(&p->pid_lock);
    if (p->pid && !p->paused_at_ns) {
        kill(p->pid, SIGSTOP);
        p->paused_at_ns = gt_clock_ns();
        p->pauses++;
    }
    pthread_mutex_unlock(&p->pid_lock);
}

void gt_exec_proc_resume(gt_exec_proc *p)
{
    pthread_mutex_lock(&p->pid_lock);
    if (p->pid && p->paused_at_ns) {
        kill(p->pid, SIGCONT);
        p->paused_ns += gt_clock_ns() - p->paused_at_ns;
        p->paused_at_ns = 0;
    }
    pthread_mutex_unlock(&p->pid_lock);
}

unsigned gt_exec_proc_pauses(gt_exec_proc *p)
{
    pthread_mutex_lock(&p->pid_lock);
    unsigned n = p->pauses;
    pthread_mutex_unlock(&p->pid_lock);
    return n;
}

/* How long the process has been paused in all, the pause going on included. */
static uint64_t paused_ns(gt_exec_proc *p)
{
    pthread_mutex_lock(&p->pid_lock);
    uint64_t ns = p->paused_ns + (p->paused_at_ns ? gt_clock_ns() - p->paused_at_ns : 0);
    pthread_mutex_unlock(&p->pid_lock);
    return ns;
}

static void stop(gt_exec_proc *p)
{
    if (!p->pid)
        return;
    kill(p->pid, SIGKILL);
    reap(p);
    gt_channel_close(p->ch);
    p->ch = NULL;
}

/* Whether the process is there. One that died while idle (killed by an operator or the OOM
 * killer: no request of ours was running) is reaped and forgotten here, so that the request
 * about to be made starts a new one instead of failing on the dead one's channel. */
static bool running(gt_exec_proc *p)
{
    int status;
    if (!p->pid)
        return false;
    pthread_mutex_lock(&p->pid_lock);
    pid_t pid = p->pid;
    bool ended = waitpid(pid, &status, WNOHANG) == pid;
    if (ended)
        forget(p);
    pthread_mutex_unlock(&p->pid_lock);
    if (!ended)
        return true;
    gt_channel_close(p->ch);
    p->ch = NULL;
    char how[64];
    const char *abbrev = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : NULL;
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "killed by SIG%s", abbrev ? abbrev : "?");
    else
        snprintf(how, sizeof how, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    gt_log_warn("the executor of uid %u (pid %d) %s while idle; starting a new one", (unsigned)p->uid, (int)pid, how);
    return false;
}

void gt_exec_proc_free(gt_exec_proc *p)
{
    if (!p)
        return;
    stop(p);
    free(p->maps);
    for (size_t i = 0; i < p->nkernels; i++) {
        free(p->kernels[i].path);
        free(p->kernels[i].name);
    }
    free(p->kernels);
    free(p->reply);
    pthread_mutex_destroy(&p->workers_lock);
    pthread_mutex_destroy(&p->pid_lock);
    free(p);
}

unsigned gt_exec_proc_workers(gt_exec_proc *p, gt_exec_worker *out, unsigned max)
{
    pthread_mutex_lock(&p->workers_lock);
    unsigned n = p->nworkers < max ? p->nworkers : max;
    memcpy(out, p->workers, n * sizeof *out);
    pthread_mutex_unlock(&p->workers_lock);
    return n;
}

static int spawn(gt_exec_proc *p, int mem, int sock, char *err, size_t errlen)
{
    char workers[16], spin[16], uid[16];
    snprintf(workers, sizeof workers, "%u", p->cfg.workers);
    snprintf(uid, sizeof uid, "%u", (unsigned)p->uid);
    snprintf(spin, sizeof spin, "%u", p->cfg.spin_us);
    char *argv[MAX_ARGV];
    unsigned n = 0;
    argv[n++] = "gridtune-exec";
    argv[n++] = "--uid"; /* whose kernels it runs: for ps and the tests, it does not act on it */
    argv[n++] = uid;
    argv[n++] = "--workers";
    argv[n++] = workers;
    argv[n++] = "--spin-us";
    argv[n++] = spin;
    if (p->cfg.no_pin)
        argv[n++] = "--no-pin";
    if (p->cfg.no_probes)
        argv[n++] = "--no-probes";
    if (p->cfg.no_populate)
        argv[n++] = "--no-populate";
    for (unsigned i = 0; i < p->cfg.nevents && i < GT_COUNTERS_MAX; i++) {
        argv[n++] = "--event";
        argv[n++] = p->cfg.events[i];
    }
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    /* Its own descriptors and gridtuned's standard streams only (the terminal in the
       foreground, /dev/null once detached), every signal at its default and unblocked
       (gridtuned's threads block them all), and a process group of its own, out of reach of
       the terminal's signals. */
    posix_spawn_file_actions_adddup2(&fa, mem, 3);
    posix_spawn_file_actions_adddup2(&fa, sock, 4);
    posix_spawn_file_actions_addclosefrom_np(&fa, 5);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, p->cfg.path, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    pthread_mutex_lock(&p->pid_lock);
    p->pid = rc ? 0 : pid;
    pthread_mutex_unlock(&p->pid_lock);
    if (rc) {
        return gt_sentence_fail(err, errlen, -rc, "cannot start the executor %s: %s", p->cfg.path, strerror(rc));
    }
    return 0;
}

/* A reply of the executor, checked as far as every reply goes: its size, its op, and an
 * error code and sentence that make sense. */
static int check_reply(gt_exec_proc *p, uint32_t op, size_t len, char *err, size_t errlen)
{
    p->reply_len = len;
    if (len < GT_EXEC_REPLY_HEAD || p->reply->op != op || p->reply->nworkers > GT_EXEC_WORKERS_MAX ||
        gt_exec_reply_size(p->reply) > len)
        return gt_sentence_fail(err, errlen, -EPROTO, "the executor answered request %u with %zu bytes of reply %u",
                                op, len, len >= sizeof p->reply->op ? p->reply->op : 0);
    p->reply->err[sizeof p->reply->err - 1] = '\0';
    pthread_mutex_lock(&p->workers_lock);
    p->nworkers = p->reply->nworkers;
    memcpy(p->workers, p->reply->workers, p->nworkers * sizeof *p->workers);
    pthread_mutex_unlock(&p->workers_lock);
    if (p->reply->rc > 0 || p->reply->rc < -4095)
        return gt_sentence_fail(err, errlen, -EPROTO, "the executor answered with code %d", (int)p->reply->rc);
    if (p->reply->rc)
        snprintf(err, errlen, "%s", p->reply->err[0] ? p->reply->err : strerror(-p->reply->rc));
    return p->reply->rc;
}

static void restore(gt_exec_proc *p);

int gt_exec_proc_start(gt_exec_proc *p, char *err, size_t errlen)
{
    if (running(p))
        return 0;
    int mem, sock;
    int rc = gt_channel_create(&p->ch, &mem, &sock, err, errlen);
    if (rc)
        return rc;
    gt_channel_set_spin(p->ch, p->cfg.spin_us);
    rc = spawn(p, mem, sock, err, errlen);
    close(sock); /* mem is the channel's own descriptor */
    size_t len = 0;
    if (rc == 0 && (rc = gt_channel_receive(p->ch, p->reply, GT_CHANNEL_REPLY_MAX, &len, -1, HELLO_TIMEOUT_MS)))
        rc = gt_sentence_fail(err, errlen, rc, "the executor %s did not start: %s", p->cfg.path,
                              rc == -ETIMEDOUT ? "no hello within 30 s" : "it exited at once");
    if (rc == 0 && (rc = check_reply(p, GT_EXEC_HELLO, len, err, errlen)) == 0) {
        p->hello = p->reply->hello;
        if (p->hello.protocol != GT_EXEC_PROTOCOL || p->hello.request_size != sizeof(gt_exec_request) ||
            p->hello.reply_size != sizeof(gt_exec_reply) || p->hello.workers == 0 ||
            p->hello.workers > GT_POOL_MAX_WORKERS)
            rc = gt_sentence_fail(err, errlen, -EPROTO, "the executor %s is from another build of gridtune",
                                  p->cfg.path);
        p->hello.counters.note[sizeof p->hello.counters.note - 1] = '\0';
        p->hello.probes.reason[sizeof p->hello.probes.reason - 1] = '\0';
    }
    if (rc) {
        if (p->pid)
            stop(p);
        else {
            gt_channel_close(p->ch);
            p->ch = NULL;
        }
        return rc;
    }
    restore(p);
    return 0;
}

static const mapping *mapping_at(const gt_exec_proc *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmaps; i++)
        if (p->maps[i].addr && addr >= p->maps[i].addr && addr - p->maps[i].addr < p->maps[i].size + (1u << 20))
            return &p->maps[i];
    return NULL;
}

/* Where a fault's address lies, against the launch's buffer arguments. */
static void place_address(const gt_exec_proc *p, const gt_exec_launch *l, uint64_t addr, char *out, size_t len)
{
    const mapping *m = mapping_at(p, addr);
    for (unsigned i = 0; m && l && i < l->nargs && i < GT_MAX_ARGS; i++) {
        if (!l->args[i].is_buffer || l->args[i].buffer != m->id)
            continue;
        uint64_t off = addr - m->addr;
        if (off < m->size)
            snprintf(out, len, ", byte %" PRIu64 " of argument %u's buffer (%" PRIu64 " bytes)", off, i, m->size);
        else
            snprintf(out, len, ", %" PRIu64 " bytes past the end of argument %u's buffer (%" PRIu64 " bytes)",
                     off - m->size + 1, i, m->size);
        return;
    }
    snprintf(out, len, ", outside the launch's buffers");
}

/* The sentence for a process that died during a request. */
static int describe_death(gt_exec_proc *p, const gt_exec_launch *l, char *err, size_t errlen)
{
    gt_channel_crash crash = *gt_channel_crash_record(p->ch);
    int status = reap(p);
    gt_channel_close(p->ch);
    p->ch = NULL;
    if (!WIFSIGNALED(status))
        return gt_sentence_fail(err, errlen, -ECHILD, "the executor exited with status %d while running it",
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    int sig = WTERMSIG(status);
    char where[160] = "";
    if ((sig == SIGSEGV || sig == SIGBUS) && crash.signal == (uint32_t)sig) {
        char place[128];
        place_address(p, l, crash.addr, place, sizeof place);
        snprintf(where, sizeof where, " at address 0x%" PRIx64 "%s", crash.addr, place);
    } else if (sig == SIGSYS && crash.signal == (uint32_t)sig && crash.syscall >= 0) {
        char name[64];
        gt_sandbox_syscall_name(crash.syscall, name, sizeof name);
        snprintf(where, sizeof where, ": it called %s, which the executor's sandbox forbids", name);
    }
    const char *abbrev = sigabbrev_np(sig);
    return gt_sentence_fail(err, errlen, -ECHILD, "the kernel killed its executor with SIG%s (%s)%s",
                            abbrev ? abbrev : "?", strsignal(sig), where);
}

/* Sends the request (the process must be running). */
static int send_request(gt_exec_proc *p, const int *fds, unsigned nfds, char *err, size_t errlen)
{
    int rc = gt_channel_send(p->ch, &p->req, gt_exec_request_size(p->req.op), fds, nfds);
    if (rc == -EPIPE)
        return describe_death(p, p->req.op == GT_EXEC_LAUNCH ? &p->req.launch : NULL, err, errlen);
    if (rc)
        return gt_sentence_fail(err, errlen, rc, "cannot reach the executor: %s", strerror(-rc));
    return 0;
}

/* Waits for the reply to the request sent; see gt_exec_proc_launch for the waiting. */
static int await_reply(gt_exec_proc *p, unsigned deadline_ms, const gt_exec_cancel *cancel, char *err, size_t errlen)
{
    const gt_exec_launch *l = p->req.op == GT_EXEC_LAUNCH ? &p->req.launch : NULL;
    /* the deadline counts the time the process ran, not the time the CPU grant paused it */
    uint64_t start = gt_clock_ns(), paused_before = paused_ns(p), ran_ms = 0;
    for (;;) {
        int slice = cancel ? CANCEL_POLL_MS : -1;
        if (deadline_ms && (slice < 0 || (uint64_t)slice > deadline_ms - ran_ms))
            slice = (int)(deadline_ms - ran_ms);
        size_t len = 0;
        int rc = gt_channel_receive(p->ch, p->reply, GT_CHANNEL_REPLY_MAX, &len, -1, slice);
        if (rc == 0)
            return check_reply(p, p->req.op, len, err, errlen);
        if (rc == -EPIPE)
            return describe_death(p, l, err, errlen);
        if (rc != -ETIMEDOUT)
            return gt_sentence_fail(err, errlen, rc, "waiting for the executor: %s", strerror(-rc));
        uint64_t paused = paused_ns(p) - paused_before, waited = gt_clock_ns() - start;
        ran_ms = waited > paused ? (waited - paused) / 1000000 : 0;
        bool cancelled = cancel && cancel->cancelled(cancel->ctx);
        if (cancelled || (deadline_ms && ran_ms >= deadline_ms)) {
            stop(p);
            return cancelled ? gt_sentence_fail(err, errlen, -ECANCELED, "it was cancelled while running")
                             : gt_sentence_fail(err, errlen, -ETIMEDOUT, "it ran past its deadline of %u ms",
                                                deadline_ms);
        }
    }
}

/* Sends the request and waits for its reply. */
static int request(gt_exec_proc *p, const int *fds, unsigned nfds, unsigned deadline_ms, const gt_exec_cancel *cancel,
                   char *err, size_t errlen)
{
    /* Callers start the process before they fill p->req: a start sends the process its
       kernels and buffers through p->req itself. */
    if (!p->pid)
        return gt_sentence_fail(err, errlen, -ESRCH, "its executor is not running (it ended just before)");
    int rc = send_request(p, fds, nfds, err, errlen);
    return rc ? rc : await_reply(p, deadline_ms, cancel, err, errlen);
}

static mapping *find_mapping(gt_exec_proc *p, uint64_t id)
{
    for (size_t i = 0; i < p->nmaps; i++)
        if (p->maps[i].id == id)
            return &p->maps[i];
    return NULL;
}

static int send_map(gt_exec_proc *p, mapping *m, char *err, size_t errlen)
{
    p->req = (gt_exec_request){.op = GT_EXEC_MAP, .map = {.id = m->id, .size = m->size}};
    int rc = request(p, &m->fd, 1, 0, NULL, err, errlen);
    m->live = rc == 0;
    if (rc == 0)
        m->addr = p->reply->map.addr;
    return rc;
}

int gt_exec_proc_map(gt_exec_proc *p, uint64_t id, int fd, uint64_t size, char *err, size_t errlen)
{
    mapping *m = find_mapping(p, id);
    if (m && m->live && p->pid) /* a launch's gt_exec_proc_load looked whether it still runs */
        return 0;
    if (!m) {
        if (!gt_grow((void **)&p->maps, &p->capmaps, p->nmaps, sizeof *p->maps))
            return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
        m = &p->maps[p->nmaps++];
        *m = (mapping){.id = id, .fd = fd, .size = size};
    }
    int rc = gt_exec_proc_start(p, err, errlen);
    return rc ? rc : m->live ? 0 : send_map(p, m, err, errlen);
}

void gt_exec_proc_unmap(gt_exec_proc *p, uint64_t id)
{
    mapping *m = find_mapping(p, id);
    if (!m)
        return;
    bool live = m->live && p->pid;
    *m = p->maps[--p->nmaps];
    if (live) {
        p->req = (gt_exec_request){.op = GT_EXEC_UNMAP, .unmap = {.id = id}};
        char err[GT_EXEC_ERR_MAX];
        (void)request(p, NULL, 0, 0, NULL, err, sizeof err);
    }
}

static int send_load(gt_exec_proc *p, wanted *k, char *err, size_t errlen)
{
    p->req = (gt_exec_request){.op = GT_EXEC_LOAD, .load = {.id = k->id}};
    snprintf(p->req.load.path, sizeof p->req.load.path, "%s", k->path);
    snprintf(p->req.load.name, sizeof p->req.load.name, "%s", k->name);
    int rc = request(p, NULL, 0, 0, NULL, err, errlen);
    k->loaded = rc == 0;
    return rc;
}

static wanted *find_wanted(gt_exec_proc *p, uint64_t id)
{
    for (size_t i = 0; i < p->nkernels; i++)
        if (p->kernels[i].id == id)
            return &p->kernels[i];
    return NULL;
}

int gt_exec_proc_load(gt_exec_proc *p, uint64_t id, const char *path, const char *name, char *err, size_t errlen)
{
    wanted *k = find_wanted(p, id);
    if (k && k->loaded && running(p))
        return 0;
    if (!k) {
        if (strlen(path) >= sizeof p->req.load.path || strlen(name) >= sizeof p->req.load.name)
            return gt_sentence_fail(err, errlen, -ENAMETOOLONG, "the kernel's path or name is too long");
        if (!gt_grow((void **)&p->kernels, &p->capkernels, p->nkernels, sizeof *p->kernels))
            return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
        k = &p->kernels[p->nkernels];
        *k = (wanted){.id = id, .path = strdup(path), .name = strdup(name)};
        if (!k->path || !k->name) {
            free(k->path);
            free(k->name);
            return gt_sentence_fail(err, errlen, -ENOMEM, "out of memory");
        }
        p->nkernels++;
    }
    /* A process in its sandbox cannot load: a new one loads everything wanted, this kernel
       too, and seals itself at its first launch. */
    if (p->pid && p->sealed)
        stop(p);
    int rc = gt_exec_proc_start(p, err, errlen);
    return rc ? rc : k->loaded ? 0 : send_load(p, k, err, errlen);
}

void gt_exec_proc_forget(gt_exec_proc *p, uint64_t id)
{
    wanted *k = find_wanted(p, id);
    if (!k)
        return;
    free(k->path);
    free(k->name);
    *k = p->kernels[--p->nkernels];
}

/* Everything wanted, into a new process: every kernel, loaded (one that does not load, its file
 * gone, stays unloaded: a launch that needs it tries again and says why it fails), and every
 * buffer, mapped and populated, so that no launch after a restart faults its pages in. */
static void restore(gt_exec_proc *p)
{
    char err[GT_EXEC_ERR_MAX];
    for (size_t i = 0; i < p->nkernels && p->pid; i++)
        (void)send_load(p, &p->kernels[i], err, sizeof err);
    for (size_t i = 0; i < p->nmaps && p->pid; i++)
        (void)send_map(p, &p->maps[i], err, sizeof err);
}

static int seal(gt_exec_proc *p, char *err, size_t errlen)
{
    p->req = (gt_exec_request){.op = GT_EXEC_SEAL};
    int rc = request(p, NULL, 0, 0, NULL, err, errlen);
    if (rc) {
        stop(p); /* never run a kernel outside the sandbox */
        return rc;
    }
    p->sealed = true;
    return 0;
}

/* The launch's reply, taken (rc 0 or the launch's own failure). */
static int take_outcome(gt_exec_proc *p, int rc, const gt_exec_outcome **out, const void **result)
{
    if (rc)
        return rc;
    p->outcome = p->reply->launch;
    if (p->outcome.result_len > p->reply_len - gt_exec_reply_size(p->reply))
        p->outcome.result_len = 0; /* claims more than it sent: no report */
    *out = &p->outcome;
    *result = gt_exec_reply_result(p->reply);
    return 0;
}

int gt_exec_proc_launch(gt_exec_proc *p, const gt_exec_launch *launch, unsigned deadline_ms, const gt_exec_cancel *cancel,
                        const gt_exec_outcome **out, const void **result, char *err, size_t errlen)
{
    int rc = p->pid && !p->sealed ? seal(p, err, errlen) : 0;
    if (rc)
        return rc;
    p->req.op = GT_EXEC_LAUNCH;
    p->req.launch = *launch;
    return take_outcome(p, request(p, NULL, 0, deadline_ms, cancel, err, errlen), out, result);
}

bool gt_exec_proc_ready(gt_exec_proc *p, uint64_t kernel, const uint64_t *buffers, unsigned nbuffers)
{
    if (!p->sealed || !running(p))
        return false;
    wanted *k = find_wanted(p, kernel);
    if (!k || !k->loaded)
        return false;
    for (unsigned i = 0; i < nbuffers; i++) {
        mapping *m = find_mapping(p, buffers[i]);
        if (!m || !m->live)
            return false;
    }
    return true;
}

int gt_exec_proc_launch_send(gt_exec_proc *p, const gt_exec_launch *launch, char *err, size_t errlen)
{
    p->req.op = GT_EXEC_LAUNCH;
    p->req.launch = *launch;
    return send_request(p, NULL, 0, err, errlen);
}

int gt_exec_proc_launch_poll(gt_exec_proc *p, const gt_exec_outcome **out, const void **result, char *err,
                             size_t errlen)
{
    size_t len = 0;
    if (gt_channel_receive(p->ch, p->reply, GT_CHANNEL_REPLY_MAX, &len, -1, 0) != 0)
        return -EINPROGRESS; /* not yet, or the process is gone: gt_exec_proc_launch_wait says */
    return take_outcome(p, check_reply(p, GT_EXEC_LAUNCH, len, err, errlen), out, result);
}

int gt_exec_proc_launch_wait(gt_exec_proc *p, unsigned deadline_ms, const gt_exec_cancel *cancel,
                             const gt_exec_outcome **out, const void **result, char *err, size_t errlen)
{
    return take_outcome(p, await_reply(p, deadline_ms, cancel, err, errlen), out, result);
}
