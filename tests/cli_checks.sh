# cli_checks.sh: the checks the command-line tests share, sourced after they set $gridtune
# (the command under test) and $tmp (their scratch directory).
# fail WHAT counts a failure; run EXPECTED_STATUS ARGS... runs gridtune, keeping stdout in $out
# and stderr in $err; expect_in / expect_not_in TEXT NEEDLE WHAT check for a substring.

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

run() {
  local want=$1 got=0
  shift
  "$gridtune" "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
  if [ "$got" != "$want" ]; then
    fail "gridtune $* exited $got, expected $want; stderr: $err"
  fi
}

expect_in() {
  case "$1" in *"$2"*) ;; *) fail "$3: \"$2\" not in: $1" ;; esac
}

expect_not_in() {
  case "$1" in *"$2"*) fail "$3: \"$2\" unexpectedly in: $1" ;; *) ;; esac
}
