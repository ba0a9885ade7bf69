#!/bin/bash
# main (0a5f66c) as before, the futility branch as after, alternately per benchmark, in one run
cd /tmp/cmp2
for b in integral_rows integral_cols conv11 matmul copy_rows copy_cols transpose; do
  for v in before after; do
    if [ $v = before ]; then bin=/tmp/before/build/bench/gridtune-tune-bench; else bin=/work/main/build/release/bench/gridtune-tune-bench; fi
    echo "$(date +%T) $b $v" >> progress
    flock /tmp/gridtune-bench.lock $bin -b $b --launches 20 --series 3 --oracle-max 20 --json $b-$v.json < /dev/null > $b-$v.txt 2> $b-$v.err
  done
done
echo "$(date +%T) done" >> progress
