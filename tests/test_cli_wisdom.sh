#!/usr/bin/env bash
# test_cli_wisdom.sh: `gridtune wisdom` end to end, in a temporary XDG_STATE_HOME: empty show,
# import of a hand-written file (one entry refining, one without refine), show, export round
# trip, a refused import that changes nothing, clear, a corrupt file set aside, and the exit
# statuses (0 done, 1 failed, 2 usage).
# With GRIDTUNED, also import and clear through a running daemon, which owns its wisdom.
# usage: test_cli_wisdom.sh GRIDTUNE [SAVED_COPY [GRIDTUNED]]
#   SAVED_COPY: where to copy a wisdom file the tool saved, for the schema check.
set -euo pipefail

gridtune=$1
saved_copy=${2:-}
gridtuned=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_wisdom-XXXXXX")
daemon_pid=
trap '[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state
unset GRIDTUNE_WISDOM
# No daemon answers here, and none is started: the commands below edit the file.
export GRIDTUNE_SOCKET=$tmp/no-daemon.sock GRIDTUNE_NO_AUTOSTART=1
wisdom=$XDG_STATE_HOME/gridtune/wisdom.json

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"


entry() { # KERNEL SCHEDULE GAIN WORKERS [REFINE [UID]]
  cat <<EOF
    {"kernel": "$1", "kernel_hash": "0123456789abcdef", "machine": "fedcba9876543210",
     "range": {"dims": 2, "global": [8192, 8192, 1], "local": [16, 16, 1]},
     "workers": $4, "schedule": "$2",
     "metric": "time", "cost": 1.25, "gain": $3, "decided": 1795000000${5:+, \"refine\": $5}${6:+, \"uid\": $6}}
EOF
}

# transpose is still refining against two contenders, and its next launch resumes the
# analysis over the group orders and spans, and was stored for uid 0; matmul has no refine
# part (a file written before refinement), which reads as settled, and no uid.
refining='{"state": "refining", "launches": 3, "settled_cost": null, "drifted": 0, "contenders": [
  {"schedule": "group=column,item=column,assign=block", "costs": [1.2, 1.3], "incumbent_costs": [1.1, 1.15]},
  {"schedule": "group=hilbert,span=4,item=linear,assign=stealing", "costs": [0.9], "incumbent_costs": [1.05]}],
  "unexplored": ["span", "group"], "resumes": 1}'
cat >"$tmp/good.json" <<EOF
{"format": "gridtune-wisdom", "version": 1, "entries": [
$(entry transpose "item=tiled:4x4,assign=block" 0.31 2 "$refining" 0),
$(entry matmul "group=grouped:8,item=hilbert,assign=dynamic:8" null 4)
]}
EOF
cat >"$tmp/bad.json" <<EOF
{"format": "gridtune-wisdom", "version": 1, "entries": [
$(entry copy "group=linear" 0.1 2),
$(entry convolve "group=linear,item=tiled:0x4" 0.1 2)
]}
EOF

# --- the empty wisdom ---
run 0 wisdom path
[ "$out" = "$wisdom" ] || fail "wisdom path printed \"$out\", expected $wisdom"
run 0 wisdom show
expect_in "$out" "no entries" "empty show"
[ ! -e "$wisdom" ] || fail "show created $wisdom"

# --- import, show ---
run 0 wisdom import "$tmp/good.json"
expect_in "$out" "imported 2 entries" "import"
[ -f "$wisdom" ] || fail "import did not save $wisdom"
run 0 wisdom show
expect_in "$out" "kernel" "show header"
expect_in "$out" "transpose" "show"
expect_in "$out" "8192x8192/16x16" "show range"
expect_in "$out" "group=linear,item=tiled:4x4,assign=block" "show canonical schedule"
expect_in "$out" "group=grouped:8,item=hilbert,assign=dynamic:8" "show"
expect_in "$out" "+31.0%" "show gain"
expect_in "$out" "2026-11-18T11:06:40Z" "show decided"
expect_in "$out" "refine" "show header"
transpose_row=$(printf '%s\n' "$out" | grep '^transpose ')
matmul_row=$(printf '%s\n' "$out" | grep '^matmul ')
expect_in "$transpose_row" "refining 3 launches, 2 contenders; resumes group+span" "show refine state"
expect_in "$matmul_row" "settled" "show an entry without refine"
# the user who stored an entry (uid 0 here), by name; an entry without uid shows none
root_name=$(getent passwd 0 | cut -d: -f1)
expect_in "$transpose_row" " $root_name " "show the entry's user"
case "$matmul_row" in *" $root_name "*) fail "show gave an entry without uid a user: $matmul_row" ;; esac
[ "$(printf '%s\n' "$out" | wc -l)" = 3 ] || fail "show printed other than a header and 2 rows: $out"
[ -z "$(ls "$XDG_STATE_HOME/gridtune" | grep -v '^wisdom.json$')" ] || fail "import left files beside the wisdom"
[ "$(stat -c %a "$XDG_STATE_HOME/gridtune")" = 700 ] || fail "the wisdom directory is not private"

# --- export round trip: to a file and to stdout, then into another wisdom ---
run 0 wisdom export "$tmp/exported.json"
cmp -s "$tmp/exported.json" "$wisdom" || fail "export differs from the saved file"
run 0 wisdom export
[ "$out" = "$(cat "$wisdom")" ] || fail "export to stdout differs from the saved file"
run 0 wisdom export -
[ "$out" = "$(cat "$wisdom")" ] || fail "export - differs from the saved file"
run 0 --wisdom "$tmp/other/wisdom.json" wisdom import "$tmp/exported.json"
cmp -s "$tmp/other/wisdom.json" "$wisdom" || fail "export then import does not give the same file"
"$gridtune" --wisdom "$tmp/stdin.json" wisdom import - <"$tmp/exported.json" >/dev/null || fail "import - failed"
cmp -s "$tmp/stdin.json" "$wisdom" || fail "import from stdin does not give the same file"
GRIDTUNE_WISDOM=$tmp/env.json run 0 wisdom path
[ "$out" = "$tmp/env.json" ] || fail "GRIDTUNE_WISDOM ignored: $out"
GRIDTUNE_WISDOM=$tmp/env.json run 0 --wisdom "$tmp/flag.json" wisdom path
[ "$out" = "$tmp/flag.json" ] || fail "--wisdom does not override GRIDTUNE_WISDOM: $out"
if [ -n "$saved_copy" ]; then cp "$wisdom" "$saved_copy"; fi

# --- a bad file is refused whole ---
cp "$wisdom" "$tmp/before.json"
run 1 wisdom import "$tmp/bad.json"
expect_in "$err" "gridtune: " "refused import prefix"
expect_in "$err" "entry 1: \"schedule\"" "refused import names the entry"
expect_in "$err" "nothing was imported" "refused import"
cmp -s "$wisdom" "$tmp/before.json" || fail "a refused import changed the wisdom file"
run 1 wisdom import "$tmp/absent.json"
expect_in "$err" "absent.json" "import of a missing file"

# --- clear ---
run 0 wisdom clear
expect_in "$out" "cleared 2 entries" "clear"
run 0 wisdom show
expect_in "$out" "no entries" "show after clear"
[ -f "$wisdom" ] || fail "clear removed the file instead of saving it empty"

# --- a corrupt file is set aside with a warning ---
printf 'not json' >"$wisdom"
run 0 wisdom show
expect_in "$err" "gridtune: warning: " "corrupt file warning"
expect_in "$err" "is corrupt" "corrupt file warning"
expect_in "$out" "no entries" "show of a corrupt file"
ls "$wisdom".corrupt-* >/dev/null 2>&1 || fail "the corrupt file was not set aside"

# --- usage ---
run 2
expect_in "$err" "no command" "no command"
run 2 wisdom
run 2 wisdom bogus
expect_in "$err" "unknown command" "unknown verb"
expect_in "$err" "wisdom show" "unknown verb lists the verbs"
run 2 bogus
run 2 --bogus wisdom show
expect_in "$err" "gridtune: unknown option" "unknown flag"
run 2 wisdom import
expect_in "$err" "takes FILE|-" "missing argument"
run 2 wisdom export a b
run 2 wisdom show extra
run 2 wisdom show --all
run 2 --wisdom
run 2 --wisdom "" wisdom show

# --- help and version ---
run 0 --help
for word in --wisdom --help --version GRIDTUNE_WISDOM XDG_STATE_HOME HOME "wisdom show" "wisdom path" \
            "wisdom export" "wisdom import" "wisdom clear"; do
  expect_in "$out" "$word" "--help"
done
run 0 -h
run 0 wisdom --help
expect_in "$out" "wisdom import FILE|-" "wisdom --help"
run 0 --version
expect_in "$out" "gridtune " "--version"

# --- through a running daemon: it owns the wisdom, so import and clear go through it ---
if [ -n "$gridtuned" ]; then
  sock=$tmp/daemon/s.sock
  mkdir -p "$tmp/daemon"
  "$gridtuned" --socket "$sock" --wisdom "$tmp/daemon/wisdom.json" --cache-dir "$tmp/daemon/cache" \
    --log "$tmp/daemon/log" --trace "$tmp/daemon/trace.jsonl" --workers 1 || fail "gridtuned did not start: $(cat "$tmp/daemon/log" 2>/dev/null)"
  export GRIDTUNE_SOCKET=$sock
  run 0 status --json
  daemon_pid=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$out")
  run 0 wisdom path
  [ "$out" = "$tmp/daemon/wisdom.json" ] || fail "wisdom path does not name the daemon's file: $out"
  run 0 wisdom import "$tmp/good.json"
  expect_in "$out" "into the wisdom of the running gridtuned" "import through the daemon"
  python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["entries"]) == 2' "$tmp/daemon/wisdom.json" ||
    fail "the daemon did not save the imported entries"
  run 0 wisdom show
  expect_in "$out" "item=tiled:4x4" "show reads the daemon's file"
  run 1 wisdom import "$tmp/bad.json"
  expect_in "$err" "nothing was imported" "a refused import through the daemon"
  run 0 wisdom clear
  expect_in "$out" "cleared 2 entries from the wisdom of the running gridtuned" "clear through the daemon"
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["entries"] == []' "$tmp/daemon/wisdom.json" ||
    fail "the daemon did not save the cleared wisdom"
  run 0 --wisdom "$tmp/named.json" wisdom path
  [ "$out" = "$tmp/named.json" ] || fail "--wisdom must win over the daemon's file: $out"
  kill "$daemon_pid"
  daemon_pid=
  # every message of that conversation against schemas/protocol
  here=$(dirname "$0")
  python3 "$here/fixtures/check_protocol.py" "$here/../schemas" "$tmp/daemon/trace.jsonl" \
    --require hello,status,wisdom_import,wisdom_clear >/dev/null || fail "the wisdom messages do not match their schemas"
fi

finish "gridtune wisdom"
