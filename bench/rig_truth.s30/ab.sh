#!/usr/bin/env bash
# Session 30's A/B (bench/rig_truth.md "The device's own stops give the pauses'
# lengths"): one characterize run per rig, then the same traces fitted with the
# writes alone and with the device's own stops, each fit's stall keys set on
# characterize's own profile, and capacity at 1 and 4 MiB. Run as root from the
# repository, one rig at a time on an idle machine (~6 min a rig):
#   bench/rig_truth.s30/ab.sh OUT ntfs fuse stalls btrfsgc xfscache cliff
S=${STREAMDISK:-build/cli/streamdisk}
out=$1; shift
for rig in "$@"; do
  d=$out/$rig; rm -rf "$d" "$out/rig-$rig"; mkdir -p "$d/traces"
  tests/rig/rig.sh up "$rig" "$out/rig-$rig" >/dev/null 2>"$d/rig.err" || { echo "$rig: rig failed"; continue; }
  "$S" characterize "$out/rig-$rig/mnt" -o "$d/char.toml" --keep-traces "$d/traces" --json >"$d/char.json" 2>"$d/char.err"
  cp "$out/rig-$rig/events.log" "$d/"
  tests/rig/rig.sh down "$out/rig-$rig" >/dev/null 2>&1
  "$S" calibrate "$d"/traces/*.csv -o "$d/nodev.toml" >"$d/nodev.txt" 2>&1
  "$S" calibrate "$d"/traces/*.csv --device-activity "$d/traces/device-activity.log" -o "$d/dev.toml" >"$d/dev.txt" 2>&1
  for v in nodev dev; do
    STREAMDISK=$S bench/fit_capacity.sh "$d/char.toml" "$d/$v.toml" | while read -r b r; do echo "$rig $b $v $r"; done
  done
done
