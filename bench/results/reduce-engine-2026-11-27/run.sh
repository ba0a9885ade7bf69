#!/bin/sh
# The seed reduce and matmul_tiled kernels' workgroup functions, per workgroup under `omp for`
# (no pool, no daemon), compiled against the header as it is and with counted-runs.patch, in
# one binary each, beside the reduce's OpenMP twin. Portable and -march=native builds.
# Run from this directory in a checkout: sh run.sh
set -e
top=../../..
tmp=$(mktemp -d)
mkdir $tmp/new
cp -r $top/include $tmp/new/
patch -s -d $tmp/new -p1 < counted-runs.patch
for m in "" "-march=native"; do
    gcc -O3 $m -std=c11 -I$top/include -DKNAME=red_old -c kern.c -o $tmp/ko.o
    gcc -O3 $m -std=c11 -I$tmp/new/include -DKNAME=red_new -c kern.c -o $tmp/kn.o
    gcc -O3 $m -fopenmp -std=c11 -I$top/include main.c $tmp/ko.o $tmp/kn.o -o $tmp/reduce$m
    gcc -O3 $m -std=c11 -I$top/include -DKNAME=mm_old -c mkern.c -o $tmp/mo.o
    gcc -O3 $m -std=c11 -I$tmp/new/include -DKNAME=mm_new -c mkern.c -o $tmp/mn.o
    gcc -O3 $m -fopenmp -std=c11 -I$top/include mmain.c $tmp/mo.o $tmp/mn.o -o $tmp/matmul$m
done
for r in 1 2 3; do
    for b in reduce reduce-march=native matmul matmul-march=native; do
        echo "== $b, run $r"; OMP_NUM_THREADS=2 $tmp/$b
    done
done
rm -rf $tmp
