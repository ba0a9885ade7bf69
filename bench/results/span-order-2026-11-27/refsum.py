#!/usr/bin/env python3
"""refsum.py DIR...: cold launch over its reference (the pick forced right after), per benchmark and side."""
import json,glob,os,sys,statistics as st,collections
v=collections.defaultdict(list)
for d in sys.argv[1:]:
    for f in glob.glob(os.path.join(d,'*-*-*.json')):
        rep,side,bench=os.path.basename(f)[:-5].split('-',2)
        for ser in json.load(open(f))['benchmarks'][0]['series']:
            l=ser[0]
            v[(bench,side)].append((l['ns']/l['reference_ns'], l['ns']/1e6, l['reference_ns']/1e6))
for (bench,side),x in sorted(v.items(), key=lambda k:(k[0][0],k[0][1]!='before')):
    print('%-14s %-6s n=%2d cold/ref median %.3f mean %.3f | cold median %.1f ref median %.1f'%(bench,side,len(x),st.median(a for a,_,_ in x),st.mean(a for a,_,_ in x),st.median(b for _,b,_ in x),st.median(c for _,_,c in x)))
