#!/usr/bin/env bash
# simulate --fault / --faults (docs/faults.md): the recording stops where the
# fault says, the report and JSON say what fired and when, a delay shows in
# the slowest block, a fault file means the same as the command line, and
# bad specs are one line with exit 2.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P=samsung-960evo-250g
REC=(-c 2 -r 48k -b 16 -f wav -d 120s)  # 192 kB/s

# EIO at byte 10 MB of the WAV: the recording stops there, about 52 s in.
out=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'eio:write@10MB' --json) || fail "simulate exit $?"
python3 - <<PY || fail "EIO at 10 MB: $out"
import json
j = json.loads('''$out''')
assert "EIO" in j["stopped_reason"], j["stopped_reason"]
assert j["files"][0]["bytes"] == 10_000_000, j["files"]
assert 10e6 / 192e3 < j["stopped_s"] < 10e6 / 192e3 + 2.8, j["stopped_s"]  # up to one block (2.7 s) late
ev = j["faults"]
assert ev[0]["fault"] == "eio:write@10MB" and "cut to" in ev[0]["event"], ev
assert "EIO on write" in ev[1]["event"] and abs(ev[1]["time_s"] - j["stopped_s"]) < 1.0, ev
PY
text=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'eio:write@10MB')
grep -q "fault .*EIO on write to rec.wav at byte 10000000" <<<"$text" || fail "text report lacks the event: $text"

# A file pattern that matches nothing: the recording is whole, the fault never fired.
text=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'eio,file=*.tdms') || fail "exit $?"
grep -q "never fired" <<<"$text" || fail "unfired fault not reported: $text"
grep -q "^OK" <<<"$(tail -1 <<<"$text")" || fail "recording with an unmatched fault is not OK: $text"

# A latency spike at 60 s, with a 1 MiB ring drained in 512 KiB blocks: while
# one block's write hangs, the other half of the ring (2.73 s of data) fills.
# A 2 s spike is the slowest block and loses nothing; a 10 s one overruns
# 2.73 s after the spike began.
j=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'delay=2s@60s' --json) || fail "delay exit"
python3 -c "import json,sys; j=json.loads(sys.argv[1]); assert 2 <= j['longest_block_write_s'] < 2.1, j; \
assert j['overrun_events'] == 0, j" "$j" || fail "delay=2s: $j"
j=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'delay=10s@60s' --json) || fail "delay exit"
python3 -c "import json,sys; j=json.loads(sys.argv[1]); t=j['faults'][0]['time_s']; \
assert j['overrun_events'] == 1 and abs(j['first_overrun_s'] - (t + 524288 / 192000)) < 0.1, j" "$j" ||
  fail "delay=10s: $j"

# The same fault from a TOML file gives the same JSON.
printf '[[fault]]\nfault = "eio"\nops = "write"\nat = "10MB"\n' >"$tmp/f.toml"
a=$("$STREAMDISK" simulate -p $P "${REC[@]}" --faults "$tmp/f.toml" --json | jq -c 'del(.faults)')
b=$("$STREAMDISK" simulate -p $P "${REC[@]}" --fault 'eio:write@10MB' --json | jq -c 'del(.faults)')
[ -n "$a" ] && [ "$a" = "$b" ] || fail "fault file and --fault differ"

# Gone at 30 s: the recording stops there with EIO, the trace row says so.
"$STREAMDISK" simulate -p $P "${REC[@]}" --fault gone@30s --trace "$tmp/t.csv" >/dev/null || fail "gone exit"
awk -F, '$10 == "EIO"' "$tmp/t.csv" | head -1 | awk -F, '{ exit !($1 >= 30 && $1 < 31) }' ||
  fail "trace has no EIO row at 30 s"

# record: the same fault between the recorder and real storage; the file
# stops at the byte, the JSON says what fired, the exit status is 1.
out=$("$STREAMDISK" record "$tmp" -c 16 -r 48k -b 16 -f raw -d 3s --name rf --fault 'eio:write@1MB' --json)
rc=$?
[ "$rc" -eq 1 ] || fail "record with an EIO fault: exit $rc"
[ "$(stat -c %s "$tmp/rf.raw")" -eq 1000000 ] || fail "record: rf.raw holds $(stat -c %s "$tmp/rf.raw") bytes, not 1000000"
jq -e '.faults[0].fault == "eio:write@1MB"' <<<"$out" >/dev/null || fail "record JSON lacks the fault events: $out"

for cmd in simulate mount record fault; do
  "$STREAMDISK" $cmd --help | grep -qi -- "--fault\|spec" || fail "$cmd --help does not mention faults"
done
"$STREAMDISK" fault --help | grep -q "Examples:" || fail "fault --help has no examples"

# Bad input: one line, exit 2, nothing written.
expect_bad_input "unknown fault" "unknown fault 'eoops'" -- simulate -p $P --fault eoops
expect_bad_input "trigger without unit" "needs a unit" -- simulate -p $P --fault eio@100
expect_bad_input "bad option" "not an option" -- simulate -p $P --fault eio,when=2
expect_bad_input "record powerloss" "streamdisk cannot cut" -- record "$tmp" --fault powerloss@90s
expect_bad_input "missing fault file" "fault file" -- simulate -p $P --faults "$tmp/none.toml"
printf '[[fault]]\nfault = "eio"\nwhen = "1s"\n' >"$tmp/bad.toml"
expect_bad_input "bad fault file" "bad.toml: fault 1: unknown key 'when'" -- simulate -p $P --faults "$tmp/bad.toml"
expect_bad_input "record bad spec" "unknown fault" -- record "$tmp" --fault nope
expect_bad_input "bad spec with --trace" "unknown fault" -- simulate -p $P --fault nope --trace "$tmp/no.csv"
[ -e "$tmp/no.csv" ] && fail "a bad fault spec left a trace behind"
finish
