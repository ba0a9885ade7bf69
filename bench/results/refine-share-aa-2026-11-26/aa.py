import json, re, glob, statistics as st, sys
for order in ['first', 'last']:
    r = {}
    for f in sorted(glob.glob('aa-*-%s.json' % order)):
        for b in json.load(open(f))['benchmarks']:
            for s in b['series']:
                for l in s[1:]:
                    m = re.search(r'ran \(([0-9.e+-]+) against ([0-9.e+-]+)', l['reason'])
                    if m:
                        r.setdefault(b['benchmark'], []).append(float(m.group(1)) / float(m.group(2)))
    for b, v in r.items():
        v.sort()
        print('share %-5s %-10s A/A share/rest n=%d median %.3f  q1 %.3f q3 %.3f' % (order, b, len(v), st.median(v), v[len(v)//4], v[3*len(v)//4]))
