import json, sys
for v in sys.argv[1:]:
    n=trig=good=goodtrig=0
    for line in open(v):
        j=json.loads(line); n+=1
        ok='span=1024,item=linear' in j['decision']['winner']
        good+=ok
        t=any(c['samples'] and c.get('axis')=='span' and c.get('style')=='span=series' and 'item=linear' not in c['schedule'] for c in j['candidates'])
        trig+=t; goodtrig+= t and ok
    print(v, "cold launches", n, "| row-wide span with linear items picked", good, "| span axis ran under another item order:", trig, "of which row-wide linear picked", goodtrig)
