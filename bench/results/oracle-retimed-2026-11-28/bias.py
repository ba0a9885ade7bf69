#!/usr/bin/env python3
"""bias.py: how far below its schedule's cost the oracle best's median is, from a tune run's
JSON. For every way of splitting the 5 rounds into 3 and 2, the best is chosen by the median of
the 3 and its cost taken as the mean of the other 2; the ratio of the two, over the same ratio
of the median schedule (which takes out the rounds' own phases), is the bias of choosing.

usage: bias.py TUNE_JSON...
"""
import itertools
import json
import statistics as st
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    for b in doc["benchmarks"]:
        s = b["oracle"]["schedules"]
        if len(s) < 5:
            continue
        rounds = len(s[0]["runs_ns"])
        ratios = []
        for a in itertools.combinations(range(rounds), 3):
            rest = [i for i in range(rounds) if i not in a]
            chose = lambda x: st.median([x["runs_ns"][i] for i in a])
            other = lambda x: st.mean([x["runs_ns"][i] for i in rest])
            best = min(s, key=chose)
            typical = st.median([other(x) / chose(x) for x in s])
            ratios.append(other(best) / chose(best) / typical)
        print(f"{path}: {b['benchmark']:14s} {len(s):3d} schedules  bias {st.median(ratios):.3f}  "
              f"splits {min(ratios):.2f}-{max(ratios):.2f}")
