#!/usr/bin/env bash
# The stencil's staging at several workgroup shapes, in plain C with OpenMP (shapes.c), 2 threads
# and 1; prints the medians of 15 interleaved rounds and their ratios to the row loop.
set -euo pipefail
cd "$(dirname "$0")"
for s in "256 4" "128 8" "64 16" "64 8" "128 4" "512 2" "32 32"; do
  set -- $s
  sed -e "s/#define LW 256/#define LW $1/" -e "s/#define LH 4/#define LH $2/" shapes.c > /tmp/shapes_$1x$2.c
  gcc -O3 -fopenmp /tmp/shapes_$1x$2.c -o /tmp/shapes_$1x$2
  echo "$1x$2: $(OMP_NUM_THREADS=2 /tmp/shapes_$1x$2 8192) | $(OMP_NUM_THREADS=2 /tmp/shapes_$1x$2 4096) | 1T $(OMP_NUM_THREADS=1 /tmp/shapes_$1x$2 8192)"
done
