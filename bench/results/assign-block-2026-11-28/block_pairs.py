#!/usr/bin/env python3
"""block_pairs.py RUN.json...: block against its stealing twin in gridtune-tune-bench oracles.

For every oracle schedule with assign=block whose twin with assign=stealing (the same orders
and span) the same run's oracle also forced, the block one's first-round median over the
twin's. Prints per benchmark and over all runs: pairs, median, 10th and 90th percentiles
(nearest rank), and how many pairs block won or lost by more than 3%."""
import json
import statistics
import sys


def pairs(path):
    out = []
    for bench in json.load(open(path))["benchmarks"]:
        med = {s["schedule"]: s["median_ns"] for s in bench["oracle"]["schedules"]}
        for sched, ns in med.items():
            twin = sched.replace("assign=block", "assign=stealing")
            if sched.endswith("assign=block") and twin in med:
                out.append((bench["benchmark"], ns / med[twin]))
    return out


def line(label, ratios):
    r = sorted(ratios)
    n = len(r)
    return "%-14s %4d pairs  median %.3f  p10 %.3f  p90 %.3f  block >3%% faster %3d, >3%% slower %3d" % (
        label, n, statistics.median(r), r[round(0.1 * (n - 1))], r[round(0.9 * (n - 1))],
        sum(x < 0.97 for x in r), sum(x > 1.03 for x in r))


if len(sys.argv) < 2:
    sys.exit(__doc__)
everything = [p for path in sys.argv[1:] for p in pairs(path)]
for name in sorted({b for b, _ in everything}):
    print(line(name, [x for b, x in everything if b == name]))
print(line("all", [x for _, x in everything]))
