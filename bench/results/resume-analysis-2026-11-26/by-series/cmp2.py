import json, sys, glob, statistics as st
d = sys.argv[1]
def series(f):
    b = json.load(open(f))['benchmarks'][0]
    s = b['series'][0]
    return sum(l['ns'] for l in s) / 1e6, s[0]['ns'] / 1e6, s[-1]['ns'] / 1e6, sum(1 for l in s if 'resumed' in l['reason']), s[-1]['schedule']
for b in ['copy_cols', 'transpose', 'copy_rows']:
    rows = []
    print(b)
    print('  rep  total before  total after  ratio   launch10 before  after  ratio  resumed  last schedule after')
    for rep in range(1, 17):
        try:
            B = series('%s/%d-before-%s.json' % (d, rep, b)); A = series('%s/%d-after-%s.json' % (d, rep, b))
        except FileNotFoundError:
            continue
        rows.append((A[0] / B[0], A[2] / B[2]))
        print('  %3d  %12.1f %12.1f %6.2f   %15.1f %6.1f %6.2f  %7d  %s' % (rep, B[0], A[0], A[0] / B[0], B[2], A[2], A[2] / B[2], A[3], A[4]))
    print('  median ratio: total %.2f, launch 10 %.2f' % (st.median(r[0] for r in rows), st.median(r[1] for r in rows)))
