#!/usr/bin/env bash
# test_cli_abab.sh: bench/abab, the interleaved before/after driver, and bench/abab_compare.py.
# --help documents every option; bad usage is refused with exit status 2 and a sentence before
# anything runs; a tiny run with the same gridtune-tune-bench on both sides writes a JSON per
# rep, side and benchmark and prints the after/before table.
# usage: test_cli_abab.sh SOURCE_DIR GRIDTUNE_TUNE_BENCH SEEDS_MODULE
set -euo pipefail

src=$1 tune_bench=$2 module=$3
gridtune=$src/bench/abab # the command under test, as fixtures/cli_checks.sh calls it
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_abab-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"

run 0 --help
for opt in --bench --reps --out --module --help; do
  expect_in "$out" "$opt " "--help documents $opt"
done

refused "BEFORE and AFTER" --bench copy_rows --out "$tmp/x"
refused 'unknown option "--frobnicate"' --frobnicate "$tune_bench" "$tune_bench"
refused 'no benchmark' --out "$tmp/x" "$tune_bench" "$tune_bench"
refused 'no --out DIR' --bench copy_rows "$tune_bench" "$tune_bench"
refused '--reps "0"' --reps 0 --bench copy_rows --out "$tmp/x" "$tune_bench" "$tune_bench"
refused '"/nonexistent" is not an executable file' --bench copy_rows --out "$tmp/x" /nonexistent "$tune_bench"
refused '"../x" is not a benchmark name' --bench ../x --out "$tmp/x" "$tune_bench" "$tune_bench"
refused '"--size": options for the runs go after --' --bench copy_rows --out "$tmp/x" "$tune_bench" "$tune_bench" --size 2
[ ! -e "$tmp/x" ] || fail "a refused command line made its --out directory"

run 0 --bench copy_rows --reps 2 --out "$tmp/runs" --module "$module" "$tune_bench" "$tune_bench" -- \
  --size 2048 --launches 6 --series 1 --oracle-max 1 --reps 1 --sample-us 50 --no-probes
for rep in 1 2; do
  for side in before after; do
    [ -s "$tmp/runs/$rep-$side-copy_rows.json" ] || fail "no $rep-$side-copy_rows.json"
  done
done
expect_in "$err" "rep 2/2, copy_rows, before" "progress on stderr"
order=$(printf '%s\n' "$err" | sed -n 's/^bench\/abab: rep \([0-9]\)\/2, copy_rows, \(.*\)$/\1\2/p' | tr '\n' ' ')
[ "$order" = "1before 1after 2after 2before " ] || fail "reps do not alternate which side runs first: $order"
expect_in "$out" "after/before per rep" "the table's title"
row=$(printf '%s\n' "$out" | grep '^copy_rows ' || true)
[ -n "$row" ] || fail "no copy_rows row in: $out"
# two reps, then cold, total and steady as median (min-max) and the reps after was faster in
[[ $row =~ ^copy_rows\ +2(\ +[0-9.]+\ \([0-9.]+-[0-9.]+\)\ [0-2]/2){3} ]] ||
  fail "the copy_rows row is not two reps of three ratios: $row"
# two reps can show nothing at p < 0.05
expect_in "$out" "of 2, no k is a difference" "the sign test's footnote"

compare=$src/bench/abab_compare.py
mkdir "$tmp/empty"
got=0
python3 "$compare" "$tmp/empty" >"$tmp/out" 2>"$tmp/err" || got=$?
[ "$got" = 2 ] || fail "abab_compare.py on an empty directory exited $got, expected 2"
expect_in "$(cat "$tmp/err")" "no before/after pairs" "abab_compare.py on an empty directory"
rm "$tmp/runs/2-after-copy_rows.json"
python3 "$compare" "$tmp/runs" >"$tmp/out" || fail "abab_compare.py with one pair left failed"
expect_in "$(cat "$tmp/out")" "copy_rows         1" "a rep without its after run is left out"

finish "bench/abab command line"
