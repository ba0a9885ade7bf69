#!/usr/bin/env python3
"""cold_split.py RUN.json REPORTDIR: where a cold launch's time goes, over its reference.

RUN.json is gridtune-tune-bench's JSON of a run with --reports REPORTDIR (launch 1 of each
series is read from REPORTDIR/<bench>-<series>-1.json). For each series' cold launch, over
the reference (the cold pick forced right after it):
  cold/ref        the cold launch, timed whole by the bench
  rem-full/ref    the remainder's time scaled to the whole launch's workgroups
  analysis-extra  the analysis's time less what its workgroups would take at the reference's speed
  outside         the bench's time less the report's total (analysis and remainder batches):
                  planning, the tuner's own work between batches, the wisdom's save
then the medians over the series."""
import json
import os
import statistics
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
run = json.load(open(sys.argv[1]))
for bench in run["benchmarks"]:
    name, rows = bench["benchmark"], []
    for i, series in enumerate(bench["series"]):
        cold = series[0]
        path = os.path.join(sys.argv[2], "%s-%d-1.json" % (name, i + 1))
        if not os.path.exists(path):
            continue
        phases = json.load(open(path))["phases"]
        ref = cold["reference_ns"]
        rem_full = phases["remainder_ns"] * bench["groups_total"] / max(phases["groups_remainder"], 1)
        extra = phases["analysis_ns"] - ref * phases["groups_analysis"] / bench["groups_total"]
        rows.append((cold["ns"] / ref, rem_full / ref, extra / ref, (cold["ns"] - phases["total_ns"]) / ref))
        print("%-12s s%-2d cold/ref %.2f  rem-full/ref %.2f  analysis-extra %.3f  outside %.3f  %s"
              % (name, i + 1, *rows[-1], cold["schedule"]))
    if rows:
        print("%-12s median cold/ref %.2f  rem-full/ref %.2f  analysis-extra %.3f  outside %.3f"
              % (name, *[statistics.median(r[k] for r in rows) for k in range(4)]))
