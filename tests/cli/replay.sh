#!/usr/bin/env bash
# streamdisk replay: bad input is refused with one line and status 2; a fio
# iolog replays against two profiles and the JSON carries the table.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

printf 'fio version 3 iolog\n5 /d/f add\n10 /d/f open\n100 /d/f write 0 1048576\n20100 /d/f write 1048576 1048576\n40100 /d/f close\n' >"$tmp/j.iolog"
printf '1 10:00:00.000000 close(3) = 0 <0.1>\n1 this is not strace\n' >"$tmp/bad.strace"
printf 'time,op\n1,write\n' >"$tmp/unknown.csv"

expect_bad_input "no trace" "replay_nope|No such file" -- replay "$tmp/replay_nope" -p samsung-960evo-250g
expect_bad_input "no device" "--profile P .* or --target DIR" -- replay "$tmp/j.iolog"
expect_bad_input "unknown profile" "no-such-drive" -- replay "$tmp/j.iolog" -p no-such-drive
expect_bad_input "bad line" "bad.strace:2:" -- replay "$tmp/bad.strace" -p samsung-960evo-250g
expect_bad_input "unknown format" "cannot tell the trace format.*--format" -- replay "$tmp/unknown.csv" -p samsung-960evo-250g
expect_bad_input "bad --format" "unknown trace format 'xml'" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --format xml
expect_bad_input "bad --buffer" "--buffer" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --buffer lots
expect_bad_input "zero time scale" "--time-scale must be greater than 0" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --time-scale 0
expect_bad_input "target not a dir" "is not a directory" -- replay "$tmp/j.iolog" --target "$tmp/j.iolog"
expect_bad_input "bad --tolerance" "--tolerance" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --tolerance soon
expect_bad_input "bad --capacity" "--capacity" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --capacity big
expect_bad_input "bad --prefill" "--prefill" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --prefill half
expect_bad_input "open loop and afap" "exclude each other" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --open-loop --as-fast-as-possible
expect_bad_input "bad --set" "unknown .*parameter" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --set device.nope=1

"$STREAMDISK" replay --help | grep -q "Examples:" || fail "--help has no examples"

out=$("$STREAMDISK" replay "$tmp/j.iolog" -p samsung-960evo-250g -p samsung-960evo-250g --set device.burst_bytes=0 --set device.sustained_mbps=40 --buffer 1MiB --json) \
  || fail "replay of a fio v3 iolog failed"
python3 - "$out" <<'PY' || fail "replay JSON is not what was expected"
import json, sys
j = json.loads(sys.argv[1])
assert j["format"] == "streamdisk-replay", j["format"]
assert j["trace"]["format"] == "fio-iolog-v3"
assert j["trace"]["bytes_written"] == 2 * 1048576
r = j["results"]
assert len(r) == 2
# 1 MiB at 40 MB/s takes 26 ms > the 20 ms between writes: a 1 MiB buffer overruns.
assert r[0]["kept_up"] is False, r[0]["kept_up"]
assert r[0]["behind_schedule"]["max_s"] > 0.005
assert len(r[0]["timeline"]["t_s"]) > 10
PY
human=$("$STREAMDISK" replay "$tmp/j.iolog" -p samsung-960evo-250g) || fail "human output failed"
printf '%s' "$human" | grep -q "Verdict: 1 of 1 would have kept up" || fail "no verdict line: $human"
expect_bad_input "trace-out with two devices" "--trace-out records one replay" -- replay "$tmp/j.iolog" -p samsung-960evo-250g -p usrp-2974 --trace-out "$tmp/x.csv"
expect_bad_input "trace-out unwritable" "--trace-out .*/no/dir/x.csv: directory .* does not exist" -- replay "$tmp/j.iolog" -p samsung-960evo-250g --trace-out "$tmp/no/dir/x.csv"

# A replay written as a native trace replays onto itself: same profile and seed,
# the same completion time for every op, byte for byte.
"$STREAMDISK" replay "$tmp/j.iolog" -p rpi4-buster-ultrafit-exfat --seed 3 --trace-out "$tmp/a.csv" >/dev/null || fail "trace-out failed"
"$STREAMDISK" replay "$tmp/a.csv" -p rpi4-buster-ultrafit-exfat --trace-out "$tmp/b.csv" >/dev/null || fail "replaying the replay failed"
grep -q "^# seed=3$" "$tmp/a.csv" || fail "trace-out does not record the seed"
diff <(grep -v '^#' "$tmp/a.csv") <(grep -v '^#' "$tmp/b.csv") >/dev/null || fail "replaying a replay's trace changed completion times"
[ "$(grep -c ',write,' "$tmp/a.csv")" -eq 2 ] || fail "trace-out does not hold the two writes"

# Replay honours a trace's --set lines (models/trace.h TraceModel): a trace
# simulated on a device slowed by --set replays on that device, the same as
# giving the --set again, and a --set on the command line replaces them.
# (As fast as possible, so the completion time is the device's, not the recording's.)
"$STREAMDISK" simulate -p samsung-960evo-250g --set device.sustained_mbps=2 --set device.burst_bytes=0 \
  -c 32 -r 48k -d 3s --trace "$tmp/set.csv" >/dev/null
grep -q '^# set1=device.sustained_mbps=2$' "$tmp/set.csv" || fail "simulate's trace does not record its --set"
done_at() { "$STREAMDISK" replay "$tmp/set.csv" -p samsung-960evo-250g --as-fast-as-possible --json "$@" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["completion_s"])'; }
from_trace=$(done_at) || fail "replay of a --set trace failed"
given=$(done_at --set device.sustained_mbps=2 --set device.burst_bytes=0) || fail "replay with --set failed"
faster=$(done_at --set device.sustained_mbps=500) || fail "replay with another --set failed"
[ "$from_trace" = "$given" ] || fail "replay ignored the trace's --set lines: $from_trace s, with them given $given s"
[ "$from_trace" != "$faster" ] || fail "a --set on the command line did not replace the trace's: $faster s"
sed 's/^# set1=.*/# set1=device.nope=1/' "$tmp/set.csv" >"$tmp/badset.csv"
expect_bad_input "bad --set line in a trace" "from the trace's # set lines" -- \
  replay "$tmp/badset.csv" -p samsung-960evo-250g
finish
