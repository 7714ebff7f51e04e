#!/bin/bash
# capacity on session 16's kept rig profiles with and without device.catchup_ms (the rigs' bucket: 250 ms)
# Usage from anywhere: bench/rig_truth.s24/catchup-repredict.sh > OUT (about 2 min)
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-build/cli/streamdisk}
for r in fuse fusecache ntfs btrfsgc stalls xfscache cliff hostcache; do
  for b in 1MiB 4MiB; do
    p=bench/rig_truth.s16/predict-$r.toml
    a=$($SD capacity -p $p --find sample-rate -c 1 -b 8 -f raw --buffer $b --block 256KiB -d 60s --json | jq '.results[0].best')
    c=$($SD capacity -p $p --set device.catchup_ms=250 --find sample-rate -c 1 -b 8 -f raw --buffer $b --block 256KiB -d 60s --json | jq '.results[0].best')
    echo "$r $b without $a with_250ms $c"
  done
done
