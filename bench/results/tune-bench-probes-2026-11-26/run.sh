#!/bin/bash
# Cold launches only, the tune bench without probes (before: --no-probes) and with them (after:
# the default), the same binary, alternately twice (ABAB).
cd "$(dirname "$0")"
exec 9>/tmp/gridtune-bench.lock; flock 9
T=/work/main/build/release/bench/gridtune-tune-bench
for pass in 1 2; do
for b in copy_cols copy_rows transpose conv11; do
  for side in before after; do
    extra=--no-probes; [ $side = after ] && extra=
    echo "$(date +%T) $b $side $pass" >> progress
    $T $extra -b $b --launches 1 --series 5 --oracle-max 8 --json $b-$side-$pass.json < /dev/null > $b-$side-$pass.txt 2>&1
  done
done
done
echo "$(date +%T) done" >> progress
