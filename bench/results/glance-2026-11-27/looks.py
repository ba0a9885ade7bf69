#!/usr/bin/env python3
"""looks.py DIR: the looks and glances of loop.sh's reports per side and benchmark: how many,
and their wall time summed over the run's cold launches (ms)."""
import collections, glob, json, os, sys

for side in ('before', 'after'):
    n, t = collections.Counter(), collections.Counter()
    for f in glob.glob(os.path.join(sys.argv[1], 'rep-*-%s' % side, '*.json')):
        r = json.load(open(f))
        for c in r['candidates']:
            for s in c['samples']:
                if s['kind'] in ('look', 'glance'):
                    n[(r['kernel'], s['kind'])] += 1
                    t[(r['kernel'], s['kind'])] += s['wall_ns']
    for k in sorted(n):
        print('%-6s %-14s %-7s %4d %8.1f' % (side, k[0], k[1], n[k], t[k] / 1e6))
