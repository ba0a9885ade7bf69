#!/usr/bin/env python3
"""bench/abab_compare.py DIR: the after/before table of a bench/abab run.

DIR holds <rep>-<side>-<bench>.json, gridtune-tune-bench's JSON of one run each. For every
benchmark and rep, the after run's figure over the before run's of the same rep (the two ran
one after the other), then the median and the range of those ratios over the reps:
  cold     the first launch of each series (analysis included), mean over the series
  total    the sum of each series' launches, mean over the series
  steady   the median of launches 6 to N of each series, mean over the series (N >= 6)
  cold/def the cold figure over the default schedule's forced median in the same run's oracle:
           the launches of one run share their process, whose memory placement can move all of
           them by a third, and this figure leaves that out (the pick and the analysis stay in)
Below 1: after is faster. Each cell ends with k/n, the reps in which after was faster, and a
footnote says which k a two-sided sign test calls a difference at p < 0.05 for that many
reps: a median below 1 with k/n short of that is not shown to be a gain.

A second table pools each side's cold launches over the reps (every series' first launch, the
reps that have both sides): their number, mean, median, 90th percentile (nearest rank: the
sorted times' element round(0.9 (n - 1))) and maximum in ms, and after over before for the mean
and the 90th percentile. A bad pick is a rare, costly cold launch: the per-rep medians hide it,
the tail shows it. Exit status 0, 2 for bad usage or a directory without pairs."""
import json
import math
import pathlib
import re
import statistics
import sys


def launches(path):
    """Every launch of one run in ms, a list per series, and the default's forced median in ms
    from the run's oracle (None without one)."""
    with open(path) as f:
        bench = json.load(f)["benchmarks"][0]
    default_ns = bench.get("oracle", {}).get("default_median_ns")
    return ([[launch["ns"] / 1e6 for launch in series] for series in bench["series"]],
            default_ns / 1e6 if default_ns else None)


def figures(run):
    """cold, total, steady and cold over the default of one run (launches()), in ms; steady is
    None with fewer than 6 launches, cold over the default without an oracle."""
    series, default_ms = run
    cold, total, steady = [], [], []
    for ms in series:
        cold.append(ms[0])
        total.append(sum(ms))
        if len(ms) >= 6:
            steady.append(statistics.median(ms[5:]))
    mean_cold = statistics.mean(cold)
    return (mean_cold, statistics.mean(total), statistics.mean(steady) if steady else None,
            mean_cold / default_ms if default_ms else None)


def pooled(ms):
    """n, mean, median, 90th percentile (nearest rank) and maximum of the times."""
    v = sorted(ms)
    return len(v), statistics.mean(v), statistics.median(v), v[int(0.9 * (len(v) - 1) + 0.5)], v[-1]


def print_pooled(pairs):
    print("cold launches pooled over the reps, ms (p90: nearest rank)")
    print(f"{'benchmark':<14} {'side':<6} {'n':>4} {'mean':>9} {'median':>9} {'p90':>9} {'max':>9}  after/before")
    for bench in sorted(pairs):
        stats = {}
        for side in ("before", "after"):
            stats[side] = pooled([series[0] for pair in pairs[bench] for series in pair[side][0]])
            n, mean, median, p90, top = stats[side]
            ratio = ""
            if side == "after":
                _, b_mean, _, b_p90, _ = stats["before"]
                ratio = f"mean {mean / b_mean:.2f}, p90 {p90 / b_p90:.2f}"
            print(f"{bench:<14} {side:<6} {n:>4} {mean:>9.1f} {median:>9.1f} {p90:>9.1f} {top:>9.1f}  {ratio}")


def sign_test_p(k, n):
    """Two-sided exact sign test: the chance of k or fewer, or n-k or more, of n fair coins."""
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2**n
    return min(1.0, 2 * tail)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(sys.argv) != 2 else sys.stdout)
        return 0 if len(sys.argv) == 2 else 2
    out = pathlib.Path(sys.argv[1])
    runs = {}
    for path in out.glob("*-*-*.json"):
        m = re.fullmatch(r"(\d+)-(before|after)-([a-z0-9_]+)\.json", path.name)
        if m:
            runs.setdefault(m.group(3), {}).setdefault(int(m.group(1)), {})[m.group(2)] = launches(path)
    pairs = {b: [reps[r] for r in sorted(reps) if len(reps[r]) == 2] for b, reps in runs.items()}
    pairs = {b: p for b, p in pairs.items() if p}
    if not pairs:
        print(f"abab_compare: no before/after pairs in {out}", file=sys.stderr)
        return 2
    print(f"after/before per rep (below 1: after is faster), {out}")
    print(f"{'benchmark':<14} {'reps':>4}  {'cold':<29} {'total':<29} {'steady (launches 6-N)':<29} "
          f"{'cold/def (in-run)':<29}")
    counts = set()
    for bench in sorted(pairs):
        ratios = [[], [], [], []]
        for pair in pairs[bench]:
            b, a = figures(pair["before"]), figures(pair["after"])
            for k in range(4):
                if b[k] and a[k] is not None:
                    ratios[k].append(a[k] / b[k])
        cells = []
        for r in ratios:
            faster = sum(x < 1 for x in r)
            counts.add(len(r))
            cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}) {faster}/{len(r)}" if r else "-")
        print(f"{bench:<14} {len(pairs[bench]):>4}  {cells[0]:<29} {cells[1]:<29} {cells[2]:<29} {cells[3]:<29}")
    for n in sorted(c for c in counts if c):
        shown = [k for k in range(n + 1) if sign_test_p(k, n) < 0.05]
        print(f"k/n: reps in which after was faster; of {n}, "
              + (f"k <= {max(k for k in shown if k < n / 2)} or k >= {min(k for k in shown if k > n / 2)}"
                 if shown else "no k") + " is a difference at p < 0.05 (two-sided sign test)")
    print()
    print_pooled(pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
