import json, sys, statistics as st
d = sys.argv[1]
def steady(f):
    s = json.load(open(f))['benchmarks'][0]['series'][0]
    return st.median(l['ns'] for l in s[5:]) / 1e6
for b, reps in [('copy_cols', range(1, 17)), ('transpose', range(9, 17)), ('copy_rows', range(1, 9))]:
    r = []
    for rep in reps:
        B = steady('%s/%d-before-%s.json' % (d, rep, b)); A = steady('%s/%d-after-%s.json' % (d, rep, b))
        r.append(A / B)
    r.sort()
    print('%-10s launches 6-10 median, after/before per pair: median %.2f  [%s]' % (b, st.median(r), ' '.join('%.2f' % x for x in r)))
