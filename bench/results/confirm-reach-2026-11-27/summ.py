#!/usr/bin/env python3
"""summ.py DIR: cold launches of loop.sh's runs, before against after, pooled over the reps.

Per benchmark and side: the cold launches' median and mean (ms, the tune bench's whole-launch
time), the analysis's and the confirmation's median time (ms, from the reports), the launches
whose pick is more than 1.5x the best pick's forced time in the same file ("bad picks"), and
the after/before ratio of the medians."""
import glob, json, os, statistics as st, sys

d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, '*-*-*.json'))):
    rep, side, bench = os.path.basename(f)[:-5].split('-', 2)
    j = json.load(open(f))
    b = j['benchmarks'][0]
    forced = {s['schedule']: s['median_ns'] for s in b['oracle']['schedules']}
    best = min(forced[l['schedule']] for ser in b['series'] for l in ser[:1])
    for i, ser in enumerate(b['series']):
        l = ser[0]
        rp = os.path.join(d, 'rep-%s-%s' % (rep, side), '%s-%d-1.json' % (bench, i + 1))
        r = json.load(open(rp))
        conf = sum(s['wall_ns'] for c in r['candidates'] for s in c['samples'] if s['kind'] == 'confirm')
        rows.setdefault((bench, side), []).append(
            (l['ns'] / 1e6, r['phases']['analysis_ns'] / 1e6, conf / 1e6, forced[l['schedule']] > 1.5 * best))
print('%-14s %-6s %3s %9s %9s %9s %9s %5s %8s' % ('benchmark', 'side', 'n', 'median', 'mean', 'analysis', 'confirm',
                                               'bad', 'after/before'))
for bench in sorted({k[0] for k in rows}):
    med = {}
    for side in ('before', 'after'):
        v = rows.get((bench, side), [])
        if not v:
            continue
        med[side] = st.median(x[0] for x in v)
        ratio = '%.2f' % (med['after'] / med['before']) if side == 'after' else ''
        print('%-14s %-6s %3d %9.2f %9.2f %9.2f %9.2f %5d %8s' % (
            bench, side, len(v), med[side], st.mean(x[0] for x in v), st.median(x[1] for x in v),
            st.median(x[2] for x in v), sum(x[3] for x in v), ratio))
