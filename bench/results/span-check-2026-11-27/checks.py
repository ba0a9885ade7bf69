#!/usr/bin/env python3
"""checks.py DIR: in the reports loop.sh kept (DIR/rep-<rep>-<side>/<bench>-<series>-1.json),
the cold launches whose analysis ran a span check (a group-axis candidate with a span of 1
beside group-axis candidates with a wider span), and how many of them the check's candidate
won, per benchmark and side."""
import collections, glob, json, re, sys

checks, won = collections.Counter(), collections.Counter()
for f in sorted(glob.glob(sys.argv[1] + '/rep-*-*/*.json')):
    side = f.split('/')[-2].split('-')[-1]
    bench = re.sub(r'-\d+-\d+\.json$', '', f.split('/')[-1])
    d = json.load(open(f))
    group = [c for c in d['candidates'] if c.get('axis') == 'group']
    wide = [c for c in group if 'span=' in c['schedule']]
    one = [c for c in group if 'span=' not in c['schedule'] and c['samples']]
    if wide and one:
        checks[(bench, side)] += 1
        won[(bench, side)] += d['decision']['winner'] == one[0]['schedule']
for k in sorted(checks):
    print('%-14s %-6s checks %2d  won %2d' % (k[0], k[1], checks[k], won[k]))
