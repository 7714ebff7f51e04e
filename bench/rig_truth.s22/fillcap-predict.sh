#!/bin/bash
# Session 22: characterize each cache rig with FILL_CAP=1 (its cache's fill stops at its
# size, as a real SLC cache's does), keep the traces, and predict at both buffers with
# each binary given. Usage from the repository root:
#   SD=exp/streamdisk MAIN=build/cli/streamdisk bench/rig_truth.s22/fillcap-predict.sh OUT "hostcache xfscache"
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-$PWD/build/cli/streamdisk} MAIN=${MAIN:-$SD}
out=${1:?give an output directory} rigs=${2:-"hostcache xfscache ext2stick fusecache"}
dir=/tmp/rig-predict-s22
trap 'tests/rig/rig.sh down "$dir" >/dev/null 2>&1' EXIT
for r in $rigs; do
  mkdir -p "$out/traces-$r"
  RIG_WAIT_S=3600 tests/rig/rig.sh up "$r" "$dir" FILL_CAP=1 >/dev/null || { echo "$r: rig did not come up"; continue; }
  t0=$(date +%s)
  "$SD" characterize "$dir/mnt" -o "$out/predict-$r.toml" --keep-traces "$out/traces-$r" >"$out/predict-$r.log" 2>&1
  echo "characterize rc=$? in $(( $(date +%s) - t0 )) s" >>"$out/predict-$r.log"
  tests/rig/rig.sh down "$dir"
  for b in 1MiB 4MiB; do
    for bin in "$SD" "$MAIN"; do
      v=$("$bin" capacity -p "$out/predict-$r.toml" --find sample-rate -c 1 -b 8 -f raw --buffer $b --block 256KiB -d 60s --json | jq '.results[0].best / 1e6')
      echo "$r $b $bin $v"
    done
  done | tee -a "$out/predictions.txt"
done
