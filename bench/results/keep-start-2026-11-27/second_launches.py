#!/usr/bin/env python3
"""second_launches.py DIR BENCH: per side of a bench/abab run (JSON in DIR), the series' second
launch (the resumed analysis) over its first, how many second launches took over 1.5 times the
first, and how many resumed analyses moved away from the wisdom's winner ("won the resumed
analysis")."""
import glob
import json
import os
import statistics
import sys

for side in ("before", "after"):
    ratios, moved = [], 0
    for path in sorted(glob.glob(os.path.join(sys.argv[1], f"*-{side}-{sys.argv[2]}.json"))):
        with open(path) as f:
            for s in json.load(f)["benchmarks"][0]["series"]:
                ratios.append(s[1]["ns"] / s[0]["ns"])
                moved += "won the resumed" in s[1]["reason"]
    print(f"{side:<7} series {len(ratios)}  launch 2 / launch 1 median {statistics.median(ratios):.2f} "
          f"max {max(ratios):.2f}  over 1.5x: {sum(r > 1.5 for r in ratios)}  resumed analysis moved: {moved}")
