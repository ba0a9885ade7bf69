#!/bin/sh
# Peer bench on stencil5, before (BEFORE: a build of main before the change) and after (AFTER),
# alternated, three times each: ./peers.sh BEFORE_BUILD AFTER_BUILD > peers.txt
set -e
for round in 1 2 3; do
    for side in before after; do
        if [ $side = before ]; then b=$1; else b=$2; fi
        echo "== round $round $side ($b)"
        "$b/bench/gridtune-peer-bench" -m "$b/kernels/libgridtune-seeds.so" --overhead-reps 20 -r 5 stencil5 2>&1 |
            sed -n '/^medians/,/^settled/p'
    done
done
