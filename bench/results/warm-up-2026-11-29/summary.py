import json,glob,sys
# usage: summary.py DIR BENCH...: DIR holds one directory of reports per run, named REP-before or REP-after
root=sys.argv[1]; benches=sys.argv[2:]
for b in benches:
  for side in ['before','after']:
    n=0; tot=[]; wins={}; walkwin=0
    for d in sorted(glob.glob(root+'/*-'+side)):
        for f in sorted(glob.glob(d+'/%s-*-1.json'%b)):
            r=json.load(open(f)); n+=1
            w=r['decision'].get('winner',''); wins[w]=wins.get(w,0)+1
            walkwin += w.startswith('group=column,item=column')
            tot.append(r['phases']['total_ns']/1e6)
    tot.sort()
    print('%-10s %-6s n %d median cold %.1f ms  walk picked %d  top picks %s' % (b, side, n, tot[len(tot)//2] if tot else 0, walkwin, sorted(wins.items(), key=lambda x:-x[1])[:2]))
  for d in sorted(glob.glob(root+'/*')):
    import re
    txt=open(d+'/out.txt').read()
    m=re.search(r'^%s .*?\n(.*?)\n\n' % b, txt, re.S|re.M)
    sect=txt[txt.find('\n'+b+' '):]
    cold=re.search(r'  cold +([0-9.]+)x', sect)
    print('   ', d.split('/')[-1], 'cold/oracle', cold.group(1) if cold else '?')
