# Cold launches with probes (after) over without (before) per benchmark and pass, with the probed side's picks.
import json, statistics as st
print("bench          pass  cold after/before ms   ratio   oracle best after/before ms  with probes' cold picks")
for b in ['copy_cols', 'copy_rows', 'transpose', 'conv11']:
    for p in (1, 2):
        r = {}
        for side in ('before', 'after'):
            j = json.load(open('%s-%s-%d.json' % (b, side, p)))['benchmarks'][0]
            r[side] = (st.median([s[0]['ns'] for s in j['series']]) / 1e6, j['oracle']['best_median_ns'] / 1e6,
                       [s[0]['schedule'] for s in j['series']])
        picks = sorted(set(x.replace('group=', 'g=').replace('item=', 'i=').replace('assign=', 'a=') for x in r['after'][2]))
        print("%-13s %4d  %7.1f / %7.1f  %6.2f   %6.1f / %6.1f   %s" % (b, p, r['after'][0], r['before'][0],
              r['after'][0] / r['before'][0], r['after'][1], r['before'][1], '; '.join(picks)[:160]))
