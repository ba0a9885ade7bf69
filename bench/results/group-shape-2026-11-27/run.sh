#!/bin/bash
# The workgroup kernels before and after the linear walk's own copy of the body and the sized
# form (92f0ade, 0644a10). Run from the repository's root with a release build in build/release
# (the after side); the before side's seeds module and header come from 96a343c.
#  1. engine.c against both headers, alternately, three times each: the region loops alone.
#  2. gridtune-bench with the before module against the after one (--versus: same rounds), the
#     three workgroup kernels under the default schedules.
set -e
exec 9>/tmp/gridtune-bench.lock
flock 9
d=bench/results/group-shape-2026-11-27
old=/tmp/gridtune-group-shape-before
rm -rf "$old" && mkdir -p "$old/src"
git archive 96a343c | tar -x -C "$old/src"
cmake -S "$old/src" -B "$old/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$old/build" --target gt_seeds -j2 > /dev/null
gcc -O3 -fopenmp -std=c11 -I"$old/src/include" $d/engine.c -o "$old/engine"
gcc -O3 -fopenmp -std=c11 -Iinclude $d/engine.c -o /tmp/gridtune-group-shape-engine
for i in 1 2 3; do
  echo "== engine.c, header before (96a343c), round $i"; OMP_NUM_THREADS=2 "$old/engine"
  echo "== engine.c, header after, round $i"; OMP_NUM_THREADS=2 /tmp/gridtune-group-shape-engine
done
echo "== gridtune-bench: A = before (96a343c), B = after"
./build/release/bench/gridtune-bench -m "$old/build/kernels/libgridtune-seeds.so" \
  --versus build/release/kernels/libgridtune-seeds.so -r 5 matmul_tiled reduce stencil5
