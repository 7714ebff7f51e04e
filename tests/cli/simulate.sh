#!/usr/bin/env bash
# streamdisk simulate: output, JSON, traces (deterministic, written atomically), bad input.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P=rpi4-buster-ultrafit-exfat

out=$("$STREAMDISK" simulate -p $P -c 48 -r 48k -b 16 -f w64 --buffer 1MiB -d 10min) || fail "simulate exit $?"
printf '%s\n' "$out" | tail -1 | grep -Eq '^(OK|OVERRUNS|FAILS): ' || fail "no one-line verdict: $out"
printf '%s\n' "$out" | grep -q 'rec.w64' || fail "file list missing: $out"

# JSON parses and agrees with itself: written + lost + not written = total.
"$STREAMDISK" simulate -p $P -c 18 -r 48k -b 16 -f w64 -d 20min --json > "$tmp/s.json" || fail "json exit"
python3 - "$tmp/s.json" <<'PY' || fail "JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "streamdisk-simulate" and j["format_version"] == 1
assert j["frames_written"] + j["samples_lost"] // j["channels"] + j["frames_not_written"] == j["frames_total"], j
assert (j["overrun_events"] == 0) == (j["first_overrun_s"] is None)
assert j["verdict"].split(":")[0] in ("OK", "OVERRUNS", "FAILS")
PY

# Same seed -> byte-identical trace; the trace is a valid native trace.
"$STREAMDISK" simulate -p $P -c 48 -f w64 -d 5min --seed 3 --trace "$tmp/a.csv" >/dev/null || fail "trace a"
"$STREAMDISK" simulate -p $P -c 48 -f w64 -d 5min --seed 3 --trace "$tmp/b.csv" >/dev/null || fail "trace b"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "same seed gave different traces"
head -1 "$tmp/a.csv" | grep -qx '# streamdisk-trace 2' || fail "trace magic line"
grep -q '^start_s,end_s,op,file,offset,bytes' "$tmp/a.csv" || fail "trace header"
grep -q ',write,rec.w64,0,' "$tmp/a.csv" || fail "no header write at offset 0 in trace"
[ ! -e "$tmp/a.csv.part" ] || fail "left a .part file"

# FAT32 stops a big single file; the verdict says so.
out=$("$STREAMDISK" simulate -p fat32+samsung-960evo-250g -c 48 -r 48k -b 24 -d 20min) || fail "fat32 exit"
printf '%s\n' "$out" | tail -1 | grep -q 'FAILS: .*EFBIG' || fail "FAT32 limit not reported: $out"

# --split keeps a FAT32 recording going in several complete files.
out=$("$STREAMDISK" simulate -p fat32+samsung-960evo-250g -c 48 -r 48k -b 24 -d 20min -f w64 --split 4000MB) || fail "split exit"
printf '%s\n' "$out" | tail -1 | grep -q '^OK' || fail "split recording not OK: $out"
[ "$(printf '%s\n' "$out" | grep -c 'rec_00[0-9].w64')" -eq 3 ] || fail "expected 3 parts: $out"

expect_bad_input "split too small" "--split must be at least 128 KiB" -- simulate -p $P --split 4k
expect_bad_input "unknown format" "unknown format 'mp3'" -- simulate -p $P -f mp3
expect_bad_input "bad buffer" "--buffer: .*unknown size unit" -- simulate -p $P --buffer 1MiBs
expect_bad_input "buffer smaller than a frame" "--buffer .* smaller than one frame" -- simulate -p $P -c 48 -b 24 --buffer 100
expect_bad_input "block larger than buffer" "--block is larger than --buffer" -- simulate -p $P --buffer 64k --block 1MiB
expect_bad_input "bad sample bits" "--sample-bits 12 is not supported" -- simulate -p $P -b 12
expect_bad_input "zero channels" "--channels 0 must be a whole number of at least 1" -- simulate -p $P -c 0
expect_bad_input "bad duration" "--duration: .*unknown time unit" -- simulate -p $P -d 5parsecs
expect_bad_input "zero duration" "--duration must be positive" -- simulate -p $P -d 0
expect_bad_input "bad rate" "--sample-rate: .*not a number" -- simulate -p $P -r fast
expect_bad_input "float 16-bit" "float samples are 32 or 64 bits" -- simulate -p $P --float -b 16
expect_bad_input "wav too many channels" "wav holds at most 65535 channels" -- simulate -p samsung-960evo-250g -f wav -c 70000 -b 8 -r 1k --buffer 1GiB
expect_bad_input "unknown profile" "unknown profile" -- simulate -p no-such-stick
expect_bad_input "fill without capacity" "--fill needs a device capacity" -- simulate -p $P --fill 50% --set device.capacity_bytes=0
expect_bad_input "trace dir missing" "--trace $tmp/nodir/t.csv: directory $tmp/nodir does not exist" -- simulate -p $P --trace "$tmp/nodir/t.csv"
[ -z "$(ls "$tmp/nodir" 2>/dev/null)" ] || fail "half-written trace left behind"
"$STREAMDISK" simulate --help | grep -q "Examples:" || fail "--help has no examples"
finish
