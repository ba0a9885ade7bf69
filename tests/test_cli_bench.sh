#!/usr/bin/env bash
# test_cli_bench.sh: `gridtune bench` end to end. libgridtune autostarts this build's gridtuned
# on a socket in a temporary directory (given through $GRIDTUNE_SOCKET: a --socket flag would
# turn autostart off); two small benchmarks run for one round with --json, and the JSON must
# show a median for every contender, every output verified and every warm launch a wisdom hit.
# No time is compared with anything. The daemon is stopped with SIGTERM at the end.
# usage: test_cli_bench.sh GRIDTUNE GRIDTUNED [PYTHON]
set -euo pipefail

gridtune=$1
export GRIDTUNE_DAEMON=$2
python=${3:-python3}
size=4096 # small, yet large enough that analysis runs and its decision is remembered
rounds=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_bench-XXXXXX")
export GRIDTUNE_SOCKET=$tmp/gridtuned.sock XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset GRIDTUNE_WISDOM GRIDTUNE_NO_AUTOSTART

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"

# Stops the daemon serving $GRIDTUNE_SOCKET, if any, and waits for it to go (it saves its
# wisdom on the way out). Autostart is off here, so asking for the pid starts nothing.
stop_daemon() {
  local status pid
  status=$(GRIDTUNE_NO_AUTOSTART=1 "$gridtune" status --json 2>/dev/null) || return 0
  pid=$("$python" -c 'import json, sys; print(json.loads(sys.argv[1])["pid"])' "$status")
  kill -TERM "$pid"
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  fail "gridtuned (pid $pid) did not stop within 10 s of SIGTERM"
}
trap 'stop_daemon; rm -rf "$tmp"' EXIT


# --- a wrong command line is refused before any daemon is asked ---
GRIDTUNE_NO_AUTOSTART=1 run 2 bench --rounds 0
expect_in "$err" "--rounds \"0\"" "--rounds 0"
GRIDTUNE_NO_AUTOSTART=1 run 2 bench --bench nosuch
expect_in "$err" "no benchmark \"nosuch\"" "unknown benchmark"
GRIDTUNE_NO_AUTOSTART=1 run 2 bench --bench copy_cols --size 100
expect_in "$err" "copy_cols needs a multiple of" "--size not a multiple"
GRIDTUNE_NO_AUTOSTART=1 run 2 bench extra
run 0 bench --help
expect_in "$out" "--oracle" "bench --help"
[ ! -e "$GRIDTUNE_SOCKET" ] || fail "a refused command line started a daemon"

# --- two benchmarks, one round, through an autostarted daemon ---
run 0 bench --size "$size" --rounds "$rounds" --bench transpose --bench copy_cols --json "$tmp/bench.json"
for word in transpose copy_cols "def/warm" "cold/warm" "compare them within this run only"; do
  expect_in "$out" "$word" "bench table"
done
expect_in "$err" "round 1/1" "bench progress on stderr"

"$python" - "$tmp/bench.json" "$rounds" <<'EOF' || fail "the JSON does not hold what the run must show"
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
rounds = int(sys.argv[2])
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
check(doc.get("format") == "gridtune-bench", "format")
benches = doc.get("benchmarks", [])
check(sorted(b["benchmark"] for b in benches) == ["copy_cols", "transpose"], "the two benchmarks asked for")
for b in benches:
    name = b["benchmark"]
    check(b.get("completed") is True, f"{name}: not completed")
    # a warm-up default and cold launch, then default, cold and warm in each round
    check(b.get("launches") == 2 + 3 * rounds, f"{name}: {b.get('launches')} launches")
    check(b.get("verified") == b.get("launches"), f"{name}: {b.get('verified')} of {b.get('launches')} verified")
    for kind in ("default", "cold", "warm"):
        c = b.get(kind, {})
        check(c.get("wall", {}).get("median_ns", 0) > 0, f"{name}: {kind} has no median")
        check(len(c.get("wall", {}).get("runs_ns", [])) == rounds, f"{name}: {kind} runs")
        check(c.get("report_total", {}).get("median_ns", 0) > 0, f"{name}: {kind} has no report total")
    sources = {k: [l["source"] for l in b.get(k, {}).get("launches", [])] for k in ("default", "cold", "warm")}
    check(sources["default"] == ["forced"] * rounds, f"{name}: default launches decided by {sources['default']}")
    check("wisdom" not in sources["cold"], f"{name}: a cold launch came from the wisdom")
    # a warm launch is a wisdom hit, or resumes the analysis the cold launch's time limit cut short
    warm = b.get("warm", {}).get("launches", [])
    resumed = [l.get("resumed") is True and l["source"] == "analysis" for l in warm]
    check(all(l["source"] == "wisdom" or r for l, r in zip(warm, resumed)),
          f"{name}: warm launches decided by {sources['warm']}")
    check(b["warm"].get("resumed") == sum(resumed), f"{name}: resumed {b['warm'].get('resumed')}")
    check(b["warm"].get("wisdom_hits") + sum(resumed) == rounds, f"{name}: wisdom_hits {b['warm'].get('wisdom_hits')}")
    check(0 <= b["warm"].get("refining", -1) <= rounds, f"{name}: refining {b['warm'].get('refining')}")
    for key in ("default_over_warm", "cold_over_warm"):
        check(isinstance(b.get("ratios", {}).get(key), (int, float)), f"{name}: ratio {key}")
    check(b.get("oracle") is None, f"{name}: an oracle without --oracle")
for p in problems:
    print("bench.json:", p)
sys.exit(1 if problems else 0)
EOF

# --- a workgroup kernel (GT_KERNEL_GROUP: regions, local memory) through the same daemon ---
run 0 bench --size 256 --rounds 1 --bench matmul_tiled --json "$tmp/tiled.json"
expect_in "$out" matmul_tiled "bench table of a workgroup kernel"
"$python" - "$tmp/tiled.json" <<'EOF' || fail "the workgroup kernel's JSON does not hold what the run must show"
import json, sys
with open(sys.argv[1]) as f:
    b = json.load(f)["benchmarks"][0]
sys.exit(0 if b.get("completed") is True and b.get("verified") == b.get("launches") == 5 else 1)
EOF
run 0 reports --json
"$python" - "$out" <<'EOF' || fail "the reports do not say matmul_tiled is a workgroup kernel with 2048 bytes of local memory"
import json, sys
reports = [r for r in json.loads(sys.argv[1]) if r["kernel"] in ("matmul_tiled", "transpose")]
forms = {(r["kernel"], r["kernel_form"], r["local_bytes"]) for r in reports}
sys.exit(0 if forms == {("matmul_tiled", "workgroup", 2048), ("transpose", "item", 0)} else 1)
EOF
run 0 reports
expect_in "$out" "local" "reports table header"
grep -Eq "matmul_tiled +256x256 +2048 " <<<"$out" || fail "the reports table shows no 2048-byte local memory for matmul_tiled"

stop_daemon
trap 'rm -rf "$tmp"' EXIT

finish "gridtune bench"
