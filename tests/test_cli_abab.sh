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
for opt in --bench --reps --out --module --reports --help; do
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

run 0 --bench copy_rows --reps 2 --out "$tmp/runs" --module "$module" --reports "$tune_bench" "$tune_bench" -- \
  --size 2048 --launches 6 --series 1 --oracle-max 1 --reps 1 --sample-us 50 --no-probes
for rep in 1 2; do
  for side in before after; do
    [ -s "$tmp/runs/$rep-$side-copy_rows.json" ] || fail "no $rep-$side-copy_rows.json"
    [ -s "$tmp/runs/rep-$rep-$side/copy_rows-1-1.json" ] || fail "--reports kept no rep-$rep-$side/copy_rows-1-1.json"
  done
done
expect_in "$err" "rep 2/2, copy_rows, before" "progress on stderr"
order=$(printf '%s\n' "$err" | sed -n 's/^bench\/abab: rep \([0-9]\)\/2, copy_rows, \(.*\)$/\1\2/p' | tr '\n' ' ')
[ "$order" = "1before 1after 2after 2before " ] || fail "reps do not alternate which side runs first: $order"
expect_in "$out" "after/before per rep" "the table's title"
row=$(printf '%s\n' "$out" | grep '^copy_rows ' || true)
[ -n "$row" ] || fail "no copy_rows row in: $out"
# two reps, then cold, total, steady and cold over the run's default as median (min-max) and
# the reps after was faster in
[[ $row =~ ^copy_rows\ +2(\ +[0-9.]+\ \([0-9.]+-[0-9.]+\)\ [0-2]/2){4} ]] ||
  fail "the copy_rows row is not two reps of four ratios: $row"
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

# the pooled cold launches, from runs made up so that every figure is known: before's colds
# are 10, 20, 30 and 40 ms, after's 5, 5, 5 and 20; the default's forced median in each run's
# oracle is 10, 10, 70 and 5 ms
mkdir "$tmp/made"
made() { # made REP SIDE MS MS DEFAULT_MS: a run of two series of one launch each
  printf '{"benchmarks": [{"series": [[{"ns": %d}], [{"ns": %d}]], "oracle": {"default_median_ns": %d}}]}\n' \
    "$(($3 * 1000000))" "$(($4 * 1000000))" "$(($5 * 1000000))" >"$tmp/made/$1-$2-copy_rows.json"
}
made 1 before 10 20 10
made 1 after 5 5 10
made 2 before 30 40 70
made 2 after 5 20 5
python3 "$compare" "$tmp/made" >"$tmp/out" || fail "abab_compare.py on made-up runs failed"
# cold per rep: 5/15 and 12.5/35; over the run's default: (5/10)/(15/10) = 0.33 and
# (12.5/5)/(35/70) = 5.00, so after is faster in rep 1 only
row=$(grep -E '^copy_rows +2 ' "$tmp/out" || true)
[[ $row =~ \ 0\.35\ \(0\.33-0\.36\)\ 2/2\ .*\ 2\.67\ \(0\.33-5\.00\)\ 1/2\ *$ ]] ||
  fail "the made-up row's cold is not 0.35 (0.33-0.36) 2/2, or its cold over the default not 2.67 (0.33-5.00) 1/2: $row"
expect_in "$(cat "$tmp/out")" "cold launches pooled over the reps" "the pooled table's title"
row=$(grep -E '^copy_rows +before' "$tmp/out" || true)
[[ $row =~ ^copy_rows\ +before\ +4\ +25\.0\ +25\.0\ +40\.0\ +40\.0\ *$ ]] ||
  fail "before's pooled colds are not n 4, mean 25, median 25, p90 40, max 40: $row"
row=$(grep -E '^copy_rows +after' "$tmp/out" || true)
[[ $row =~ ^copy_rows\ +after\ +4\ +8\.8\ +5\.0\ +20\.0\ +20\.0\ +mean\ 0\.35,\ p90\ 0\.50$ ]] ||
  fail "after's pooled colds are not n 4, mean 8.75, median 5, p90 20, max 20, ratios 0.35 and 0.50: $row"

finish "bench/abab command line"
