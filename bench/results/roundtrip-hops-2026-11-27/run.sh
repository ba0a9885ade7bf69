#!/bin/sh
# How many processes a round trip crosses, and what that costs on this VM: chain.c and ring.c.
# Run from this directory: sh run.sh
set -e
tmp=$(mktemp -d)
gcc -O2 chain.c -o $tmp/chain
gcc -O2 ring.c -o $tmp/ring
for r in 1 2 3; do
    echo "== run $r"
    $tmp/chain
    echo "   pinned to one CPU:"; taskset -c 0 $tmp/chain
    $tmp/ring
done
rm -rf $tmp
