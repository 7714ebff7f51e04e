#!/usr/bin/env bash
# Real traces from the `stalls` rig (ext4 over a device that stops ~1 s every
# ~10 s; tests/rig/traces/README.md) with the block device's own activity. Six
# of the slow writes the paced phases met were no stop of the device (it went
# on completing): ext4's own waits, which the model's journal makes itself.
# calibrate must leave them out when the traces say the filesystem has a
# journal (their journal_commit_ms header, or --journal-commit-ms for traces
# without it), and only then, and with the device's log.
. "$SD_SOURCE_DIR/tests/lib.sh"
T="$SD_SOURCE_DIR/tests/rig/traces/stalls"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
value() { awk -v k="device.$1" '$1 == k { print $2 }'; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
note="6 pause(s) the writes met through the journaled filesystem are no stop of the device"

out=$("$STREAMDISK" calibrate "$T"/*.csv --device-activity "$T/device-activity.log" -o "$dir/fit.toml") ||
  fail "calibrate failed: $out"
printf '%s\n' "$out" | grep -q "$note" || fail "the filesystem's waits were not left out: $out"
printf '%s\n' "$out" | grep -q "stalls: 12 pause(s) in 4 trace(s)" || fail "expected the 12 pauses left: $out"
median=$(printf '%s\n' "$out" | value stall_duration_ms)
between "${median:-0}" 900 1100 || fail "stall_duration_ms '$median': the rig's pauses are ~1 s"
"$STREAMDISK" show "$dir/fit.toml" >/dev/null || fail "the fitted profile does not load"

# Without the device's log nothing tells a wait from a stop: every pause stays.
out=$("$STREAMDISK" calibrate "$T"/*.csv) || fail "calibrate without the device log failed: $out"
printf '%s\n' "$out" | grep -q "journaled filesystem" && fail "waits left out without the device's log: $out"
printf '%s\n' "$out" | grep -q "stalls: 18 pause(s) in 4 trace(s)" || fail "expected all 18 pauses: $out"

# The same traces without the header (kept before streamdisk wrote it): every
# pause stays, unless --journal-commit-ms says what the header would have.
mkdir "$dir/old"
for f in "$T"/*; do sed '/^# journal_commit_ms=/d' "$f" > "$dir/old/${f##*/}"; done
out=$("$STREAMDISK" calibrate "$dir"/old/*.csv --device-activity "$dir/old/device-activity.log") ||
  fail "calibrate on the headerless traces failed: $out"
printf '%s\n' "$out" | grep -q "journaled filesystem" && fail "waits left out with no journal said: $out"
out=$("$STREAMDISK" calibrate "$dir"/old/*.csv --device-activity "$dir/old/device-activity.log" \
  --journal-commit-ms 5000) || fail "calibrate --journal-commit-ms failed: $out"
printf '%s\n' "$out" | grep -q "$note" || fail "--journal-commit-ms did not leave the waits out: $out"

# A bad interval is one line and exit status 2.
err=$("$STREAMDISK" calibrate "$T"/*.csv --journal-commit-ms 0 2>&1); rc=$?
[ "$rc" = 2 ] || fail "--journal-commit-ms 0: exit $rc, expected 2"
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "--journal-commit-ms 0: more than one line: $err"
finish
