#!/usr/bin/env bash
# Session 31: characterize one rig N times (fresh rig each time) and fit each run's
# kept traces with two builds of calibrate (OLD, NEW), each fit's stall keys set on
# characterize's own profile, capacity at 1 and 4 MiB (the README's recorder: 1 ×
# 8 bit raw, 256 KiB writes, 60 s). Run as root from the repository on an idle
# machine, ~5 min a run:
#   OLD=path/to/old/streamdisk NEW=build/cli/streamdisk bench/rig_truth.s31/repeat.sh OUT stalls 4
set -u
out=$1 rig=$2 n=$3
NEW=${NEW:-build/cli/streamdisk} OLD=${OLD:-}
for i in $(seq 1 "$n"); do
  d=$out/$rig-$i; rm -rf "$d" "$out/rig"; mkdir -p "$d/traces"
  tests/rig/rig.sh up "$rig" "$out/rig" >/dev/null 2>"$d/rig.err" || { echo "$rig $i: rig failed"; continue; }
  "$NEW" characterize "$out/rig/mnt" -o "$d/char.toml" --keep-traces "$d/traces" --json >"$d/char.json" 2>"$d/char.err"
  cp "$out/rig/events.log" "$d/" 2>/dev/null
  tests/rig/rig.sh down "$out/rig" >/dev/null 2>&1
  dev=(); [ -s "$d/traces/device-activity.log" ] && dev=(--device-activity "$d/traces/device-activity.log")
  for v in old new; do
    S=$NEW; [ $v = old ] && S=$OLD; [ -n "$S" ] || continue
    "$S" calibrate "$d"/traces/*.csv "${dev[@]}" -o "$d/$v.toml" >"$d/$v.txt" 2>&1
    STREAMDISK=$NEW bench/fit_capacity.sh "$d/char.toml" "$d/$v.toml" | while read -r b r; do echo "$rig $i $b $v $r"; done
  done
done
