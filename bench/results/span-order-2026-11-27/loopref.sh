#!/bin/bash
# loopref.sh BEFORE_TB AFTER_TB SEEDS OUT REPS BENCH...: as loop.sh, with the reference run after each launch.
set -e
BEFORE=$1; AFTER=$2; SEEDS=$3; OUT=$4; REPS=$5; shift 5
mkdir -p "$OUT"
for rep in $(seq 1 "$REPS"); do
  for b in "$@"; do
    if [ $((rep % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for side in $order; do
      tb=$BEFORE; [ "$side" = after ] && tb=$AFTER
      flock /tmp/gridtune-bench.lock "$tb" -m "$SEEDS" -b "$b" --launches 1 --series 3 --oracle-max 1 --reps ${ORACLE_REPS:-1} \
        --reports "$OUT/rep-$rep-$side" --json "$OUT/$rep-$side-$b.json" \
        > "$OUT/$rep-$side-$b.txt" 2>/dev/null < /dev/null
      echo "$rep $side $b done" >&2
    done
  done
done
