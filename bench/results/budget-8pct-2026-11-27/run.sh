#!/bin/sh
# Cold launches with two analysis budgets, alternated:
#   ./run.sh OUTDIR ROUNDS [FIRST_ROUND [BUDGET_A BUDGET_B]]   (default budgets 0.10 and 0.08)
# Summaries: ../budget-5pct-2026-11-27/summ.py OUTDIR, tail.py OUTDIR, picks.py OUTDIR.
set -e
out=$1; rounds=${2:-4}; first=${3:-1}; a=${4:-0.10}; b=${5:-0.08}
mkdir -p "$out"
for r in $(seq "$first" "$rounds"); do
    for budget in $a $b; do
        echo "round $r budget $budget $(date +%T)"
        ${GRIDTUNE_BUILD:-build}/release/bench/gridtune-tune-bench --launches 1 --series 3 --oracle-max 1 --reps 3 \
            --budget "$budget" --json "$out/r$r-b$budget.json" > "$out/r$r-b$budget.txt" 2>&1 < /dev/null
    done
done
