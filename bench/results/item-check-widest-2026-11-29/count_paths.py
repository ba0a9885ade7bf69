#!/usr/bin/env python3
"""count_paths.py REPORTS.jsonl...: per file of cold launch reports (a JSON object a line, as
ab_cold.c keeps them), how many launches picked linear items at copy_rows' row-wide span (1024),
how many took path A (the span axis run under an item order other than linear) and how many of
those still ended at the row span."""
import json, sys
for v in sys.argv[1:]:
    n=trig=good=goodtrig=0
    for line in open(v):
        j=json.loads(line); n+=1
        ok='span=1024,item=linear' in j['decision']['winner']
        good+=ok
        t=any(c['samples'] and c.get('axis')=='span' and c.get('style')=='span=series' and 'item=linear' not in c['schedule'] for c in j['candidates'])
        trig+=t; goodtrig+= t and ok
    print(v, "cold launches", n, "| row-wide span with linear items picked", good, "| span axis ran under another item order:", trig, "of which row-wide linear picked", goodtrig)
