import json, sys, glob, statistics as st
d = sys.argv[1]
def cold(f):
    s = json.load(open(f))['benchmarks'][0]['series']
    return [x[0]['ns'] / 1e6 for x in s], [x[0]['schedule'] for x in s]
for b in ['copy_rows', 'transpose', 'conv11', 'copy_cols', 'integral_rows']:
    ratios, allb, alla, picks = [], [], [], []
    for rep in range(1, 20):
        try:
            B, _ = cold('%s/%d-before-%s.json' % (d, rep, b)); A, pa = cold('%s/%d-after-%s.json' % (d, rep, b))
        except FileNotFoundError:
            continue
        allb += B; alla += A; picks += pa
        ratios.append(st.mean(A) / st.mean(B))
    if not ratios:
        continue
    ratios.sort()
    print('%-13s cold ms median before %.1f after %.1f (%d launches each); after/before per rep: median %.2f [%s]' % (
        b, st.median(allb), st.median(alla), len(allb), st.median(ratios), ' '.join('%.2f' % r for r in ratios)))
    spans = sorted(int(p.split('span=')[1].split(',')[0]) if 'span=' in p else 1 for p in picks)
    print('%13s after picks spans: %s' % ('', spans))
