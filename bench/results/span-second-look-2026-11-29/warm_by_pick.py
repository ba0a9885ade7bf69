#!/usr/bin/env python3
"""warm_by_pick.py LAUNCHES.txt [A_NAME B_NAME]: ab_cold.c's stderr (a line per launch pair:
daemon a or b, round, warm ms, pick) summarised per daemon: the median and mean warm launch,
and the same over the launches whose pick was linear items at copy_rows' row-wide span (1024)
and over the others."""
import statistics as st
import sys

rows = [l.split() for l in open(sys.argv[1]) if l[:2] in ("a ", "b ")]
names = sys.argv[2:4] if len(sys.argv) >= 4 else ["a", "b"]
for d, name in zip("ab", names):
    r = [(float(x[2]), x[3]) for x in rows if x[0] == d]
    row = [t for t, p in r if "span=1024,item=linear" in p]
    rest = [t for t, p in r if "span=1024,item=linear" not in p]
    print("%-10s all %d: median %.2f mean %.2f | row-wide %d: median %s | others %d: median %s" % (
        name, len(r), st.median(t for t, _ in r), st.mean(t for t, _ in r), len(row),
        "%.2f" % st.median(row) if row else "-", len(rest), "%.2f" % st.median(rest) if rest else "-"))
