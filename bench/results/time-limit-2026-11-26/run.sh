#!/bin/bash
# Before and after the analysis's time limit, benchmark by benchmark alternately, in one run.
# before: /tmp/before (a worktree of main at 20f6999); after: the branch time-limit at d8eddcc.
cd "$(dirname "$0")"
B=/tmp/before/build/release/bench/gridtune-tune-bench
A=/work/main/build/release/bench/gridtune-tune-bench
for b in copy_cols copy_rows transpose integral_rows integral_cols conv11 matmul; do
  for side in before after; do
    bin=$B; [ $side = after ] && bin=$A
    echo "$(date +%T) $b $side" >> progress
    $bin -b $b --launches 10 --series 3 --oracle-max 12 --json $b-$side.json < /dev/null > $b-$side.txt 2>&1
  done
done
echo "$(date +%T) done" >> progress
