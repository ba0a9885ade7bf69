import json, glob, sys, statistics as st, collections
d = sys.argv[1]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
picks = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
best = {}
for f in sorted(glob.glob(d + '/r*-b*.json')):
    side = f.split('-b')[1][:-5]
    r = json.load(open(f))
    for b in r['benchmarks']:
        forced = {s['schedule']: s['median_ns'] for s in b['oracle']['schedules']}
        for s in b['series']:
            l = s[0]
            rows[b['benchmark']][side].append((l['ns'] / 1e6, forced[l['schedule']] / 1e6))
            picks[b['benchmark']][side][l['schedule']] += 1
print('%-14s %-5s %8s %8s %8s %10s' % ('bench', 'side', 'mean', 'p90', 'max', 'pick>1.1x'))
for bench, sides in rows.items():
    allpick = min(x[1] for v in sides.values() for x in v)
    for side, v in sorted(sides.items()):
        c = sorted(x[0] for x in v)
        print('%-14s %-5s %8.2f %8.2f %8.2f %10d' % (bench, side, st.mean(c), c[int(0.9 * len(c))], c[-1], sum(x[1] > 1.1 * allpick for x in v)))
