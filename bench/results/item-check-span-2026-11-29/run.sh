#!/bin/bash
# cold launches, before and after, alternated
# BENCH_DIR holds before/ and after/, each a gridtune-tune-bench build; run from the source tree
cd "$(git rev-parse --show-toplevel)"
R=bench/results/item-check-span-2026-11-29
for rep in 1 2; do
  for side in before after; do
    d=$R/runs-$rep-$side; mkdir -p $d
    "$BENCH_DIR/$side"/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b copy_rows -b conv11 -b transpose -b copy_cols \
      --series 8 --launches 1 -r 3 --oracle-max 12 --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
