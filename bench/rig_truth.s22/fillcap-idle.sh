#!/bin/bash
# Session 22, after recover_idle_ms: characterize cliff and xfscache again on capped rigs
# (FILL_CAP=1) with this build, predict at both buffers, then xfscache's 4 MiB truth on
# the capped rig. Usage from the repository root: bench/rig_truth.s22/fillcap-idle.sh OUT
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-$PWD/build/cli/streamdisk}
out=${1:?give an output directory}
mkdir -p "$out"
SD="$SD" MAIN="$SD" bench/rig_truth.s22/fillcap-predict.sh "$out" "cliff xfscache"
tests/rig/truth.sh xfscache 4MiB --lo 7 --hi 12 --repeats 2 --start warm --duration 60s --block 256KiB --out "$out" \
  --dir /tmp/rig-truth-s22 FILL_CAP=1 >"$out/truth-xfscache-4MiB.txt" 2>"$out/truth-xfscache-4MiB.log"
