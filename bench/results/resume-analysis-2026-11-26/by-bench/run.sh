#!/bin/bash
# ABAB: ten launches x 3 series of four benchmarks, main at 6f7539d (before) against the resumed analyses (after)
set -u
M=/work/main/build/release/kernels/libgridtune-seeds.so
for pass in 1 2; do
  for side in before after; do
    if [ $side = before ]; then B=/tmp/before/build/release/bench/gridtune-tune-bench; else B=/work/main/build/release/bench/gridtune-tune-bench; fi
    for b in copy_cols transpose copy_rows conv11; do
      echo "pass $pass $side $b $(date +%T)" >> /tmp/ab/progress
      flock /tmp/gridtune-bench.lock $B -m $M -b $b --launches 10 --series 3 --oracle-max 1 -r 1 --json /tmp/ab/$pass-$side-$b.json < /dev/null > /tmp/ab/$pass-$side-$b.txt 2>&1
    done
  done
done
echo done >> /tmp/ab/progress
