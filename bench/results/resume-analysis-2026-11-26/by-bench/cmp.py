import json, sys, glob, statistics as st
def load(f):
    d = json.load(open(f))
    b = d['benchmarks'][0]
    ser = b['series']
    tot = [sum(l['ns'] for l in s) / 1e6 for s in ser]
    cold = [s[0]['ns'] / 1e6 for s in ser]
    last = [s[-1]['ns'] / 1e6 for s in ser]
    res = sum(1 for s in ser for l in s if 'resumed' in l['reason'])
    return st.median(tot), st.median(cold), st.median(last), res, [s[-1]['schedule'] for s in ser]
d = sys.argv[1]
passes = sorted({f.split('/')[-1].split('-')[0] for f in glob.glob(d + '/*-before-*.json')})
print('%-10s %4s %10s %10s %7s %8s %8s %7s %8s %8s %7s %s' % ('bench', 'pass', 'tot bef', 'tot aft', 'ratio', 'cold b', 'cold a', 'ratio', 'l10 b', 'l10 a', 'ratio', 'resumed launches (after)'))
for b in ['copy_cols', 'transpose', 'copy_rows', 'conv11', 'integral_cols', 'matmul', 'stencil5']:
    for p in passes:
        try:
            B = load('%s/%s-before-%s.json' % (d, p, b)); A = load('%s/%s-after-%s.json' % (d, p, b))
        except FileNotFoundError:
            continue
        print('%-10s %4s %10.1f %10.1f %7.2f %8.1f %8.1f %7.2f %8.1f %8.1f %7.2f %d' % (b, p, B[0], A[0], A[0] / B[0], B[1], A[1], A[1] / B[1], B[2], A[2], A[2] / B[2], A[3]))
