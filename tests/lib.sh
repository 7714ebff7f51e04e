# Helpers for command-line tests; source it. STREAMDISK is the binary under test.
set -u
: "${STREAMDISK:?STREAMDISK must point at the streamdisk binary}"
# The last part of a pipeline runs in this shell, so `... | while read; do fail; done`
# counts its failures here (without it the loop is a subshell and they vanish).
shopt -s lastpipe
fails=0
# A fail() in any other subshell ($(...), ( ... ), a pipeline's earlier parts)
# cannot change `fails` here: it signals this shell instead. Signals can merge,
# so the count may be low, but never zero after a failure.
SD_TEST_PID=$$
trap 'fails=$((fails + 1))' USR1
fail() {
  echo "FAIL: $*" >&2
  if [ "$BASHPID" = "$SD_TEST_PID" ]; then fails=$((fails + 1)); else kill -USR1 "$SD_TEST_PID"; fi
}
# skip "reason": the test could not run here; ctest shows it as skipped (exit 77,
# SKIP_RETURN_CODE in tests/CMakeLists.txt), never as passed. Only before any
# check has failed: a failure already seen wins.
skip() {
  [ "$fails" -eq 0 ] || { echo "$fails failure(s) before skipping: $*"; exit 1; }
  echo "SKIPPED: $*"; exit 77
}
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
# The build's trace synthesizer (calibrate/), through qemu-user in a cross build
# (SD_EMULATOR, tests/cross.sh).
sd_synth_traces() { ${SD_EMULATOR:-} "${SD_BUILD_DIR:?}/calibrate/sd_synth_traces" "$@"; }
