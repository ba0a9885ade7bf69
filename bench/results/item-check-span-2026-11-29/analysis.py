import json, glob, sys
# usage: analysis.py PREFIX BENCH...: medians of the cold launches' analysis and remainder times,
# the confirmations that ran, and the axes left unexplored, per side
root = sys.argv[1]
for b in sys.argv[2:]:
    for side in ['before', 'after']:
        an = []; rest = []; conf = 0; n = 0; unexplored = {}
        for f in glob.glob('%s-*-%s/%s-*-1.json' % (root, side, b)):
            r = json.load(open(f)); p = r['phases']; n += 1
            an.append(p['analysis_ns'] / 1e6); rest.append(p['remainder_ns'] / 1e6)
            conf += bool(r['decision'].get('confirmation'))
            for ax in r['decision'].get('unexplored', []):
                unexplored[ax] = unexplored.get(ax, 0) + 1
        an.sort(); rest.sort()
        print('%-14s %-6s n %2d  analysis %5.2f ms  remainder %6.2f ms  confirmations %2d  unexplored %s' %
              (b, side, n, an[n // 2], rest[n // 2], conf, unexplored))
