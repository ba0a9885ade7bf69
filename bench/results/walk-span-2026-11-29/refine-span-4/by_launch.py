#!/usr/bin/env python3
"""Per run directory of reports (REP-before, REP-after): each benchmark's mean launch time and
the median over the series of each launch, from the reports' phases.total_ns, and the
schedule of each series' last launch. usage: by_launch.py DIR BENCH..."""
import glob
import json
import statistics
import sys

root, benches = sys.argv[1], sys.argv[2:]
for b in benches:
    for d in sorted(glob.glob(root + '/*')):
        files = glob.glob(f'{d}/{b}-*-*.json')
        if not files:
            continue
        n = max(int(f.rsplit('-', 1)[1].split('.')[0]) for f in files)
        per = [statistics.median(json.load(open(f))['phases']['total_ns'] / 1e6 for f in glob.glob(f'{d}/{b}-*-{k}.json'))
               for k in range(1, n + 1)]
        mean = statistics.mean(json.load(open(f))['phases']['total_ns'] / 1e6 for f in files)
        last = [json.load(open(f))['decision'].get('winner', '') for f in glob.glob(f'{d}/{b}-*-{n}.json')]
        print(f'{b:10s} {d.split("/")[-1]:9s} mean {mean:6.1f} ms  by launch: ' + ' '.join('%.0f' % x for x in per))
        print('    last:', '; '.join(last))
