#!/usr/bin/env bash
# test_daemon_options.sh: gridtuned's tuning, executor and limit options on the command line. --help documents
# them, and a bad value is refused with exit status 2 and a sentence naming the value and what
# was expected, before the daemon starts. Nothing listens here.
# usage: test_daemon_options.sh GRIDTUNED
set -euo pipefail

gridtune=$1 # the command under test, as fixtures/cli_checks.sh calls it
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_daemon_options-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=fixtures/cli_checks.sh
. "$(dirname "$0")/fixtures/cli_checks.sh"

run 0 --help
for opt in --budget --strategy --metric --refine --refine-limit --disturbed-share --isolation --executor \
  --executor-spin --loop-spin --launch-timeout --time-slice --buffer-store --max-waiting --max-total-output --frame-timeout \
  --http-max-connections --http-timeout --max-wisdom-entries --max-cache-bytes; do
  expect_in "$out" "$opt " "--help documents $opt"
done

refused '--refine "maybe": expected on or off' --refine maybe
refused '--refine "": expected on or off' --refine ""
refused '--refine-limit "0": expected an integer from 1 to 1000' --refine-limit 0
refused '--refine-limit "1001": expected an integer from 1 to 1000' --refine-limit 1001
refused '--refine-limit "x": expected an integer from 1 to 1000' --refine-limit x
refused '--budget "0.5": expected a fraction of the workgroups above 0 and below 0.5' --budget 0.5
refused '--strategy "fast": expected racing or nested' --strategy fast
refused '--isolation "threads": expected process or none' --isolation threads
refused '--buffer-store "shm": expected tmpfs or memfd' --buffer-store shm
refused '--buffer-store "": expected tmpfs or memfd' --buffer-store ""
refused '--executor "gridtune-exec": expected an absolute path to gridtune-exec' --executor gridtune-exec
refused '--executor-spin "100001": expected an integer from 0 to 100000' --executor-spin 100001
refused '--loop-spin "100001": expected an integer from 0 to 100000' --loop-spin 100001
refused '--loop-spin "-1": expected an integer from 0 to 100000' --loop-spin -1
refused '--launch-timeout "-1": expected an integer from 0 to 1048576' --launch-timeout -1
refused '--launch-timeout "soon": expected an integer from 0 to 1048576' --launch-timeout soon
refused '--time-slice "60001": expected an integer from 0 to 60000' --time-slice 60001
refused '--time-slice "-5": expected an integer from 0 to 60000' --time-slice -5
refused '--time-slice "1s": expected an integer from 0 to 60000' --time-slice 1s
refused '--max-waiting "0": expected an integer from 1 to 1048576' --max-waiting 0
refused '--max-waiting "many": expected an integer from 1 to 1048576' --max-waiting many
refused '--max-total-output "1k": expected a byte count (suffix K, M, G or T allowed) from 65536 to 4398046511104' \
  --max-total-output 1k
refused '--max-total-output "-1": expected a byte count' --max-total-output -1
refused '--http-max-connections "0": expected an integer from 1 to 65536' --http-max-connections 0
refused '--http-max-connections "lots": expected an integer from 1 to 65536' --http-max-connections lots
refused '--http-timeout "0": expected an integer from 1 to 3600' --http-timeout 0
refused '--http-timeout "3601": expected an integer from 1 to 3600' --http-timeout 3601
refused '--max-wisdom-entries "0": expected an integer from 1 to 16384' --max-wisdom-entries 0
refused '--max-wisdom-entries "16385": expected an integer from 1 to 16384' --max-wisdom-entries 16385
refused '--max-wisdom-entries "4k": expected an integer from 1 to 16384' --max-wisdom-entries 4k
refused '--max-cache-bytes "0": expected a byte count' --max-cache-bytes 0
refused '--max-cache-bytes "lots": expected a byte count' --max-cache-bytes lots
finish test_daemon_options
