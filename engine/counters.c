/* counters.c: PAPI event sets, one per worker thread, checked once at creation.
 * gt_counters_create initialises PAPI for the process and probes the asked-for events on the
 * creating thread, so that every event that cannot be counted is reported with PAPI's reason
 * before any worker starts. Workers then attach to a slot each: a slot is touched only by
 * its own thread, so no lock is needed beyond PAPI's own. */
#include "counters.h"

#include <errno.h>
#include <papi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gt_counters_default_events[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_DCM"};
const unsigned gt_counters_default_nevents = sizeof gt_counters_default_events / sizeof gt_counters_default_events[0];

/* The event used when no asked-for event can be counted: per-thread CPU time in ns, which the
 * kernel keeps without any PMU, so it works in virtual machines too. */
static const char fallback_event[] = "perf::TASK-CLOCK";

typedef struct slot {
    bool attached;   /* set atomically: two threads must not share a slot */
    bool registered; /* the attached thread is registered with PAPI */
    bool running;    /* the event set is started and can be read */
    int eventset;
} slot;

struct gt_counters {
    gt_counter_status status;
    int codes[GT_COUNTERS_MAX]; /* PAPI codes of status.used */
    unsigned nslots;
    slot slots[];
};

/* PAPI is initialised once per process, whatever the number of counters objects; it is never
 * shut down, since a later create could not initialise it again. */
static pthread_once_t papi_once = PTHREAD_ONCE_INIT;
static char papi_failure[96]; /* empty: PAPI is usable; short enough for a reason and a note */

static unsigned long papi_thread_id(void)
{
    return (unsigned long)pthread_self();
}

static void papi_init(void)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        if (v < 0)
            snprintf(papi_failure, sizeof papi_failure, "PAPI_library_init: %s", PAPI_strerror(v));
        else
            snprintf(papi_failure, sizeof papi_failure, "the PAPI library is version %#x, built against %#x", v,
                     PAPI_VER_CURRENT);
        return;
    }
    int rc = PAPI_thread_init(papi_thread_id);
    if (rc != PAPI_OK)
        snprintf(papi_failure, sizeof papi_failure, "PAPI_thread_init: %s", PAPI_strerror(rc));
}

static int validate(const char *const *events, unsigned nevents, unsigned slots, char *err, size_t errlen)
{
    if (slots == 0) {
        snprintf(err, errlen, "a counters object needs at least 1 slot, one per thread that attaches; 0 were asked");
        return -EINVAL;
    }
    if (nevents == 0) {
        snprintf(err, errlen, "the event list is empty; pass NULL for the default events");
        return -EINVAL;
    }
    if (nevents > GT_COUNTERS_MAX) {
        snprintf(err, errlen, "%u events asked; the most that can be counted at once is %u", nevents, GT_COUNTERS_MAX);
        return -EINVAL;
    }
    for (unsigned i = 0; i < nevents; i++) {
        if (!events[i] || !events[i][0]) {
            snprintf(err, errlen, "event %u of %u has an empty name", i + 1, nevents);
            return -EINVAL;
        }
        size_t len = strlen(events[i]);
        if (len >= GT_COUNTER_NAME_MAX) {
            snprintf(err, errlen, "event name \"%.32s...\" is %zu characters long; the most is %d", events[i], len,
                     GT_COUNTER_NAME_MAX - 1);
            return -EINVAL;
        }
        for (unsigned j = 0; j < i; j++)
            if (strcmp(events[i], events[j]) == 0) {
                snprintf(err, errlen, "event \"%s\" is asked for twice", events[i]);
                return -EINVAL;
            }
    }
    return 0;
}

static void add_unavailable(gt_counter_status *st, const char *name, const char *why, const char *reason)
{
    if (st->nunavailable == GT_COUNTERS_UNAVAILABLE_MAX)
        return; /* cannot happen: at most GT_COUNTERS_MAX asked plus the fallback */
    unsigned k = st->nunavailable++;
    snprintf(st->unavailable[k].name, sizeof st->unavailable[k].name, "%s", name);
    snprintf(st->unavailable[k].reason, sizeof st->unavailable[k].reason, "%s: %s", why, reason);
}

static void mark_unavailable(gt_counter_status *st, const char *name, const char *why, int papi_rc)
{
    add_unavailable(st, name, why, PAPI_strerror(papi_rc));
}

/* Whether the event set into which every usable event so far was added takes one more. The
 * event is first tried alone, so that its own failure and a conflict with the events before
 * it give different reasons. perf_event opens the counter when it is added, so an accepted
 * event does count. */
static bool probe_event(gt_counter_status *st, int combined, const char *name, int *code)
{
    int rc = PAPI_event_name_to_code(name, code);
    if (rc != PAPI_OK) {
        /* PAPI 7.0 answers an unknown name with "Not supported", which reads as if the event
           existed: say what it means */
        bool unknown = rc == PAPI_ENOEVNT || rc == PAPI_ENOSUPP || rc == PAPI_ENOTPRESET;
        mark_unavailable(st, name,
                         unknown ? "no event of that name (PAPI_event_name_to_code)" : "PAPI_event_name_to_code", rc);
        return false;
    }
    int alone = PAPI_NULL;
    rc = PAPI_create_eventset(&alone);
    if (rc == PAPI_OK) {
        rc = PAPI_add_event(alone, *code);
        PAPI_cleanup_eventset(alone);
        PAPI_destroy_eventset(&alone);
    }
    if (rc != PAPI_OK) {
        mark_unavailable(st, name, "PAPI_add_event", rc);
        return false;
    }
    rc = PAPI_add_event(combined, *code);
    if (rc != PAPI_OK) {
        mark_unavailable(st, name, "cannot be counted with the events before it", rc);
        return false;
    }
    return true;
}

/* perf's software events (task clock, page faults...) describe themselves as PERF_COUNT_SW_*. */
static bool is_software_event(int code)
{
    PAPI_event_info_t info;
    return PAPI_get_event_info(code, &info) == PAPI_OK && strncmp(info.long_descr, "PERF_COUNT_SW_", 14) == 0;
}

static void probe_asked(gt_counters *c, const char *const *events, unsigned nevents)
{
    gt_counter_status *st = &c->status;
    int combined = PAPI_NULL;
    int rc = PAPI_create_eventset(&combined);
    if (rc != PAPI_OK) {
        for (unsigned i = 0; i < nevents; i++)
            mark_unavailable(st, events[i], "PAPI_create_eventset", rc);
        return;
    }
    for (unsigned i = 0; i < nevents; i++) {
        int code;
        if (probe_event(st, combined, events[i], &code)) {
            snprintf(st->used[st->nused], sizeof st->used[0], "%s", events[i]);
            c->codes[st->nused++] = code;
        }
    }
    PAPI_cleanup_eventset(combined);
    PAPI_destroy_eventset(&combined);
}

static void probe_fallback(gt_counters *c, const char *const *events, unsigned nevents)
{
    gt_counter_status *st = &c->status;
    for (unsigned i = 0; i < nevents; i++)
        if (strcmp(events[i], fallback_event) == 0) {
            /* asked for and already refused: its reason is listed once */
            st->mode = GT_COUNTERS_NONE;
            snprintf(st->note, sizeof st->note,
                     "no asked-for event can be counted here, %s included; only the monotonic clock is used",
                     fallback_event);
            return;
        }
    int combined = PAPI_NULL;
    int rc = PAPI_create_eventset(&combined);
    int code;
    bool ok = rc == PAPI_OK && probe_event(st, combined, fallback_event, &code);
    if (rc != PAPI_OK)
        mark_unavailable(st, fallback_event, "PAPI_create_eventset", rc);
    else {
        PAPI_cleanup_eventset(combined);
        PAPI_destroy_eventset(&combined);
    }
    if (!ok) {
        st->mode = GT_COUNTERS_NONE;
        snprintf(st->note, sizeof st->note,
                 "neither an asked-for event nor %s can be counted here; only the monotonic clock is used",
                 fallback_event);
        return;
    }
    st->mode = GT_COUNTERS_SOFTWARE;
    st->nused = 1;
    snprintf(st->used[0], sizeof st->used[0], "%s", fallback_event);
    c->codes[0] = code;
    snprintf(st->note, sizeof st->note,
             "no asked-for event can be counted here (a virtual machine without hardware counters?); "
             "using %s and the monotonic clock",
             fallback_event);
}

static void note_hardware(gt_counters *c, unsigned nevents)
{
    gt_counter_status *st = &c->status;
    bool all_software = true;
    for (unsigned i = 0; i < st->nused; i++)
        all_software = all_software && is_software_event(c->codes[i]);
    const char *software = !all_software    ? ""
                           : st->nused == 1 ? "; it is a software event, so no hardware counter is read"
                                            : "; all are software events, so no hardware counter is read";
    snprintf(st->note, sizeof st->note, "counting %u of the %u asked-for events%s", st->nused, nevents, software);
}

int gt_counters_create(const char *const *events, unsigned nevents, unsigned slots, gt_counters **out, char *err,
                       size_t errlen)
{
    if (!events) {
        events = gt_counters_default_events;
        nevents = gt_counters_default_nevents;
    }
    int rc = validate(events, nevents, slots, err, errlen);
    if (rc)
        return rc;
    gt_counters *c = calloc(1, sizeof *c + slots * sizeof c->slots[0]);
    if (!c) {
        snprintf(err, errlen, "out of memory creating counters for %u threads", slots);
        return -ENOMEM;
    }
    c->nslots = slots;
    for (unsigned i = 0; i < slots; i++)
        c->slots[i].eventset = PAPI_NULL;

    pthread_once(&papi_once, papi_init);
    gt_counter_status *st = &c->status;
    if (papi_failure[0]) {
        st->mode = GT_COUNTERS_NONE;
        bool fallback_asked = false;
        for (unsigned i = 0; i < nevents; i++) {
            add_unavailable(st, events[i], "PAPI is unusable", papi_failure);
            fallback_asked = fallback_asked || strcmp(events[i], fallback_event) == 0;
        }
        if (!fallback_asked)
            add_unavailable(st, fallback_event, "PAPI is unusable", papi_failure);
        snprintf(st->note, sizeof st->note, "PAPI is unusable (%s); only the monotonic clock is used", papi_failure);
    } else {
        probe_asked(c, events, nevents);
        if (st->nused > 0) {
            st->mode = GT_COUNTERS_HARDWARE;
            note_hardware(c, nevents);
        } else
            probe_fallback(c, events, nevents);
    }
    *out = c;
    return 0;
}

void gt_counters_destroy(gt_counters *c)
{
    free(c);
}

const gt_counter_status *gt_counters_status(const gt_counters *c)
{
    return &c->status;
}

static int papi_errno(int papi_rc)
{
    switch (papi_rc) {
    case PAPI_ENOMEM:
        return -ENOMEM;
    case PAPI_EPERM:
        return -EPERM;
    case PAPI_ESYS:
        return errno ? -errno : -EIO;
    default:
        return -EIO;
    }
}

/* Undoes a partial attach: the event set if any, then the thread's registration. */
static void release(slot *s)
{
    if (s->running) {
        long long ignored[GT_COUNTERS_MAX];
        PAPI_stop(s->eventset, ignored);
        s->running = false;
    }
    if (s->eventset != PAPI_NULL) {
        PAPI_cleanup_eventset(s->eventset);
        PAPI_destroy_eventset(&s->eventset);
        s->eventset = PAPI_NULL;
    }
    if (s->registered) {
        PAPI_unregister_thread();
        s->registered = false;
    }
}

int gt_counters_thread_attach(gt_counters *c, unsigned slot_index)
{
    if (slot_index >= c->nslots)
        return -EINVAL;
    slot *s = &c->slots[slot_index];
    if (__atomic_exchange_n(&s->attached, true, __ATOMIC_ACQ_REL))
        return -EBUSY;
    if (c->status.nused == 0)
        return 0;
    int rc = PAPI_register_thread();
    s->registered = rc == PAPI_OK;
    if (rc == PAPI_OK)
        rc = PAPI_create_eventset(&s->eventset);
    for (unsigned i = 0; rc == PAPI_OK && i < c->status.nused; i++)
        rc = PAPI_add_event(s->eventset, c->codes[i]);
    if (rc == PAPI_OK)
        rc = PAPI_start(s->eventset);
    if (rc != PAPI_OK) {
        int e = papi_errno(rc);
        release(s);
        __atomic_store_n(&s->attached, false, __ATOMIC_RELEASE);
        return e;
    }
    s->running = true;
    return 0;
}

void gt_counters_thread_read(gt_counters *c, unsigned slot_index, int64_t *values)
{
    unsigned n = c->status.nused;
    long long v[GT_COUNTERS_MAX] = {0};
    if (slot_index < c->nslots && c->slots[slot_index].running &&
        PAPI_read(c->slots[slot_index].eventset, v) != PAPI_OK)
        memset(v, 0, sizeof v);
    for (unsigned i = 0; i < n; i++)
        values[i] = v[i];
}

void gt_counters_thread_detach(gt_counters *c, unsigned slot_index)
{
    if (slot_index >= c->nslots)
        return;
    slot *s = &c->slots[slot_index];
    if (!__atomic_load_n(&s->attached, __ATOMIC_ACQUIRE))
        return;
    if (c->status.nused > 0)
        release(s);
    __atomic_store_n(&s->attached, false, __ATOMIC_RELEASE);
}
