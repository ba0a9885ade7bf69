#!/bin/bash
# Cold launches only, before and after styles-first looks and owed confirmations, alternately twice (ABAB).
cd "$(dirname "$0")"
B=/tmp/before/build/release/bench/gridtune-tune-bench
A=/work/main/build/release/bench/gridtune-tune-bench
for pass in 1 2; do
for b in copy_cols copy_rows transpose conv11; do
  for side in before after; do
    bin=$B; [ $side = after ] && bin=$A
    echo "$(date +%T) $b $side $pass" >> progress
    $bin -b $b --launches 1 --series 5 --oracle-max 8 --json $b-$side-$pass.json < /dev/null > $b-$side-$pass.txt 2>&1
  done
done
done
echo "$(date +%T) done" >> progress
