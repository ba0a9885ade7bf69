#!/bin/bash
# ten launches per series of transpose and copy_cols, before and after, alternated
# BENCH_DIR holds before/ and after/, each a gridtune-tune-bench build; run from the source tree
cd "$(git rev-parse --show-toplevel)"
for rep in 1 2; do
  for side in before after; do
    d=bench/results/walk-span-2026-11-29/refine-span-4/runs-$rep-$side; mkdir -p $d
    "$BENCH_DIR/$side"/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b transpose -b copy_cols \
      --series 4 --launches 10 -r 3 --oracle-max 16 --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
