#!/bin/sh
exec /work/main/build/release/bench/gridtune-tune-bench --budget 0.05 "$@"
