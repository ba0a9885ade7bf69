#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS WORKDIR SECONDS: runs a libFuzzer target for SECONDS on a copy of
# CORPUS made in WORKDIR (the repository's corpus is never written), keeping any crashing
# input in WORKDIR/artifacts/. For ctest's fuzz_run_* tests.
set -euo pipefail
fuzzer=$1 corpus=$2 work=$3 seconds=$4
# under `ctest -T memcheck` (tools/test --valgrind): an ASan binary cannot run inside valgrind
case "${LD_PRELOAD-}" in *vgpreload*) echo "run_fuzz: skipped under valgrind"; exit 77 ;; esac
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp -- "$corpus"/* "$work/corpus/"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus"
