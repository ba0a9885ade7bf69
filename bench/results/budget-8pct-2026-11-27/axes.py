#!/usr/bin/env python3
# axes.py REPORT...: per cold launch report, the analysis time, its limit, the remainder, and the
# wall time and count of samples per axis (looks, glances) and per other kind (calibration,
# sized, confirm), ms.
import json, sys, collections
for f in sys.argv[1:]:
    r = json.load(open(f))
    per = collections.Counter(); n = collections.Counter()
    for c in r['candidates']:
        for s in c['samples']:
            key = c['axis'] if s['kind'] in ('look', 'glance', 'sample') else s['kind']
            per[key] += s['wall_ns'] / 1e6; n[key] += 1
    ph = r['phases']
    print('%-40s an %.2f ms (limit %.2f) rem %.2f %s | %s' % (f.split('/')[-1], ph['analysis_ns']/1e6, ph['analysis_limit_ns']/1e6, ph['remainder_ns']/1e6,
        r['decision'].get('winner', '?') if isinstance(r['decision'], dict) else '?',
        ' '.join('%s %.2f/%d' % (k, per[k], n[k]) for k in sorted(per))))
