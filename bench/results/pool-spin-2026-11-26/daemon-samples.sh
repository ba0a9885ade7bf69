#!/bin/bash
# Two daemons (A before, B after), cold launches of copy_cols/transpose via `gridtune bench`, then
# count disturbed analysis samples in their reports.
exec 9>/tmp/gridtune-bench.lock; flock 9
cd /tmp/rt  # A: /tmp/before (main at the commit before), B: this tree
for s in A B; do
  rm -rf /tmp/rt/d$s; mkdir -p /tmp/rt/d$s
  bin=/tmp/before/build/release; [ $s = B ] && bin=/work/main/build/release
  $bin/daemon/gridtuned --socket /tmp/rt/d$s/sock --wisdom /tmp/rt/d$s/wisdom.json --cache-dir /tmp/rt/d$s/cache --log /tmp/rt/d$s/log &
done
sleep 2
for r in 1 2 3; do for s in A B; do
  GRIDTUNE_SOCKET=/tmp/rt/d$s/sock GRIDTUNE_WISDOM=/tmp/rt/d$s/wisdom.json GRIDTUNE_NO_AUTOSTART=1 \
   /work/main/build/release/cli/gridtune bench --bench copy_cols --bench transpose --bench conv11 --rounds 2 > /tmp/rt/d$s/bench$r.txt 2>&1
done; done
for s in A B; do
  GRIDTUNE_SOCKET=/tmp/rt/d$s/sock GRIDTUNE_NO_AUTOSTART=1 /work/main/build/release/cli/gridtune reports --json --limit 1000 > /tmp/rt/d$s/reports.json
done
pkill -f "gridtuned --socket /tmp/rt/d"
