#!/usr/bin/env python3
"""candidates.py REPORT.json: a launch report's candidates, one line each: the schedule, the
axis that listed it, its median cost per work-item (- without a used sample) and every sample
as kind:workgroups/wall us/cost per item (x: not used)."""
import json
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
report = json.load(open(sys.argv[1]))
print(report["decision"]["reason"])
for c in report["candidates"]:
    median = c["summary"].get("median")
    samples = " ".join("%s:%d/%.0f/%.3f%s" % (s["kind"][:4], s["groups"], s["wall_ns"] / 1e3, s["cost_per_item"],
                                              "" if s["used"] else "x") for s in c.get("samples", []))
    print("%-50s %-6s %s %s" % (c["schedule"], c["axis"], "%.3f" % median if median is not None else "-", samples))
