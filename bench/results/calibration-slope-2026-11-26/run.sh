#!/bin/bash
# Before and after the calibration's slope rule, benchmark by benchmark alternately, in one run.
# before: /tmp/before (a worktree of main at af37e0f); after: main at the calibration commit.
cd "$(dirname "$0")"
B=/tmp/before/build/release/bench/gridtune-tune-bench
A=/work/main/build/release/bench/gridtune-tune-bench
for b in copy_cols copy_rows transpose integral_rows integral_cols conv11 matmul; do
  for side in before after; do
    bin=$B; [ $side = after ] && bin=$A
    echo "$(date +%T) $b $side" >> progress
    $bin -b $b --launches 1 --series 5 --oracle-max 12 --json $b-$side.json < /dev/null > $b-$side.txt 2>&1
  done
done
echo "$(date +%T) done" >> progress
