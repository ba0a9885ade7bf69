#!/bin/bash
cd /work/main
for rep in 1 2 3; do
  for side in before after; do
    d=/tmp/ab/runs2/$rep-$side; mkdir -p $d
    /tmp/ab/$side/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b copy_rows \
      --series 8 --launches 1 -r 3 --oracle-max 10 --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
