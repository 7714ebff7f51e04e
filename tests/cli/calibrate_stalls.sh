#!/usr/bin/env bash
# calibrate's stall fit end to end (docs/calibrate.md "Stalls"): synthetic
# traces of a device with time-triggered pauses of nearly fixed length (a
# flat-out sustained write and paced writes at 30/50/70 % of its rate, 2 %
# jitter) come back as time-triggered, with a goodness-of-fit note; the same
# device with byte-triggered pauses comes back per byte written.
. "$SD_SOURCE_DIR/tests/lib.sh"
SYNTH=sd_synth_traces  # tests/lib.sh
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
value() { awk -v k="device.$1" '$1 == k { print $2 }'; }
within() { awk -v g="$1" -v t="$2" -v tol="$3" 'BEGIN { d = g / t - 1; exit !(d < tol && d > -tol) }'; }

cat >"$dir/time.toml" <<'TOML'
format_version = 1
layer = "device"
name = "journal"
[params]
sustained_mbps = 40
op_overhead_us = 200
stall_period_ms = 2000
stall_duration_ms = 250
stall_duration_sigma = 0.05
TOML
"$SYNTH" "$dir/time.toml" "$dir" || fail "sd_synth_traces failed"
[ -f "$dir/paced-50.csv" ] || fail "sd_synth_traces wrote no paced traces for a device with stalls"
out=$("$STREAMDISK" calibrate "$dir/sweep.csv" "$dir/sustained.csv" "$dir"/paced-*.csv -o "$dir/fit.toml") \
  || fail "calibrate failed: $out"
period=$(printf '%s\n' "$out" | value stall_period_ms)
within "${period:-0}" 2000 0.1 || fail "stall_period_ms: calibrated '$period', truth 2000 (more than 10 % off)"
median=$(printf '%s\n' "$out" | value stall_duration_ms)
within "${median:-0}" 250 0.1 || fail "stall_duration_ms: calibrated '$median', truth 250 (more than 10 % off)"
[ "$(printf '%s\n' "$out" | value stall_interval_mb)" = 0 ] || fail "time-triggered pauses fitted with byte-triggered arrivals"
printf '%s\n' "$out" | grep -q "arrivals per unit of time" || fail "no note on how arrivals were decided"
printf '%s\n' "$out" | grep -q "goodness of fit: KS D" || fail "no goodness-of-fit note"
grep -q '^stall_period_ms = { value = ' "$dir/fit.toml" || fail "stall_period_ms not in the profile"
"$STREAMDISK" show "$dir/fit.toml" >/dev/null || fail "the fitted profile does not load"

rm -f "$dir"/*.csv
sed -e 's/stall_period_ms = 2000/stall_interval_mb = 40/' "$dir/time.toml" >"$dir/bytes.toml"
"$SYNTH" "$dir/bytes.toml" "$dir" || fail "sd_synth_traces failed"
out=$("$STREAMDISK" calibrate "$dir/sustained.csv" "$dir"/paced-*.csv --base "$dir/bytes.toml") \
  || fail "calibrate failed: $out"
interval=$(printf '%s\n' "$out" | value stall_interval_mb)
within "${interval:-0}" 40 0.25 || fail "stall_interval_mb: calibrated '$interval', truth 40"
printf '%s\n' "$out" | grep -q "arrivals per byte written" || fail "byte-triggered pauses not recognised"
finish
