#!/bin/bash
# ABAB by series: ten launches, main at 16eda3c (before) against the share run last (after)
set -u
M=/work/main/build/release/kernels/libgridtune-seeds.so
for rep in 1 2 3 4 5 6; do
  for b in transpose copy_cols conv11; do
    for side in before after; do
      if [ $side = before ]; then B=/tmp/before/build/release/bench/gridtune-tune-bench; else B=/work/main/build/release/bench/gridtune-tune-bench; fi
      echo "rep $rep $side $b $(date +%T)" >> /tmp/ab5/progress
      flock /tmp/gridtune-bench.lock $B -m $M -b $b --launches 10 --series 1 --oracle-max 1 -r 1 --json /tmp/ab5/$rep-$side-$b.json < /dev/null > /tmp/ab5/$rep-$side-$b.txt 2>&1
    done
  done
done
echo done >> /tmp/ab5/progress
