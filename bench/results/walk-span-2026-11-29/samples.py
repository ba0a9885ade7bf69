import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path)); p = r['phases']
    print('==', path.split('/')[-1], 'limit %.1f used %.1f ms' % (p['analysis_limit_ns']/1e6, p['analysis_ns']/1e6), r['decision'].get('schedule', r['decision'].get('reason',''))[:70])
    rows = []
    for c in r['candidates']:
        for x in c.get('samples', []):
            rows.append((x.get('round', 0), x['kind'], c['schedule'], x['groups'], x['wall_ns']/1e3, x['cost_per_item']))
    for row in rows:
        print('   %-11s %-52s groups %6d  %7.0f us  %.2f' % (row[1], row[2][:52], row[3], row[4], row[5]))
