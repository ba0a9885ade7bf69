#!/usr/bin/env bash
# test_install.sh BUILD_DIR: installs the build under a temporary prefix (not the one it was
# configured for) and runs what was installed with no LD_LIBRARY_PATH, no PATH entry for it and
# no GRIDTUNE_DAEMON: `gridtune --help`, then `gridtune status`, whose autostart must find the
# installed gridtuned relative to libgridtune, and which, detached, logs to its state directory.
# The daemon it starts is stopped at the end.
set -euo pipefail
build=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install-XXXXXX")
prefix=$tmp/prefix
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ]; then
    kill "$daemon_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test_install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "install failed"; }
gridtune=$prefix/bin/gridtune
[ -x "$gridtune" ] && [ -x "$prefix/bin/gridtuned" ] || fail "the install holds no gridtune and gridtuned under $prefix/bin"

# Only what a user's shell would have; nothing that points at the build or the prefix.
run() {
  env -i HOME="$tmp/home" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$tmp/run" XDG_STATE_HOME="$tmp/state" \
    XDG_CACHE_HOME="$tmp/cache" "$@"
}
mkdir -p "$tmp/home" "$tmp/run"
chmod 700 "$tmp/run"

run "$gridtune" --help >"$tmp/help.txt" 2>&1 || { cat "$tmp/help.txt" >&2; fail "gridtune --help failed"; }
grep -q "status" "$tmp/help.txt" || fail "gridtune --help does not list status"

run "$gridtune" status --json >"$tmp/status.json" 2>"$tmp/status.err" ||
  { cat "$tmp/status.err" >&2; fail "gridtune status failed"; }
daemon_pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$tmp/status.json")
run "$gridtune" status >"$tmp/status.txt" 2>"$tmp/status.err" || { cat "$tmp/status.err" >&2; fail "gridtune status failed"; }
grep -q "^held: *0 bytes of partly received frames, [0-9]* bytes of answers not yet read" "$tmp/status.txt" ||
  { cat "$tmp/status.txt" >&2; fail "gridtune status does not say what gridtuned holds for its clients"; }
exe=$(readlink "/proc/$daemon_pid/exe")
[ "$exe" = "$prefix/bin/gridtuned" ] || fail "the daemon started is $exe, not the installed $prefix/bin/gridtuned"
log=$tmp/state/gridtune/gridtuned.log # detached, it logs beside the wisdom
grep -q "gridtuned\[$daemon_pid\]" "$log" 2>/dev/null || fail "the detached daemon did not log to $log"
echo "test_install: the install under $prefix runs gridtune --help and status (daemon $exe, pid $daemon_pid)"
