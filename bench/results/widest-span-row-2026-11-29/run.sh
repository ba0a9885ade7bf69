#!/bin/bash
# Cold launches of the tune bench, two builds alternated: copy_rows 3 x 8 series a side, then
# transpose, integral_rows, conv11 and copy_cols 6 series a side.
# Usage: run.sh BEFORE_TUNE_BENCH AFTER_TUNE_BENCH SEEDS_MODULE
B=$1 A=$2 M=$3
for r in 1 2 3; do
    for side in before after; do
        bin=$B; [ $side = after ] && bin=$A
        mkdir -p rep-$side-$r
        "$bin" -m "$M" -b copy_rows --series 8 --launches 1 -r 3 --oracle-max 8 --reports rep-$side-$r > copy_rows-$side-$r.txt 2>&1
    done
done
for side in before after; do
    bin=$B; [ $side = after ] && bin=$A
    mkdir -p rep2-$side
    "$bin" -m "$M" -b transpose -b integral_rows -b conv11 -b copy_cols --series 6 --launches 1 -r 3 --oracle-max 8 \
        --reports rep2-$side > others-$side.txt 2>&1
done
