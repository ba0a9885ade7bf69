#!/bin/bash
# The reduce kernel's tree: eight halving regions (BEFORE, main before this change) against
# two regions of fan-in 16 (AFTER), alternated. Run from the source tree's root:
#   bash bench/results/reduce-fan-in-2026-11-27/run.sh BEFORE.so AFTER.so > out.txt
# The in-process driver first (both modules in the same rounds, one worker and two), then the
# peer bench three times a side (gridtune against OpenMP through a daemon of its own).
set -u
before=$1 after=$2
for w in 1 2; do
    echo "== gridtune-bench -w $w (A = before, B = after)"
    build/release/bench/gridtune-bench -m "$before" --versus "$after" -w $w -r 9 \
        -s group=linear,item=linear,assign=stealing reduce 2>&1 | tail -4
done
for round in 1 2 3; do
    for side in before after; do
        m=$before; [ $side = after ] && m=$after
        echo "== peer bench, round $round, $side"
        build/release/bench/gridtune-peer-bench -m "$m" -r 5 --no-pocl --overhead-reps 10 reduce 2>&1 |
            grep -E '^reduce|^benchmark' | head -4
    done
done
