#!/usr/bin/env python3
"""limit_vs_launch.py DIR: for each cold launch's report in DIR (gridtune-tune-bench --reports),
the analysis's time, its time limit, the remainder's time, the analysis's share of the launch,
and the limit over a tenth of the whole launch at the remainder's speed (what the budget's
share would be if samples ran at the launch's speed; 1 means they do)."""
import glob
import json
import os
import sys

print(f"{'report':<24} {'analysis ms':>11} {'limit ms':>9} {'remainder ms':>12} {'share':>6} {'limit/launch-tenth':>18}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-1.json"))):
    with open(path) as f:
        p = json.load(f)["phases"]
    groups = p["groups_analysis"] + p["groups_remainder"]
    tenth = 0.1 * p["remainder_ns"] / max(p["groups_remainder"], 1) * groups
    limit = p["analysis_limit_ns"] or 0
    print(f"{os.path.basename(path):<24} {p['analysis_ns'] / 1e6:11.2f} {limit / 1e6:9.2f} "
          f"{p['remainder_ns'] / 1e6:12.2f} {p['analysis_ns'] / p['total_ns']:6.2f} {limit / tenth:18.2f}")
