#!/usr/bin/env bash
# Vectorising across items (GT__ITEMS_INDEPENDENT in <gridtune/kernel.h>): builds the seed
# kernels four ways and compares them with gridtune-bench --versus, in-process, 2 workers.
#   before        seeds.c with the header of c5e86e6 (no hint on the item loops)
#   after         seeds.c with this tree's header
#   before-const  seeds.c with matmul's n and integral_cols' n as constants, old header
#   after-const   the same, this tree's header
# Each pair also with -march=native, as gridtuned builds kernels. Usage: run.sh BUILD_TREE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tree=${1:?usage: run.sh BUILD_TREE (e.g. build/release)}
bench=$root/$tree/bench/gridtune-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old/gridtune"
for f in gridtune.h kernel.h range.h; do git -C "$root" show c5e86e6:include/gridtune/$f > "$work/old/gridtune/$f"; done
sed -e '/GT_KERNEL(matmul,/,/^}/ s/w = (size_t)n;/w = 1088;/' \
    -e '/GT_KERNEL(integral_cols,/,/^}/ s/w = (size_t)n;/w = 8192;/' "$root/kernels/seeds.c" > "$work/seeds_const.c"
build() { # out include source extra-flags...
  local out=$1 inc=$2 src=$3; shift 3
  gcc -O3 -DNDEBUG -fPIC -std=c11 -shared "$@" -I"$inc" "$src" -o "$work/$out.so"
}
build before "$work/old" "$root/kernels/seeds.c"
build after "$root/include" "$root/kernels/seeds.c"
build before-const "$work/old" "$work/seeds_const.c"
build after-const "$root/include" "$work/seeds_const.c"
build before-const-native "$work/old" "$work/seeds_const.c" -march=native
build after-const-native "$root/include" "$work/seeds_const.c" -march=native
s="-s group=linear,item=linear,assign=stealing -s group=column,item=linear,assign=stealing"
echo "== matmul and integral_cols, n constant: A before-const, B after-const"
"$bench" -m "$work/before-const.so" --versus "$work/after-const.so" -r 5 $s matmul integral_cols
echo "== the same, -march=native: A before-const-native, B after-const-native"
"$bench" -m "$work/before-const-native.so" --versus "$work/after-const-native.so" -r 5 $s matmul
echo "== every seed as it is (n an argument): A before, B after"
"$bench" -m "$work/before.so" --versus "$work/after.so" -r 5 $s -s group=linear,item=tiled:4x4,assign=stealing
echo "== the same, the modules the other way round: A after, B before"
"$bench" -m "$work/after.so" --versus "$work/before.so" -r 5 $s -s group=linear,item=tiled:4x4,assign=stealing
