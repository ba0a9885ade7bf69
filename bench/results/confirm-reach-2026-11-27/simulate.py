#!/usr/bin/env python3
"""simulate.py DIR: replays the out-of-reach rule on the confirming samples of the reports in DIR,
in the order the confirmation ran them, with the exact Mann-Whitney distribution (4 against 4,
margin 3%). Prints where each confirmation would have stopped and the time it saves."""
import json,sys,glob,itertools,math
from itertools import combinations
def exact_p(na,nb,u):
    # P(U>=u) under null, U = #(a<b)
    tot=0;cnt=0
    vals=list(range(na+nb))
    for A in combinations(vals,na):
        Aset=set(A)
        uu=sum(1 for a in A for b in vals if b not in Aset and a<b)
        tot+=1; cnt+= uu>=u
    return cnt/tot
cache={}
def pbest(A,B,NA,NB,gain):
    # completed: future A below all, future B above all
    u=sum(1 for a in A for b in B if a< b/(1+gain))
    u+= (NA-len(A))*NB + len(A)*(NB-len(B))
    key=(NA,NB,u)
    if key not in cache: cache[key]=exact_p(NA,NB,u)
    return cache[key]
tot_saved=0;tot_conf=0
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    r=json.load(open(f))
    cf=r['decision'].get('confirmation')
    if not cf or cf.get('incumbent') is None: continue
    cands={c['schedule']:c for c in r['candidates']}
    inc=cands[cf['incumbent']]; ch=cands[cf['challenger']]
    ic=[s for s in inc['samples'] if s['kind']=='confirm']
    cc=[s for s in ch['samples'] if s['kind']=='confirm']
    seq=[]
    for k in range(4):
        pair=[('c',cc),('i',ic)] if k%2 else [('i',ic),('c',cc)]
        for who,lst in pair:
            if k < len(lst): seq.append((who,lst[k]))
    A=[];B=[];stop=None
    for n,(who,s) in enumerate(seq):
        (A if who=='c' else B).append(s['cost_per_item'])
        if pbest(A,B,4,4,0.03)>=0.05:
            stop=n+1;break
    conf_ns=sum(s['wall_ns'] for _,s in seq)
    saved=sum(s['wall_ns'] for _,s in seq[stop:]) if stop else 0
    tot_saved+=saved;tot_conf+=conf_ns
    print('%-22s replaced=%s p=%.3f  samples %d stop@%s  confirm %.2f ms saved %.2f ms of total %.1f'%(f.split('/')[-1],cf['replaced'],cf['p'],len(seq),stop,conf_ns/1e6,saved/1e6,r['phases']['total_ns']/1e6))
print('saved %.1f of %.1f ms confirm'%(tot_saved/1e6,tot_conf/1e6))
