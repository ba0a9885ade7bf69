#!/bin/bash
# Cold launches only, before (A: /tmp/before, a worktree of main at 281c284) and after
# (B: this tree) the span axis looks at the widest span before the series, alternately twice (ABAB); both
# with the same seeds module.
cd "$(dirname "$0")"
exec 9>/tmp/gridtune-bench.lock; flock 9
A=/tmp/before/build/release/bench/gridtune-tune-bench
B=/work/main/build/release/bench/gridtune-tune-bench
for pass in 1 2; do
for b in copy_rows conv11 transpose integral_cols; do
  for side in before after; do
    bin=$A; [ $side = after ] && bin=$B
    echo "$(date +%T) $b $side $pass" >> progress
    $bin -m /work/main/build/release/kernels/libgridtune-seeds.so -b $b --launches 1 --series 5 --oracle-max 8 --json $b-$side-$pass.json < /dev/null > $b-$side-$pass.txt 2>&1
  done
done
done
echo "$(date +%T) done" >> progress
