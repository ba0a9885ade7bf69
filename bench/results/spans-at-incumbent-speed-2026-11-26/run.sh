#!/bin/bash
# ABAB by run: cold launches (2 series of one launch each), main at 6f7539d (before) against
# spans bounded by the incumbent's sample and whole spans per worker (after)
set -u
M=/work/main/build/release/kernels/libgridtune-seeds.so
for rep in 1 2 3 4 5 6; do
  for b in copy_rows transpose conv11 copy_cols integral_rows; do
    for side in before after; do
      if [ $side = before ]; then B=/tmp/before/build/release/bench/gridtune-tune-bench; else B=/work/main/build/release/bench/gridtune-tune-bench; fi
      echo "rep $rep $side $b $(date +%T)" >> /tmp/ab3/progress
      flock /tmp/gridtune-bench.lock $B -m $M -b $b --launches 1 --series 2 --oracle-max 1 -r 1 --json /tmp/ab3/$rep-$side-$b.json < /dev/null > /tmp/ab3/$rep-$side-$b.txt 2>&1
    done
  done
done
echo done >> /tmp/ab3/progress
