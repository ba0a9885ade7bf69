import json, glob, sys, collections
d = sys.argv[1]
picks = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
for f in sorted(glob.glob(d + '/r*-b*.json')):
    side = f.split('-b')[1][:-5]
    for b in json.load(open(f))['benchmarks']:
        for s in b['series']:
            picks[b['benchmark']][side][s[0]['schedule']] += 1
for bench in ('copy_cols', 'transpose', 'copy_rows', 'conv11'):
    for side, c in sorted(picks[bench].items()):
        print(bench, side, '; '.join('%dx %s' % (n, k) for k, n in c.most_common(6)))
