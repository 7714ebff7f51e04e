#!/usr/bin/env bash
# Ctrl-C in the middle of `characterize`: exit 130, every test file removed,
# no profile written, a word on stderr. The target is a `streamdisk mount` of
# a 20 MB/s device, so the test files stay long enough to be seen (on a
# tmpfs every phase ends in milliseconds and a poll can miss them).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
start_mount -p samsung-960evo-250g "${SLOW_SETS[@]}" --discard
"$STREAMDISK" characterize "$MNT" -o "$WORK/slow.toml" --budget 10min --idle 1s >"$WORK/out" 2>"$WORK/err" &
PID=$!
seen=""
for _ in $(seq 600); do
  ls "$MNT" | grep -q streamdisk-characterize && { seen=1; break; }
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$seen" ] || { kill "$PID" 2>/dev/null; fail "no test file appeared within 60 s: $(tr '\r' '\n' <"$WORK/err" | tail -3)"; }
sleep 1  # in the middle of a phase, not between its first create and the next statement
kill -INT "$PID"
wait "$PID"
rc=$?
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGINT, expected 130"
[ -z "$(ls -A "$MNT")" ] || fail "files left after SIGINT: $(ls -A "$MNT")"
[ ! -e "$WORK/slow.toml" ] || fail "a profile was written after SIGINT"
grep -q "interrupted" "$WORK/err" || fail "no word on stderr about the interruption: $(cat "$WORK/err")"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC"
finish
