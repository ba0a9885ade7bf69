import json, glob, sys, statistics as st, collections
d = sys.argv[1]
bench = sys.argv[2] if len(sys.argv) > 2 else 'copy_cols'
side_rows = collections.defaultdict(list)
for f in sorted(glob.glob(d + '/r*-*.json')):
    side = f.rsplit('-', 1)[1][:-5]
    r = json.load(open(f))
    for b in r['benchmarks']:
        if b['benchmark'] != bench:
            continue
        for s in b['series']:
            ms = [l['ns'] / 1e6 for l in s]
            side_rows[side].append((s[0]['schedule'], ms))
print('%-7s %6s %10s %10s %10s %10s %s' % ('side', 'series', 'cold ms', 'launch10', 'mean 1-10', 'mean 6-10', 'cold item orders (trap: tiled)'))
for side in ('before', 'after'):
    rows = side_rows[side]
    if not rows:
        continue
    items = collections.Counter(s.split('item=')[1].split(',')[0].split(':')[0] for s, _ in rows)
    print('%-7s %6d %10.2f %10.2f %10.2f %10.2f %s' % (side, len(rows), st.median(m[0] for _, m in rows),
          st.median(m[9] for _, m in rows), st.median(st.mean(m[:10]) for _, m in rows),
          st.median(st.mean(m[5:10]) for _, m in rows), dict(items)))
    for s, m in rows:
        if 'item=tiled' in s:
            print('   trap: %s  launches 1,5,10: %.1f %.1f %.1f' % (s, m[0], m[4], m[9]))
