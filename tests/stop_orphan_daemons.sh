#!/usr/bin/env bash
# stop_orphan_daemons.sh: stops the gridtuned daemons the test fixture started whose test process
# has gone (killed by a timeout, say: the fixture starts each daemon detached, so it outlives a
# test that dies without its teardown). The fixture marks each one's environment with
# GT_TEST_FIXTURE_OWNER=<the test's pid>; a daemon without the mark, or whose test still runs,
# is left alone. Runs as ctest's cleanup after the daemon tests; prints what it stopped.
set -uo pipefail

for dir in /proc/[0-9]*; do
  [ "$(cat "$dir/comm" 2>/dev/null)" = gridtuned ] || continue
  owner=$(tr '\0' '\n' < "$dir/environ" 2>/dev/null | sed -n 's/^GT_TEST_FIXTURE_OWNER=//p')
  [ -n "$owner" ] || continue
  state=$(sed 's/^.*) //' "/proc/$owner/stat" 2>/dev/null | cut -c1)
  [ -n "$state" ] && [ "$state" != Z ] && continue # the test still runs (a zombie has gone)
  pid=${dir#/proc/}
  echo "stopping gridtuned $pid, left by test process $owner"
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
done
exit 0
