import json, glob, sys, collections
out = collections.defaultdict(list)
for d in sys.argv[1:]:
    for f in glob.glob(d + '/*-1.json'):
        b = f.split('/')[-1].split('-')[0]
        r = json.load(open(f))
        cs = {c['schedule']: c for c in r['candidates']}
        best = min((c['summary']['median'] for c in r['candidates'] if c.get('axis') == 'assign' and c['summary'].get('median') and not c.get('eliminated')), default=None)
        col = cs.get('group=linear,item=column,assign=stealing')
        walk = cs.get('group=column,item=column,assign=stealing')
        def first(c):
            s = [x for x in (c or {}).get('samples', []) if x['kind'] != 'calibration']
            return s[0]['cost_per_item'] if s else None
        if best and first(col):
            out[b].append((round(first(col) / best, 2), round(first(walk) / best, 2) if first(walk) else None, r['decision'].get('winner', '').startswith('group=column,item=column'), f.split('/')[-2]))
for b, v in sorted(out.items()):
    v.sort()
    print(b, len(v)); print('  ', [x[:3] for x in v])
