cd /work/main
for r in 1 2; do
  for m in release native; do
    echo "=== $m run $r"
    build/release/bench/gridtune-peer-bench -m build/$m/kernels/libgridtune-seeds.so --no-pocl reduce copy_rows copy_cols stencil5 --json /tmp/nat/$m-$r.json < /dev/null 2>&1 | grep -v "learning launch"
  done
done
