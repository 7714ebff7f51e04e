# Helpers for command-line tests; source it. STREAMDISK is the binary under test.
set -u
: "${STREAMDISK:?STREAMDISK must point at the streamdisk binary}"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect_bad_input "what" "message regex" -- args...: exit status 2, one line on stderr matching the regex
expect_bad_input() {
  local what=$1 regex=$2; shift 3
  local err out rc
  err=$(mktemp); out=$("$STREAMDISK" "$@" 2>"$err"); rc=$?
  local msg; msg=$(cat "$err"); rm -f "$err"
  [ "$rc" -eq 2 ] || fail "$what: exit status $rc, expected 2 (stderr: $msg)"
  [ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] || fail "$what: expected one line on stderr, got: $msg"
  printf '%s' "$msg" | grep -Eq -- "$regex" || fail "$what: message '$msg' does not match /$regex/"
  [ -z "$out" ] || fail "$what: printed on stdout: $out"
}
finish() { [ "$fails" -eq 0 ] && echo "ok" || { echo "$fails failure(s)"; exit 1; }; }
