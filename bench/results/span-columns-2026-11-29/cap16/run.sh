#!/bin/bash
# transpose cold launches: span series whole (2:2:0) vs capped at 16 (2:2:16), alternated
cd "$(git rev-parse --show-toplevel)"
for rep in 1 2; do
  for side in full cap16; do
    d=bench/results/span-columns-2026-11-29/cap16/$side-$rep; mkdir -p $d
    ps=2:2:0; [ $side = cap16 ] && ps=2:2:16
    build/release/bench/gridtune-tune-bench -m build/release/kernels/libgridtune-seeds.so -b transpose \
      --series 8 --launches 1 -r 3 --oracle-max 12 --param-series $ps --reports $d > $d/out.txt 2> $d/err.txt
  done
done
echo done
