#!/usr/bin/env python3
"""calsum.py DIR: per benchmark and side, from loop.sh's reports: analyses, median samples per
analysis (calibration left out), the median length of the non-group looks and sized samples
over the asked 250 us, the share of such samples beyond 1.3x the asked, and the cold median."""
import json,glob,os,sys,statistics as st,collections
d=sys.argv[1]
rows=collections.defaultdict(lambda: {'n':[], 'len':[], 'cold':[], 'pick':collections.Counter()})
for f in sorted(glob.glob(os.path.join(d,'*-*-*.json'))):
    rep,side,bench=os.path.basename(f)[:-5].split('-',2)
    b=json.load(open(f))['benchmarks'][0]
    for i,ser in enumerate(b['series']):
        r=json.load(open(os.path.join(d,'rep-%s-%s'%(rep,side),'%s-%d-1.json'%(bench,i+1))))
        asked=r['tuning']['sample_ns']
        smp=[(c['axis'],s) for c in r['candidates'] for s in c['samples'] if s['kind']!='calibration']
        row=rows[(bench,side)]
        row['n'].append(len(smp))
        row['len'] += [s['wall_ns']/asked for a,s in smp if a!='group' and s['kind'] in ('look','sized')]
        row['cold'].append(ser[0]['ns']/1e6)
        row['pick'][ser[0]['schedule']]+=1
print('%-14s %-6s %4s %8s %9s %9s %9s'%('benchmark','side','n','samples','len/asked','>1.3x','cold ms'))
for (bench,side),row in sorted(rows.items(), key=lambda k:(k[0][0], k[0][1]!='before')):
    L=row['len']
    print('%-14s %-6s %4d %8.0f %9.2f %8.0f%% %9.1f'%(bench,side,len(row['n']),st.median(row['n']),st.median(L) if L else float('nan'),100*sum(x>1.3 for x in L)/max(1,len(L)),st.median(row['cold'])))
