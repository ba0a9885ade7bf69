#!/bin/bash
# run.sh NAME GRIDTUNED N BLOCK [START [gridtuned flags...]]: a fresh private gridtuned, then
# ./grow over N distinct ranges (START.. workgroups of 64), then the daemon stopped and its file
# counted. Build grow first (BUILD is the build tree with client/libgridtune.so):
#   gcc -O2 -I$REPO/include grow.c -L$BUILD/client -lgridtune -Wl,-rpath,$BUILD/client -o grow
# MODULE defaults to the test module with its fill kernel.
name=$1 d=$2 n=$3 block=$4 start=${5:-8}; shift 5 2>/dev/null || shift $#
module=${MODULE:-$BUILD/tests/libgt_test_daemon_kernels.so}
dir=${TMPDIR:-/tmp}/wisdom-growth/$name; rm -rf "$dir"; mkdir -p "$dir"
"$d" --socket "$dir/s.sock" --wisdom "$dir/wisdom.json" --cache-dir "$dir/cache" --log "$dir/log" --foreground "$@" &
pid=$!
for _ in $(seq 100); do [ -S "$dir/s.sock" ] && break; sleep 0.05; done
GRIDTUNE_SOCKET=$dir/s.sock GRIDTUNE_AUTOSTART=0 ./grow "$n" "$module" "$block" "$start"
kill $pid; wait $pid
echo "$name: file $(stat -c %s "$dir/wisdom.json") bytes, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["entries"]))' "$dir/wisdom.json") entries"
