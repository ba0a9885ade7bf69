#!/usr/bin/env python3
"""first_shares.py DIR: from bench/abab's JSON runs in DIR, each contender's first share (the
first refining launch that ran it after an analysis) over its series' settled launch time (the
median of the series' last three launches), per side and benchmark, and how many first shares
were cut short ("began, so slowly that the winner ran the rest of it")."""
import glob
import json
import os
import re
import statistics
import sys

for side in ("before", "after"):
    benches = sorted({re.sub(r"^\d+-\w+-", "", os.path.basename(p))[:-5]
                      for p in glob.glob(os.path.join(sys.argv[1], f"*-{side}-*.json"))})
    for bench in benches:
        ratios, cut = [], 0
        for path in sorted(glob.glob(os.path.join(sys.argv[1], f"*-{side}-{bench}.json"))):
            with open(path) as f:
                series = json.load(f)["benchmarks"][0]["series"][0]
            settled = statistics.median(l["ns"] for l in series[-3:])
            seen = set()
            for l in series:
                m = re.search(r"which (\S+) (ran|began)", l["reason"])
                if l["reason"].startswith("refining") and m and m.group(1) not in seen:
                    seen.add(m.group(1))
                    ratios.append(l["ns"] / settled)
                    cut += "so slowly" in l["reason"]
                elif "analysis" in l["reason"][:40]:
                    seen = set()
        if ratios:
            print(f"{side:<7} {bench:<13} first shares {len(ratios):2d}  launch/settled median "
                  f"{statistics.median(ratios):.2f} mean {statistics.mean(ratios):.2f} max {max(ratios):.2f}  "
                  f"cut short {cut}")
