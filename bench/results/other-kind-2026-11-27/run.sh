#!/bin/sh
# copy_cols, ten series of LAUNCHES launches each (default 10) from a cleared wisdom, main
# (BEFORE) and the change (AFTER) alternated:
#     ./run.sh BEFORE_BUILD AFTER_BUILD OUT ROUNDS [LAUNCHES]; python3 summ.py OUT
set -e
out=$3; rounds=${4:-3}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
    for side in before after; do
        if [ $side = before ]; then b=$1; else b=$2; fi
        echo "round $r $side $(date +%T)"
        "$b/bench/gridtune-tune-bench" -m "$b/kernels/libgridtune-seeds.so" -b copy_cols --launches ${5:-10} --series 10 \
            --oracle-max 1 --reps 1 --json "$out/r$r-$side.json" > "$out/r$r-$side.txt" 2>&1 < /dev/null
    done
done
