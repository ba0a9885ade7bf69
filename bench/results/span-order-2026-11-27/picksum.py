#!/usr/bin/env python3
"""picksum.py BENCH DIR...: per side, each cold launch and its pick's forced time over the default's forced
time in the same process (the tune bench's oracle), and the cold launch over its reference."""
import json,glob,os,sys,statistics as st,collections
bench=sys.argv[1]
v=collections.defaultdict(list)
for d in sys.argv[2:]:
    for f in glob.glob(os.path.join(d,'*-*-%s.json'%bench)):
        rep,side,b=os.path.basename(f)[:-5].split('-',2)
        if b!=bench: continue
        B=json.load(open(f))['benchmarks'][0]
        forced={s['schedule']: s['median_ns'] for s in B['oracle']['schedules']}
        dflt=forced['group=linear,item=linear,assign=stealing']
        for ser in B['series']:
            l=ser[0]
            v[side].append((l['ns']/dflt, forced[l['schedule']]/dflt, l['ns']/l['reference_ns'] if l.get('reference_ns') else float('nan')))
for side in ('before','after'):
    x=v[side]
    if not x: continue
    print('%-14s %-6s n=%2d cold/default %.3f  pick/default %.3f (mean %.3f)  cold/ref %.3f'%(bench,side,len(x),st.median(a for a,_,_ in x),st.median(b for _,b,_ in x),st.mean(b for _,b,_ in x),st.median(c for _,_,c in x)))
