#!/bin/bash
# Alternates gridtuned builds (each DIR holds a gridtuned and its gridtune-exec), a fresh daemon
# per round and build, and under each the seed launches of wall_minus_total.c both ways.
# Usage: run.sh BUILD_TREE ROUNDS "BENCHMARK..." DIR...   (BUILD_TREE: a release build of gridtune)
set -e
T=$1 R=$2 BENCHES=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd) src=$(cd "$here/../../.." && pwd)
prog=$(mktemp -d)/wall_minus_total
libs="$T/kernels/libgt_seeds_client.a $T/kernels/libgt_seed_check.a $T/kernels/libgt_seedbench.a
      $T/kernels/libgt_say.a $(echo "$T"/tuner/*.a "$T"/engine/*.a)"
cc -O2 -D_GNU_SOURCE -I"$src/include" -I"$src" "$here/wall_minus_total.c" -o "$prog" $libs \
   "$T"/client/libgridtune.a -lcjson -lm -lpthread -ldl
for r in $(seq "$R"); do
    for dir in "$@"; do
        d=$(mktemp -d)
        "$dir"/gridtuned --foreground --socket "$d"/s.sock --wisdom "$d"/w.json --cache-dir "$d"/cache --log "$d"/log &
        pid=$!
        for i in $(seq 50); do [ -S "$d"/s.sock ] && break; sleep 0.1; done
        for b in $BENCHES; do
            for one in 1 0; do echo "$dir $("$prog" "$d"/s.sock "$b" "$T"/kernels/libgridtune-seeds.so "$one")"; done
        done
        kill "$pid"; wait "$pid" 2>/dev/null || true
        rm -rf "$d"
    done
done
