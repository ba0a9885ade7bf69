#!/usr/bin/env bash
# test_daemon_detach.sh: gridtuned started without --foreground, the way autostart and a shell
# start it, in the situations a starter leaves it:
#   - its stdout and stderr a pipe: the pipe reaches end of file once the first process has
#     exited, though the daemon and its executor go on (neither keeps the starter's streams);
#   - relative paths: --socket, --wisdom, --cache-dir and --log resolve against the directory it
#     was started in, not "/" where the detached daemon works;
#   - descriptors 0, 1 and 2 closed: it still serves, and logs;
#   - another daemon of the user holding the same wisdom on another socket: it refuses to start;
#   - another daemon stopping on its socket: it waits for that one to exit, then serves.
# Each daemon is asked for its pid with `gridtune status --json` and stopped with SIGTERM.
# usage: test_daemon_detach.sh GRIDTUNED GRIDTUNE
set -euo pipefail
gridtuned=$1
gridtune=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_daemon_detach-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Only what the test gives it: no user's socket, wisdom or cache.
environment=(PATH=/usr/bin:/bin HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" XDG_STATE_HOME="$tmp/state"
  XDG_CACHE_HOME="$tmp/cache" GRIDTUNE_NO_AUTOSTART=1)
daemon_env() { env -i "${environment[@]}" "$@"; }
mkdir -p "$tmp/home" "$tmp/run" "$tmp/work"
chmod 700 "$tmp/run"

# started SOCKET WHAT: the daemon at SOCKET answers status; its pid joins those stopped at exit.
started() {
  local json
  if ! json=$(daemon_env "$gridtune" --socket "$1" status --json 2>"$tmp/status.err"); then
    fail "$2: no daemon answers at $1: $(cat "$tmp/status.err")"
    return 1
  fi
  pids+=("$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$json")")
}

# 1. Streams to a pipe. `timeout` ends the pipeline if cat never sees end of file.
rc=0
timeout 20 bash -c 'exec "$@" 2>&1 | cat >/dev/null' _ env -i "${environment[@]}" \
  "$gridtuned" --socket "$tmp/piped.sock" --workers 1 || rc=$?
[ "$rc" -eq 0 ] || fail "gridtuned | cat: the pipe was still open after 20 s (status $rc)"
started "$tmp/piped.sock" "streams to a pipe" || true

# 2. Relative paths, from $tmp/work.
(cd "$tmp/work" && daemon_env "$gridtuned" --socket rel.sock --wisdom w.json --cache-dir cache --log d.log \
  --workers 1) || fail "gridtuned with relative paths did not start"
if started "$tmp/work/rel.sock" "relative paths"; then
  grep -q "listening on $tmp/work/rel.sock" "$tmp/work/d.log" 2>/dev/null ||
    fail "relative --log: $tmp/work/d.log does not say it listens on $tmp/work/rel.sock"
  # through the daemon only: the command names no wisdom file of its own
  daemon_env "$gridtune" --socket "$tmp/work/rel.sock" wisdom clear >/dev/null 2>&1 ||
    fail "relative --wisdom: clearing the wisdom through the daemon failed"
  [ -f "$tmp/work/w.json" ] || fail "relative --wisdom: the daemon did not save $tmp/work/w.json"
fi

# 3. Descriptors 0, 1 and 2 closed; the log beside the wisdom, as by default.
daemon_env "$gridtuned" --socket "$tmp/closed.sock" --wisdom "$tmp/closed/wisdom.json" --workers 1 \
  <&- >&- 2>&- || fail "gridtuned with descriptors 0-2 closed did not start"
if started "$tmp/closed.sock" "descriptors 0-2 closed"; then
  grep -q "listening on $tmp/closed.sock" "$tmp/closed/gridtuned.log" 2>/dev/null ||
    fail "descriptors 0-2 closed: $tmp/closed/gridtuned.log does not say it listens"
fi

# 4. A second daemon on another socket but the same wisdom refuses to start, naming the first.
daemon_env "$gridtuned" --socket "$tmp/first.sock" --wisdom "$tmp/shared/wisdom.json" --workers 1 ||
  fail "the first daemon of a shared wisdom did not start"
if started "$tmp/first.sock" "shared wisdom, first"; then
  rc=0
  daemon_env "$gridtuned" --socket "$tmp/second.sock" --wisdom "$tmp/shared/wisdom.json" --workers 1 \
    2>"$tmp/second.err" || rc=$?
  if [ "$rc" -eq 0 ]; then
    fail "a second daemon started on the wisdom the first holds"
    started "$tmp/second.sock" "shared wisdom, second" || true
  fi
  grep -q "in use by another gridtuned (pid ${pids[-1]}, socket $tmp/first.sock)" "$tmp/second.err" ||
    fail "the second daemon's refusal does not name the first: $(cat "$tmp/second.err")"
  [ ! -e "$tmp/second.sock" ] || fail "the refused daemon left its socket $tmp/second.sock"
fi

# 5. A daemon started while another stops on its socket (the socket gone, the lock held until
#    the stopping one exits) waits for it and then serves, instead of failing. Removing the
#    first one's socket stands for its stopping.
daemon_env "$gridtuned" --socket "$tmp/restart.sock" --wisdom "$tmp/restart/old.json" --workers 1 ||
  fail "the daemon to restart did not start"
if started "$tmp/restart.sock" "restart, the old daemon"; then
  old=${pids[-1]}
  rm "$tmp/restart.sock"
  daemon_env "$gridtuned" --socket "$tmp/restart.sock" --wisdom "$tmp/restart/new.json" --workers 1 \
    2>"$tmp/restart.err" &
  starter=$!
  sleep 1
  kill -0 "$starter" 2>/dev/null || fail "the new daemon gave up while the old one held the lock: $(cat "$tmp/restart.err")"
  kill "$old"
  rc=0
  wait "$starter" || rc=$?
  [ "$rc" -eq 0 ] || fail "the new daemon did not start once the old one exited (status $rc): $(cat "$tmp/restart.err")"
  started "$tmp/restart.sock" "restart, the new daemon" || true
fi

if [ "$failures" -ne 0 ]; then
  echo "test_daemon_detach: $failures failed" >&2
  exit 1
fi
echo "test_daemon_detach: all passed"
