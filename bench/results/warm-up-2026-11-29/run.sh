#!/bin/bash
# BENCH_DIR holds before/ and after/, each a gridtune-tune-bench build; run from the source tree
cd "$(git rev-parse --show-toplevel)"
for rep in 1 2; do
  for side in before after; do
    d=bench/results/warm-up-2026-11-29/runs-$rep-$side; mkdir -p $d
    "$BENCH_DIR/$side"/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b transpose -b copy_cols -b conv11 -b matmul \
      --series 8 --launches 1 -r 3 --oracle-max 12 --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
