#!/usr/bin/env bash
# The closed loop on the model: `measure --profile P` runs the measurement
# sweeps (sim/sweeps) against ModelDevice in virtual time and writes native
# traces; `calibrate` on those traces must give back P's sustained rate, burst
# size and rate, and per-op overhead within 5 % (issue 6). The same loop on a
# FUSE mount of P needs `mount` (fuse branch): see the report.
. "$SD_SOURCE_DIR/tests/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat >"$dir/p.toml" <<'TOML'
format_version = 1
layer = "device"
name = "loop"
[params]
sustained_mbps = 45
op_overhead_us = 900
burst_bytes = 300_000_000
burst_mbps = 160
TOML
"$STREAMDISK" measure --profile "$dir/p.toml" --sweep blocksize --direct --trace "$dir/sweep.csv" >/dev/null \
  || fail "measure blocksize on the model failed"
"$STREAMDISK" measure --profile "$dir/p.toml" --sweep sustained --direct --seconds 20 --trace "$dir/sustained.csv" \
  >/dev/null || fail "measure sustained on the model failed"
out=$("$STREAMDISK" calibrate "$dir/sweep.csv" "$dir/sustained.csv" -o "$dir/back.toml") || fail "calibrate failed: $out"
while read -r key truth; do
  got=$(printf '%s\n' "$out" | awk -v k="device.$key" '$1 == k { print $2 }')
  [ -n "$got" ] || { fail "$key was not fitted from measure's traces"; continue; }
  awk -v g="$got" -v t="$truth" 'BEGIN { d = g / t - 1; exit !(d < 0.05 && d > -0.05) }' \
    || fail "$key: calibrated $got from measure's traces, profile says $truth (more than 5 % off)"
done <<'LIST'
sustained_mbps 45
op_overhead_us 900
burst_bytes 300000000
burst_mbps 160
LIST
"$STREAMDISK" show "$dir/back.toml" >/dev/null || fail "the calibrated profile does not load"
finish
