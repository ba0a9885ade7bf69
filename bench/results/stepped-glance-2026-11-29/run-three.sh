#!/bin/bash
# cold launches of the benchmarks with a column walk, before and after, alternated
cd /work/main
for rep in 1 2; do
  for side in before after; do
    d=/tmp/ab/runs/$rep-$side; mkdir -p $d
    /tmp/ab/$side/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b copy_rows -b transpose -b copy_cols \
      --series 8 --launches 1 -r 3 --oracle-max 12 --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
