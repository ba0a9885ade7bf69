#!/bin/bash
# Interleaves gridtune-bench's in-process stencil5 (block assignment) with the staging
# microbenchmark, private and memfd memory, three times. Run from the repository's root with
# a release build in build/release.
set -e
exec 9>/tmp/gridtune-bench.lock; flock 9
d=bench/results/stencil-staging-2026-11-26
gcc -D_GNU_SOURCE -O3 -fopenmp $d/staging.c -o /tmp/gt-staging
for i in 1 2 3; do
  echo "== round $i"
  ./build/release/bench/gridtune-bench stencil5 -s group=linear,item=linear,assign=block -r 5 --no-verify 2>&1 | grep "^  group=linear"
  echo "-- private"; OMP_NUM_THREADS=2 /tmp/gt-staging 256 4
  echo "-- memfd"; MEMFD=1 OMP_NUM_THREADS=2 /tmp/gt-staging 256 4
done
