#!/usr/bin/env bash
# test_cli_tune_bench.sh: gridtune-tune-bench's command line. --help documents every option, and
# a bad value of an option is refused with exit status 2 and a sentence that names the value
# and what was expected, before anything is measured. No benchmark runs here.
# usage: test_cli_tune_bench.sh GRIDTUNE_TUNE_BENCH
set -euo pipefail

gridtune=$1 # the command under test, as fixtures/cli_checks.sh calls it
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_tune_bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"

run 0 --help
for opt in --module --workers --reps --size --json --bench --launches --series --oracle-max --budget \
  --strategy --metric --sample-us --styles --param-series --events --wisdom --reports --reports-of --no-probes --no-reference --list --help; do
  expect_in "$out" "$opt " "--help documents $opt"
done

refused '--launches "0": expected a whole number from 1 to 1000' --launches 0
refused '--launches "1001": expected a whole number from 1 to 1000' --launches 1001
refused '--launches "many": expected a whole number' --launches many
refused '--series "0": expected a whole number from 1 to 100' --series 0
refused '--series "101": expected a whole number from 1 to 100' --series 101
refused "--series \"2:2:0\": expected a number of series; the parameters' series is --param-series" --series 2:2:0
refused '--oracle-max "0": expected a whole number from 1 to 1000' --oracle-max 0
refused '--oracle-max "-3": expected a whole number from 1 to 1000' --oracle-max -3
refused '--reps "0": expected a whole number from 1 to 100' --reps 0
refused '--param-series "1:1:0"' --param-series 1:1:0
refused '--reports-of "some": expected all or defaults' --reports-of some
refused '--reports-of defaults: needs --reports DIR' --reports-of defaults
refused 'no benchmark "nosuch"' --bench nosuch
refused 'unexpected argument "transpose"; benchmarks are chosen with --bench NAME' transpose

finish "gridtune-tune-bench command line"
