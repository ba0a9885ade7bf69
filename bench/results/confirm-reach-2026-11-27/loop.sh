#!/bin/bash
# loop.sh BEFORE_TB AFTER_TB SEEDS_SO OUT REPS BENCH...
# Cold launches of each benchmark (3 series of one launch a run), BEFORE and AFTER alternately
# (BEFORE first in odd reps), every launch's report kept in OUT/rep-<rep>-<side>/, each run's
# JSON and output in OUT/<rep>-<side>-<bench>.{json,txt}. One benchmark at a time: each run
# waits for /tmp/gridtune-bench.lock. Summarise with summ.py OUT.
set -e
BEFORE=$1; AFTER=$2; SEEDS=$3; OUT=$4; REPS=$5; shift 5
mkdir -p "$OUT"
for rep in $(seq 1 "$REPS"); do
  for b in "$@"; do
    if [ $((rep % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for side in $order; do
      tb=$BEFORE; [ "$side" = after ] && tb=$AFTER
      flock /tmp/gridtune-bench.lock "$tb" -m "$SEEDS" -b "$b" --launches 1 --series 3 --oracle-max 1 --reps 1 \
        --no-reference --reports "$OUT/rep-$rep-$side" --json "$OUT/$rep-$side-$b.json" \
        > "$OUT/$rep-$side-$b.txt" 2>/dev/null < /dev/null
      echo "$rep $side $b done" >&2
    done
  done
done
