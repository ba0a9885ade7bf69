import json, glob, sys, statistics as st, collections
d = sys.argv[1]; bench = sys.argv[2] if len(sys.argv) > 2 else 'copy_cols'
print('%-7s %6s %8s %8s %8s %8s %9s %9s %9s' % ('side','series','cold','l5','l10','l20','mean1-20','mean11-20','settled10'))
for side in ('before','after'):
    rows=[]
    for f in sorted(glob.glob(d + '/r*-%s.json' % side)):
        for b in json.load(open(f))['benchmarks']:
            if b['benchmark'] != bench: continue
            for s in b['series']:
                rows.append(([l['ns']/1e6 for l in s], s[9]['settled'] if len(s)>9 else None, s[-1]['schedule']))
    n=len(rows[0][0])
    print('%-7s %6d %8.2f %8.2f %8.2f %8.2f %9.2f %9.2f %6d/%d' % (side,len(rows),st.median(m[0] for m,_,_ in rows),st.median(m[4] for m,_,_ in rows),
      st.median(m[9] for m,_,_ in rows), st.median(m[n-1] for m,_,_ in rows), st.median(st.mean(m) for m,_,_ in rows),
      st.median(st.mean(m[10:]) for m,_,_ in rows), sum(1 for _,s,_ in rows if s), len(rows)))
    c=collections.Counter(x.replace('group=','').replace('item=','').replace('assign=','') for _,_,x in rows)
    print('   last:', dict(c))
