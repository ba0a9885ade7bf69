/* instruments.c: the names of the counter modes and probe states, and the one line that sums
 * up the probes for logs, status and reports (instruments.h). */
#include "instruments.h"

#include <stdio.h>

const char *gt_counter_mode_name(gt_counter_mode m)
{
    switch (m) {
    case GT_COUNTERS_HARDWARE:
        return "hardware";
    case GT_COUNTERS_SOFTWARE:
        return "software";
    case GT_COUNTERS_NONE:
        return "none";
    }
    return "unknown";
}

const char *gt_probe_state_name(gt_probe_state s)
{
    switch (s) {
    case GT_PROBES_ON:
        return "on";
    case GT_PROBES_OFF:
        return "off";
    case GT_PROBES_UNAVAILABLE:
        return "unavailable";
    }
    return "unknown";
}

void gt_probe_status_summary(const gt_probe_status *st, char *out, size_t outlen)
{
    if (!st)
        snprintf(out, outlen, "unavailable (this executor has no probes)");
    else if (st->reason[0])
        snprintf(out, outlen, "%s (%s)", gt_probe_state_name(st->state), st->reason);
    else
        snprintf(out, outlen, "%s", gt_probe_state_name(st->state));
}
