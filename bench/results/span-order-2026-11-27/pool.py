#!/usr/bin/env python3
"""pool.py BENCH DIR...: cold launches of loop.sh runs pooled over dirs; medians, means, rank test (normal approx)."""
import json,glob,os,sys,statistics as st,math
bench=sys.argv[1]
v={'before':[],'after':[]}
for d in sys.argv[2:]:
    for f in glob.glob('%s/*-*-%s.json'%(d,bench)):
        rep,side,b=os.path.basename(f)[:-5].split('-',2)
        if b!=bench: continue
        for ser in json.load(open(f))['benchmarks'][0]['series']:
            v[side].append(ser[0]['ns']/1e6)
a,b=v['after'],v['before']
# Mann-Whitney U for after < before
allv=sorted([(x,0) for x in a]+[(x,1) for x in b])
ranks={}
i=0
r=[0]*len(allv)
while i<len(allv):
    j=i
    while j+1<len(allv) and allv[j+1][0]==allv[i][0]: j+=1
    for k in range(i,j+1): r[k]=(i+j)/2+1
    i=j+1
ra=sum(r[k] for k in range(len(allv)) if allv[k][1]==0)
n1,n2=len(a),len(b)
U=ra-n1*(n1+1)/2
mu=n1*n2/2; sd=math.sqrt(n1*n2*(n1+n2+1)/12)
z=(U-mu)/sd
p=0.5*math.erfc(-z/math.sqrt(2))
print('%s before n=%d median %.1f mean %.1f | after n=%d median %.1f mean %.1f | after/before median %.2f mean %.2f | one-sided p(after<before)=%.3f'%(bench,n2,st.median(b),st.mean(b),n1,st.median(a),st.mean(a),st.median(a)/st.median(b),st.mean(a)/st.mean(b),p))
