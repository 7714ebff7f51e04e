#!/usr/bin/env bash
# streamdisk calibrate end to end: synthetic traces of a known profile (written
# by ModelDevice with 2 % jitter, see calibrate/synthetic.h) are calibrated back;
# the profile loads in `show`; bad inputs exit 2 with one line and no file.
. "$SD_SOURCE_DIR/tests/lib.sh"
SYNTH=sd_synth_traces  # tests/lib.sh
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat >"$dir/truth.toml" <<'TOML'
format_version = 1
layer = "device"
name = "truth"
[params]
sustained_mbps = 120
op_overhead_us = 300
burst_bytes = 200_000_000
burst_mbps = 400
recover_mbps = 100
capacity_bytes = 2_000_000_000
fill_knee = 0.8
fill_floor = 0.4
TOML
"$SYNTH" "$dir/truth.toml" "$dir" || fail "sd_synth_traces failed"
out=$("$STREAMDISK" calibrate "$dir/sweep.csv" "$dir/sustained.csv" "$dir/fill.csv" --name mine -o "$dir/mine.toml") \
  || fail "calibrate failed: $out"
# Every parameter of the truth profile comes back within 3 %.
while read -r key truth; do
  got=$(printf '%s\n' "$out" | awk -v k="device.$key" '$1 == k { print $2 }')
  [ -n "$got" ] || { fail "$key missing from the calibrate table"; continue; }
  awk -v g="$got" -v t="$truth" 'BEGIN { d = g / t - 1; exit !(d < 0.03 && d > -0.03) }' \
    || fail "$key: calibrated $got, truth $truth (more than 3 % off)"
done <<'LIST'
sustained_mbps 120
op_overhead_us 300
burst_bytes 200000000
burst_mbps 400
recover_mbps 100
capacity_bytes 2000000000
fill_knee 0.8
fill_floor 0.4
LIST
printf '%s\n' "$out" | grep -q "device.read_mbps *needs a threads x block-size read table" \
  || fail "unfitted read parameters are not listed with the sweep that would inform them"
"$STREAMDISK" show "$dir/mine.toml" >/dev/null || fail "the calibrated profile does not load in show"
"$STREAMDISK" show "$dir/mine.toml+ext4" >/dev/null || fail "the calibrated profile does not compose with ext4"
grep -q '^sustained_mbps = { value = ' "$dir/mine.toml" || fail "profile lacks sustained_mbps"
"$STREAMDISK" calibrate "$dir/sweep.csv" --json | grep -q '"format": "streamdisk-calibrate"' || fail "--json output"
"$STREAMDISK" calibrate --help | grep -q "Examples:" || fail "--help has no examples"

# Document 001's read table, with the write side from the drive's built-in profile.
"$STREAMDISK" calibrate --table "$SD_SOURCE_DIR/data/tables/doc001-read.csv" --base samsung-sata-ssd-laptop \
  -o "$dir/doc001.toml" | grep -q "2 KiB x 2 thread" || fail "doc001: the noisy 2 KB x 2 threads cell is not reported"
"$STREAMDISK" show "$dir/doc001.toml" >/dev/null || fail "doc001 profile does not load"

# Bad input: one line, exit 2, no output file (and no .part) left behind.
expect_bad_input "no inputs" "at least one input" -- calibrate -o "$dir/x.toml"
expect_bad_input "missing trace" "nope.csv" -- calibrate "$dir/nope.csv" -o "$dir/x.toml"
printf 'size,threads,rate\n1,1,1\n' >"$dir/bad.csv"
expect_bad_input "bad table header" "header" -- calibrate --table "$dir/bad.csv" -o "$dir/x.toml"
expect_bad_input "bad layer" "layer" -- calibrate "$dir/sweep.csv" --layer disk
expect_bad_input "output is a directory" "is a directory" -- calibrate "$dir/sweep.csv" -o "$dir"
expect_bad_input "reads only, no --base" "sustained_mbps.*--base" -- \
  calibrate --table "$SD_SOURCE_DIR/data/tables/doc001-read.csv" -o "$dir/x.toml"
expect_bad_input "unknown base" "unknown profile" -- calibrate "$dir/sweep.csv" --base no-such-drive -o "$dir/x.toml"
printf '0, 1000, 1, 4096, 0\n' >"$dir/w_slat.1.log"
expect_bad_input "slat log" "_lat or _clat" -- calibrate --fio-lat-log "$dir/w_slat.1.log"
printf '0, 1000, 1, 0, 0\n' >"$dir/avg_lat.1.log"
expect_bad_input "averaged fio log" "log_avg_msec" -- calibrate --fio-lat-log "$dir/avg_lat.1.log"
printf 'not json\n' >"$dir/out.json"
expect_bad_input "not fio JSON" "output-format=json" -- calibrate --fio-json "$dir/out.json"
printf '# streamdisk-trace 1\nstart_s,end_s,op\n' >"$dir/trunc.csv"
expect_bad_input "malformed trace" "trunc.csv" -- calibrate "$dir/trunc.csv"
# --device-activity (characterize's device-activity.log): bad files refused
# with the line that broke the rule, nothing written.
da() { printf '# streamdisk-device-activity 1\n# sample_period_s=0.002\nt_s,written_bytes,in_flight\n%b' "$1" >"$dir/da.log"; }
da '1.0,4096,1\n0.5,8192,1\n'
expect_bad_input "device activity: time back" "da.log:5: time or bytes written went back" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/x.toml"
da '1.0,-4096,1\n'
expect_bad_input "device activity: negative" "da.log:4: expected t_s,written_bytes,in_flight" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/x.toml"
da '1.0,4096,nan\n'
expect_bad_input "device activity: nan" "da.log:4: expected t_s" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/x.toml"
printf 't_s,written_bytes,in_flight\n1,2,3\n' >"$dir/da.log"
expect_bad_input "device activity: no magic line" "expected '# streamdisk-device-activity 1'" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/x.toml"
printf '# streamdisk-device-activity 1\nt_s,written_bytes,in_flight\n1,2,3\n' >"$dir/da.log"
expect_bad_input "device activity: no period" "no '# sample_period_s=' line" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/x.toml"
expect_bad_input "device activity: a directory" "is a directory" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir" -o "$dir/x.toml"
expect_bad_input "device activity: -o over it" "" -- \
  calibrate "$dir/sweep.csv" --device-activity "$dir/da.log" -o "$dir/da.log"
grep -q '^1,2,3$' "$dir/da.log" || fail "calibrate -o over its --device-activity input changed it"
[ ! -e "$dir/x.toml" ] && [ ! -e "$dir/x.toml.part" ] || fail "a failed calibrate left an output file"
finish
