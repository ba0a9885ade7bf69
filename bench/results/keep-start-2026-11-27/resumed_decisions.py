#!/usr/bin/env python3
"""resumed_decisions.py FILE...: each report's decision (source, winner), its pick's median and
the median of candidate 0 (the wisdom's winner a resumed analysis starts from), and whether the
pick ended above candidate 0's median."""
import json
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        r = json.load(f)
    d, c = r["decision"], r["candidates"]
    start = c[0]["summary"]["median"]
    pick = next(x for x in c if x["schedule"] == d["winner"])["summary"]["median"]
    above = d["winner"] != c[0]["schedule"] and pick >= start
    print(f"{path.split('/')[-1]:<20} {d['source']:<9} {d['winner']:<48} pick {pick:.3f} start {start:.3f}"
          f"{'  ABOVE' if above else ''}")
