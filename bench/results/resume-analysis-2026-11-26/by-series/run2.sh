#!/bin/bash
# ABAB by series: one series of ten launches each, alternating main at 6f7539d (before) and the resumed analyses (after)
set -u
M=/work/main/build/release/kernels/libgridtune-seeds.so
for rep in 9 10 11 12 13 14 15 16; do
  for b in copy_cols transpose; do
    for side in before after; do
      if [ $side = before ]; then B=/tmp/before/build/release/bench/gridtune-tune-bench; else B=/work/main/build/release/bench/gridtune-tune-bench; fi
      echo "rep $rep $side $b $(date +%T)" >> /tmp/ab2/progress
      flock /tmp/gridtune-bench.lock $B -m $M -b $b --launches 10 --series 1 --oracle-max 1 -r 1 --json /tmp/ab2/$rep-$side-$b.json < /dev/null > /tmp/ab2/$rep-$side-$b.txt 2>&1
    done
  done
done
echo done >> /tmp/ab2/progress
