# Per benchmark and pass: the median over series of the 10 launches' total, of launches 2-5,
# and the refining launches whose contender cost more than twice the winner's.
import json, re, statistics as st, sys
print("bench         pass  total of 10 launches ms (after/before)   launches 2-5 ms (after/before)   contenders >2x (after/before)")
for b in ['copy_rows', 'copy_cols', 'matmul_tiled']:
    for p in (1, 2):
        r = {}
        for side in ('before', 'after'):
            j = json.load(open('%s-%s-%d.json' % (b, side, p)))['benchmarks'][0]
            tot = st.median([sum(l['ns'] for l in s[:10]) / 1e6 for s in j['series']])
            early = st.median([sum(l['ns'] for l in s[1:5]) / 1e6 for s in j['series']])
            big = 0
            for s in j['series']:
                for l in s:
                    m = re.search(r'ran \(([\d.e+-]+) against ([\d.e+-]+)', l['reason'])
                    big += bool(m and float(m.group(1)) > 2 * float(m.group(2)))
            r[side] = (tot, early, big)
        print("%-12s %4d  %8.0f / %8.0f = %.2f            %7.0f / %7.0f = %.2f          %d / %d" % (
            b, p, r['after'][0], r['before'][0], r['after'][0] / r['before'][0], r['after'][1], r['before'][1],
            r['after'][1] / r['before'][1], r['after'][2], r['before'][2]))
