#!/usr/bin/env bash
# streamdisk capacity: searches, profile globs, JSON, bad input.
. "$(dirname "$0")/../lib.sh"

# Channels: the answer passes a simulate run and the next count fails on some seed.
j=$("$STREAMDISK" capacity -p rpi4-bullseye-extremego-exfat -r 48k -b 16 -f w64 -d 30min --seeds 2 --json) || fail "capacity exit"
best=$(printf '%s' "$j" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["results"][0]["best"]))')
[ "$best" -ge 18 ] || fail "Extreme Go on kernel exFAT should record 18 channels (document 003), got $best"
for seed in 1 2; do
  "$STREAMDISK" simulate -p rpi4-bullseye-extremego-exfat -c "$best" -r 48k -b 16 -f w64 -d 30min --seed $seed | tail -1 |
    grep -q '^OK' || fail "simulate at the capacity ($best ch, seed $seed) is not OK"
done

# A glob gives one row per matching profile, side by side.
out=$("$STREAMDISK" capacity -p 'rpi4-*+exfat-*+sandisk-ultrafit-16g' -r 48k -b 16 -f w64 -d 10min --seeds 2 --probe 18,48) ||
  fail "glob exit"
[ "$(printf '%s\n' "$out" | grep -c '^rpi4-')" -eq 4 ] || fail "expected 4 rows from the glob: $out"
printf '%s\n' "$out" | grep -q '18:' || fail "probe column missing: $out"

# Buffer search at a target channel count.
"$STREAMDISK" capacity -p usrp-2974 --find buffer -c 2 -r 90M -b 16 -d 2min | grep -Eq 'usrp-2974 +[0-9.]+ [GM]i?B' ||
  fail "buffer search output"

# Sample-rate search: document 002's USRP-2974, I/Q as two 16-bit channels.
r=$("$STREAMDISK" capacity -p usrp-2974 --find sample-rate -c 2 -b 16 --buffer 256MiB -d 5min --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["best"])') || fail "sample-rate search"
python3 -c "import sys; r=float('$r'); sys.exit(0 if 55e6 <= r <= 80e6 else 1)" ||
  fail "USRP-2974 ceiling $r Hz is not near document 002's ~60 MHz (300 MB/s = 75 MHz)"

expect_bad_input "bad --find" "--find 'speed': use channels, sample-rate or buffer" -- capacity -p usrp-2974 --find speed
expect_bad_input "glob matches nothing" "no built-in profile matches 'nvme-\\*'" -- capacity -p 'nvme-*'
expect_bad_input "unknown profile" "unknown profile" -- capacity -p no-such-stick
expect_bad_input "zero probe" "--probe channel counts must be 1 or more" -- capacity -p usrp-2974 --probe 0
expect_bad_input "bad buffer" "--buffer" -- capacity -p usrp-2974 --buffer lots
"$STREAMDISK" capacity --help | grep -q "Examples:" || fail "--help has no examples"
finish
