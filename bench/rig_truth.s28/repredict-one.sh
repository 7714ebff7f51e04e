#!/bin/bash
# One kept profile's prediction with a given host.dirty_pacing (session 28):
#   bench/rig_truth.s28/repredict-one.sh PROFILE.toml BUFFER PACING
# e.g. bench/rig_truth.s28/repredict-one.sh bench/rig_truth.s25/predict-ntfs.toml 4MiB 2
# (pacing 2 needs bench/rig_truth.s28/linux-estimators-on-s26-model.patch applied).
cd "$(dirname "$0")/../.." || exit 2
p=$1; b=$2; m=$3
r=$(basename "$p" .toml | sed 's/predict-//')
v=$(build/cli/streamdisk capacity -p "$p" --find sample-rate -c 1 -b 8 -f raw --buffer "$b" --block 256KiB -d 60s \
    --set host.dirty_pacing="$m" --json 2>/dev/null | jq '.results[0].best // null')
echo "$r $b pacing=$m $v"
