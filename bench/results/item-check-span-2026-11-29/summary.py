import json, glob, re, sys
# usage: summary.py PREFIX BENCH...: PREFIX-REP-before and PREFIX-REP-after (e.g. ./runs2) are
# directories of cold-launch reports (BENCH-SERIES-1.json), each with the bench's out.txt
root = sys.argv[1]
for b in sys.argv[2:]:
    for side in ['before', 'after']:
        tot = []; picks = {}; spanned = 0
        for d in sorted(glob.glob(root + '-*-' + side)):
            for f in sorted(glob.glob(d + '/%s-*-1.json' % b)):
                r = json.load(open(f))
                w = r['decision'].get('winner', '')
                picks[w] = picks.get(w, 0) + 1
                spanned += 'span=' in w
                tot.append(r['phases']['total_ns'] / 1e6)
        tot.sort()
        med = tot[len(tot) // 2] if tot else float('nan')
        print('%-10s %-6s n %2d  median cold %6.1f ms  picks with a span %2d' % (b, side, len(tot), med, spanned))
        for w, k in sorted(picks.items(), key=lambda x: -x[1])[:4]:
            print('      %2d  %s' % (k, w))
    for d in sorted(glob.glob(root + '-*')):
        txt = open(d + '/out.txt').read()
        sect = txt[txt.find('\n' + b + ' '):]
        cold = re.search(r'  cold +([0-9.]+)x', sect)
        best = re.search(r'oracle best +([0-9.]+) ms  (\S+)', sect)
        print('    %-14s cold/oracle %s  oracle best %s ms %s' % (d.split('/')[-1], cold.group(1) if cold else '?',
              best.group(1) if best else '?', best.group(2) if best else ''))
