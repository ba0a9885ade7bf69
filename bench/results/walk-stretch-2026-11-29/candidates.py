#!/usr/bin/env python3
"""Prints each launch report's decision and, per sampled candidate, its analysis samples:
kind initial (l look, g glance, s sized, c confirm), cost per work-item, * when not used.
usage: candidates.py REPORT.json..."""
import json
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
for path in sys.argv[1:]:
    report = json.load(open(path))
    print('==', path, report['decision'].get('reason', '')[:160])
    for c in report['candidates']:
        samples = [x for x in c.get('samples', []) if x['kind'] != 'calibration']
        if not samples:
            continue
        costs = ' '.join('%s%.2f%s' % (x['kind'][0], x['cost_per_item'], '' if x['used'] else '*') for x in samples)
        print('  %-6s %-56s %s %s' % (c.get('axis'), c['schedule'], 'ELIM' if c.get('eliminated') else '    ', costs))
