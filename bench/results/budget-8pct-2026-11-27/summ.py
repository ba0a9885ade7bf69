import json, glob, sys, statistics as st, collections
d = sys.argv[1]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d + '/r*-b*.json')):
    side = f.split('-b')[1][:-5]
    r = json.load(open(f))
    for b in r['benchmarks']:
        forced = {s['schedule']: s['median_ns'] for s in b['oracle']['schedules']}
        for s in b['series']:
            l = s[0]
            rows[b['benchmark']][side].append((l['ns'] / 1e6, forced[l['schedule']] / 1e6, l['groups_analysis'] / l['groups_total']))
print('%-14s %-6s %9s %9s %9s %9s %4s' % ('bench', 'budget', 'cold ms', 'pick ms', 'cold/pick', 'analysed', 'n'))
for bench, sides in rows.items():
    for side, v in sorted(sides.items()):
        print('%-14s %-6s %9.2f %9.2f %9.3f %8.1f%% %4d' % (bench, side, st.median(x[0] for x in v), st.median(x[1] for x in v), st.median(x[0] / x[1] for x in v), 100 * st.median(x[2] for x in v), len(v)))
