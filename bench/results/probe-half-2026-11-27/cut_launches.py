"""Launches whose contender's first piece was cut short, over the median of the series'
launches 6 to N, per benchmark and side: python3 cut_launches.py ABAB_DIR"""
import glob
import json
import statistics as st
import sys

d = sys.argv[1]
for b in sorted({f.rsplit('-', 1)[1][:-5] for f in glob.glob(d + '/*-*-*.json')}):
    for side in ('before', 'after'):
        cut = []
        for f in sorted(glob.glob('%s/*-%s-%s.json' % (d, side, b))):
            s = json.load(open(f))['benchmarks'][0]['series'][0]
            base = st.median(l['ns'] for l in s[5:])
            cut += [l['ns'] / base for l in s if (l['reason'] or '').startswith('refining') and 'so slowly' in l['reason']]
        if cut:
            print('%-10s %-6s n=%2d median %.2f mean %.2f max %.2f' % (b, side, len(cut), st.median(cut), st.mean(cut), max(cut)))
