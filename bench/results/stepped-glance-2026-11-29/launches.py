import json, sys, glob, os
for d in sys.argv[1:]:
    rows=[]
    for f in sorted(glob.glob(d+'/*-1.json')):
        r=json.load(open(f)); p=r['phases']; dec=r['decision']
        walk=[]
        for c in r['candidates']:
            if c['schedule'].startswith('group=column,item=column'):
                walk=[(x['kind'][0], x['groups'], round(x['wall_ns']/1e3)) for x in c.get('samples',[])][:1]
        reached_span=any(c.get('axis')=='span' and c.get('samples') for c in r['candidates'])
        w=dec.get('winner','?').replace('group=','').replace(',item=',' ').replace(',assign=',' ')
        rows.append('%-40s span%s walk%-18s an %4.1f/%4.1f ms total %6.1f' % (w[:40], 'Y' if reached_span else 'n', str(walk), p['analysis_ns']/1e6, p['analysis_limit_ns']/1e6, p['total_ns']/1e6))
    print('==', d); print('\n'.join('  '+x for x in rows))
