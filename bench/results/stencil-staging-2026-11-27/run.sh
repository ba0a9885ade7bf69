#!/bin/sh
# Builds staging.c for each tile shape and runs it with two OpenMP threads: ./run.sh > out.txt
set -e
dir=$(mktemp -d)
for shape in 256x4 64x16 128x8 32x32 1024x1; do
    w=${shape%x*} h=${shape#*x}
    cc -O3 -fopenmp -DLW=$w -DLH=$h -o "$dir/staging" "$(dirname "$0")/staging.c"
    OMP_NUM_THREADS=2 "$dir/staging"
done
cc -O3 -fopenmp -march=native -DLW=256 -DLH=4 -o "$dir/staging" "$(dirname "$0")/staging.c"
echo "-march=native:"
OMP_NUM_THREADS=2 "$dir/staging"
rm -rf "$dir"
