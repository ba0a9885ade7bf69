#!/bin/bash
# The empty launch's round trip, two gridtuned builds alternated (--only-overhead, no pocl).
# Usage: run-ab.sh BEFORE_DIR AFTER_DIR PEER_BENCH SEEDS_MODULE [PAIRS]
# (each dir holds a gridtuned and the gridtune-exec it starts, from a release build)
A=$1 B=$2 P=$3 M=$4 N=${5:-10}
echo "side one-trip-us two-requests-us floor-one-trip-us"
for i in $(seq "$N"); do
    for side in "$A" "$B"; do
        GRIDTUNE_DAEMON=$side/gridtuned "$P" -m "$M" --only-overhead --no-pocl 2>/dev/null |
            awk -v s="$side" '/one trip \(gt_run\)/{o=$NF} /two requests \(gt_launch/{t=$NF} /one-trip frames/{f=$(NF-4)}
                              END{print s, o, t, f}'
    done
done
