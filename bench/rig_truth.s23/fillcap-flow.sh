#!/bin/bash
# Session 23: the whole flow (characterize -> capacity) with this build on capped rigs
# (FILL_CAP=1: the cache's fill stops at its size, as a real SLC cache's does) for the
# cache rigs session 22 did not redo, then their truths on the capped rigs (warm start,
# 2 repeats, bisection to 2.5 %), one rig at a time. Usage from the repository root:
#   bench/rig_truth.s23/fillcap-flow.sh OUT
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-$PWD/build/cli/streamdisk}
out=${1:?give an output directory}
mkdir -p "$out"
SD="$SD" MAIN="$SD" bench/rig_truth.s22/fillcap-predict.sh "$out" "fusecache ext2stick hostcache"
truth() {  # rig buffer lo hi
  tests/rig/truth.sh "$1" "$2" --lo "$3" --hi "$4" --repeats 2 --start warm --duration 60s --block 256KiB \
    --out "$out" --dir /tmp/rig-truth-s23 FILL_CAP=1 >"$out/truth-$1-$2.txt" 2>"$out/truth-$1-$2.log"
}
truth fusecache 1MiB 8 12
truth ext2stick 1MiB 4 9
truth fusecache 4MiB 8 12
truth ext2stick 4MiB 4 9
truth hostcache 1MiB 1 4
