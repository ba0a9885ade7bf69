#!/usr/bin/env bash
# test_cli_pool_bench.sh: gridtune-pool-bench's command line and output. --help documents every
# option; a bad value is refused with exit status 2 and a sentence naming it, before anything
# runs; a tiny run prints a median for each pool and their ratio.
# usage: test_cli_pool_bench.sh GRIDTUNE_POOL_BENCH
set -euo pipefail

gridtune=$1 # the command under test, as fixtures/cli_checks.sh calls it
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_pool_bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"

run 0 --help
for opt in --workers --groups --batches --rounds --spin-us --help; do
  expect_in "$out" "$opt " "--help documents $opt"
done

refused '--groups "0"' --groups 0
refused '--batches "101"' --batches 101
refused '--rounds "x"' --rounds x
refused '--spin-us "0"' --spin-us 0
refused '--workers "257"' --workers 257
refused 'no operands are taken, but "extra" was given' extra

run 0 --workers 2 --groups 2 --batches 3 --rounds 2 --spin-us 50
expect_in "$out" "parking  (spin     0 us)  median batch" "the parking pool's median"
expect_in "$out" "polling  (spin    50 us)  median batch" "the polling pool's median"
expect_in "$out" "polling / parking: " "the ratio"

finish "gridtune-pool-bench command line"
