import json, sys, statistics as st
d=json.load(open(sys.argv[1]))
for b in d['benchmarks']:
    o=b['oracle']
    med={s['schedule']:s['median_ns']/1e6 for s in o['schedules']}
    best=o['best_median_ns']/1e6
    print(b['benchmark'], 'oracle best %.1f %s'%(best,o['best']))
    cs=[];ls=[]
    for i,s in enumerate(b['series']):
        c=s[0]['schedule']; l=s[-1]['schedule']
        cs.append(med.get(c,float('nan'))/best); ls.append(med.get(l,float('nan'))/best)
        print('  series %d cold %-55s %.2fx   launch10 %-60s %.2fx  resumed %d'%(i+1,c,cs[-1],l,ls[-1], sum('resumed' in x['reason'] for x in s)))
    print('  cold picks over the oracle best: median %.2f mean %.2f; launch-10 schedules: median %.2f mean %.2f'%(st.median(cs),st.mean(cs),st.median(ls),st.mean(ls)))
