#!/bin/bash
# The empty launch's round trip, before (A) and after (B) pollers yield their CPU, interleaved:
# six rounds on an idle machine, then four with a shell loop spinning beside them.
# Usage: run.sh A_DAEMON_DIR B_DAEMON_DIR PEER_BENCH  (dirs holding gridtuned and gridtune-exec;
# here a release build of 2a98b6e and of the change, and either build's gridtune-peer-bench)
A=$1 B=$2 P=$3
exec 9>/tmp/gridtune-bench.lock; flock 9
run() { GRIDTUNE_DAEMON=$2/gridtuned $P --only-overhead --no-pocl 2>/dev/null |
        awk -v s="$1 $3" '/one trip \(gt_run\)/{o=$NF} /two requests \(gt_launch/{t=$NF} /one-trip frames/{f=$(NF-4)}
                          END{print s, o, t, f}'; }
echo "side machine one-trip-us two-requests-us raw-ping-pong-one-trip-frames-us"
for i in 1 2 3 4 5 6; do run A $A idle; run B $B idle; done
(while :; do :; done) & H=$!
for i in 1 2 3 4; do run A $A hog; run B $B hog; done
kill $H
