# Reads the two daemons' reports (daemon-samples.sh) and prints their analysis samples' figures.
import json, statistics as st
for s in 'AB':
    reps = json.load(open('/tmp/rt/d%s/reports.json' % s))
    n = dis = 0
    inv, lens, cal = [], [], []
    for r in reps:
        for c in r.get('candidates', []):
            for sm in c.get('samples', []):
                n += 1
                dis += bool(sm.get('disturbed'))
                inv.append(sm.get('probe', {}).get('involuntary_switches', 0))
                (cal if sm['kind'] == 'calibration' else lens).append(sm['wall_ns'] / 1e3)
    print('%s samples %d, disturbed %d (%.1f%%), involuntary switches per sample %.2f, median sample %.0f us, '
          'median calibration batch %.0f us' % (s, n, dis, 100.0 * dis / n, st.mean(inv), st.median(lens), st.median(cal)))
