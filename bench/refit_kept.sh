#!/usr/bin/env bash
# Every kept trace set that has characterize's own profile beside it, fitted again
# by one build's `calibrate` (with the device's own activity where it was kept), the
# fit's stall keys set on that profile, and `capacity` for the rig truth's recorder
# at 1 and 4 MiB (bench/fit_capacity.sh). A/B a change to the pause fit by running it
# with two builds (under a minute each, no rigs):
#   STREAMDISK=/path/to/other/build/cli/streamdisk bench/refit_kept.sh OUT
# Prints "SET BUFFER VALUE UNIT" per line; the fits and their reports go in OUT/SET.*.
# A set is NAME:DIR[,DIR...]:CHARACTERIZE_PROFILE[:JOURNAL_COMMIT_MS] (the last for ext4
# traces kept before their headers said so).
S=${STREAMDISK:-build/cli/streamdisk}
out=${1:?usage: bench/refit_kept.sh OUT}
mkdir -p "$out"
b=bench
sets="s25-btrfsgc:$b/rig_truth.s25/traces-btrfsgc:$b/rig_truth.s25/predict-btrfsgc.toml
s25-ntfs:$b/rig_truth.s25/traces-ntfs:$b/rig_truth.s25/predict-ntfs.toml
s25-stalls:$b/rig_truth.s25/traces-stalls:$b/rig_truth.s25/predict-stalls.toml
s26-btrfsgc:$b/rig_truth.s26/traces-btrfsgc:$b/rig_truth.s26/predict-btrfsgc.toml
s26-fuse:$b/rig_truth.s26/traces-fuse:$b/rig_truth.s26/predict-fuse.toml
s26-fuse-first:$b/rig_truth.s26/first-run/traces-fuse:$b/rig_truth.s26/first-run/predict-fuse.toml
s26-fusecache:$b/rig_truth.s26/traces-fusecache:$b/rig_truth.s26/predict-fusecache.toml
s26-xfscache:$b/rig_truth.s26/traces-xfscache:$b/rig_truth.s26/predict-xfscache.toml
s29-fuse400:$b/rig_truth.s29/traces-fuse400:$b/rig_truth.s29/fuse400.toml
s30-ntfs:$b/rig_truth.s30/ntfs/traces:$b/rig_truth.s30/ntfs/char.toml
s31-stalls-3:$b/rig_truth.s31/stalls-3/traces:$b/rig_truth.s31/stalls-3/char.toml
s31-stalls-3-journal:$b/rig_truth.s31/stalls-3/traces:$b/rig_truth.s31/stalls-3/char.toml:5000
s32-stalls-1:tests/rig/traces/stalls,$b/rig_truth.s32/stalls-1/traces:$b/rig_truth.s32/stalls-1/char.toml"
# Session 34: every rig characterized once (ntfs and fuse twice: after-fix/).
for r in ntfs stalls cliff hostcache fuse fusecache xfscache btrfsgc; do
  sets="$sets
s34-$r:$b/rig_truth.s34/traces-$r:$b/rig_truth.s34/predict-$r.toml"
done
for r in ntfs fuse; do
  sets="$sets
s34-$r-after:$b/rig_truth.s34/after-fix/traces-$r:$b/rig_truth.s34/after-fix/predict-$r.toml"
done
for line in $sets; do
  IFS=: read -r name dirs char journal <<<"$line"
  traces=() dev=()
  for d in ${dirs//,/ }; do  # a set may lie in more than one directory
    traces+=("$d"/*.csv)
    [ -f "$d/device-activity.log" ] && dev=(--device-activity "$d/device-activity.log")
  done
  # ext4 traces kept before their headers said so (the rig's mount: commit every 5 s)
  [ -n "$journal" ] && dev+=(--journal-commit-ms "$journal")
  "$S" calibrate "${traces[@]}" "${dev[@]}" -o "$out/$name.toml" >"$out/$name.txt" 2>&1 ||
    { echo "$name: calibrate failed (see $out/$name.txt)"; continue; }
  STREAMDISK=$S bench/fit_capacity.sh "$char" "$out/$name.toml" | while read -r buf r; do echo "$name $buf $r"; done
done
