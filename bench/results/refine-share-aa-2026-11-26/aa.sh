#!/bin/bash
# A/A: the winner as its own contender; contender's share first (main's order) against last, alternating runs
M=/work/main/build/release/kernels/libgridtune-seeds.so
B=/tmp/aa/build/release/bench/gridtune-tune-bench
for rep in 1 2; do
  for order in first last; do
    if [ $order = last ]; then export GT_AA_LAST=1; else unset GT_AA_LAST; fi
    GT_AA=1 flock /tmp/gridtune-bench.lock $B -m $M -b transpose -b copy_cols -b copy_rows -b conv11 --launches 20 --series 1 --oracle-max 1 -r 1 --json /tmp/aa/aa-$rep-$order.json < /dev/null > /tmp/aa/aa-$rep-$order.txt 2>&1
    echo "$rep $order $(date +%T)" >> /tmp/aa/progress
  done
done
echo done >> /tmp/aa/progress
