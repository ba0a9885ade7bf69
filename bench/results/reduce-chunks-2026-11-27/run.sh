#!/bin/sh
# Peer bench on one benchmark (default reduce), before (BEFORE_BUILD: a build of main before the
# change) and after (AFTER_BUILD), alternated, three times each:
#   ./run.sh BEFORE_BUILD AFTER_BUILD [BENCHMARK] > out.txt
set -e
bench=${3:-reduce}
for round in 1 2 3; do
    for side in before after; do
        if [ $side = before ]; then b=$1; else b=$2; fi
        echo "== round $round $side ($b)"
        "$b/bench/gridtune-peer-bench" -m "$b/kernels/libgridtune-seeds.so" --overhead-reps 20 -r 5 "$bench" 2>&1 |
            sed -n "/^medians/,/^settled/p;/^$bench: reads/p"
    done
done
