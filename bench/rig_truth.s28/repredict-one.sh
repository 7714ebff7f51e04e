#!/bin/bash
cd /work/main
p=$1; b=$2; m=$3
r=$(basename $p .toml | sed 's/predict-//')
v=$(build/cli/streamdisk capacity -p "$p" --find sample-rate -c 1 -b 8 -f raw --buffer $b --block 256KiB -d 60s --set host.dirty_pacing=$m --json 2>/dev/null | jq '.results[0].best // null')
echo "$r $b pacing=$m $v"
