#!/bin/bash
# Cold decisions of two builds side by side: run.sh OLD_BUILD NEW_BUILD [ROUNDS] [BENCHMARK...]
# With REPORTS=PREFIX in the environment, the cold reports are kept in PREFIX.BENCHMARK.a.jsonl
# (the old build's) and .b.jsonl, for count_paths.py.
# Each build's gridtuned (with --refine off) gets its own socket and wisdom in a temporary
# directory; ab_cold.c runs the rounds. Example, from the repository's top:
#   git worktree add /tmp/before <rev>; cmake -S /tmp/before -B /tmp/before/b -DCMAKE_BUILD_TYPE=Release
#   cmake --build /tmp/before/b -j2; bash bench/results/item-check-widest-2026-11-29/run.sh /tmp/before/b build/release 40 copy_rows
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) rounds=${3:-40}
shift $(( $# < 3 ? $# : 3 ))
benches=("$@"); [ ${#benches[@]} -gt 0 ] || benches=(copy_rows)
top=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d); trap 'kill $(cat "$tmp"/*.pid 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT
gcc -O2 -I"$top/kernels" -I"$top/include" -I"$top" "$here/ab_cold.c" "$new/kernels/libgt_seeds_client.a" \
    "$new/kernels/libgt_seedbench.a" "$new/kernels/libgt_say.a" -L"$new/client" -lgridtune -lcjson -lm \
    -Wl,-rpath,"$new/client" -o "$tmp/ab_cold"
for v in old new; do
    b=${!v}
    "$b/daemon/gridtuned" --socket "$tmp/$v.sock" --wisdom "$tmp/$v.json" --refine off --foreground \
        > "$tmp/$v.log" 2>&1 & echo $! > "$tmp/$v.pid"
done
sleep 1
export GRIDTUNE_SEEDS_MODULE=${GRIDTUNE_SEEDS_MODULE:-$new/kernels/libgridtune-seeds.so} GRIDTUNE_NO_AUTOSTART=1
for bench in "${benches[@]}"; do
    "$tmp/ab_cold" "$rounds" "$bench" "$tmp/old.sock" "$tmp/new.sock" ${REPORTS:+"$REPORTS.$bench"} | sed "s|$tmp/||"
done
