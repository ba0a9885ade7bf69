#!/bin/bash
# Ten launches a series, before (A: /tmp/before, a worktree of main at e6dc952) and after (B:
# this tree) refinement leaves out contenders more than twice the winner's cost, alternately
# twice (ABAB); both with the same seeds module.
cd "$(dirname "$0")"
exec 9>/tmp/gridtune-bench.lock; flock 9
A=/tmp/before/build/release/bench/gridtune-tune-bench
B=/work/main/build/release/bench/gridtune-tune-bench
for pass in 1 2; do
for b in copy_rows copy_cols matmul_tiled; do
  for side in before after; do
    bin=$A; [ $side = after ] && bin=$B
    echo "$(date +%T) $b $side $pass" >> progress
    $bin -m /work/main/build/release/kernels/libgridtune-seeds.so -b $b --launches 10 --series 5 --oracle-max 8 --json $b-$side-$pass.json < /dev/null > $b-$side-$pass.txt 2>&1
  done
done
done
echo "$(date +%T) done" >> progress
