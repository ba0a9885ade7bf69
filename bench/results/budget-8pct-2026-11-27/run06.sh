#!/bin/sh
# Cold launches with the analysis budget at 10% and 8%, alternated: ./run.sh OUTDIR ROUNDS
set -e
out=$1; rounds=${2:-4}
mkdir -p "$out"
for r in $(seq ${3:-1} "$rounds"); do
    for b in 0.08 0.06; do
        echo "round $r budget $b $(date +%T)"
        ${GRIDTUNE_BUILD:-build}/release/bench/gridtune-tune-bench --launches 1 --series 3 --oracle-max 1 --reps 3 \
            --budget $b --json "$out/r$r-b$b.json" > "$out/r$r-b$b.txt" 2>&1 < /dev/null
    done
done
