#!/bin/bash
# Session 22 (outputs in bench/rig_truth.s22/cliff-fillcap/): the cliff rig with FILL_CAP=1 (the cache's fill stops at its size, as a
# real SLC cache's does): characterize -> profile, then truth by bisection at both
# buffers. Usage from the repository root: SD=path/to/streamdisk bench/rig_truth.s22/cliff-fillcap.sh OUT
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-$PWD/build/cli/streamdisk}
out=${1:?give an output directory}
mkdir -p "$out" "$out/traces-cliff"
dir=/tmp/rig-predict-s22
trap 'tests/rig/rig.sh down "$dir" >/dev/null 2>&1' EXIT
RIG_WAIT_S=3600 tests/rig/rig.sh up cliff "$dir" FILL_CAP=1 >/dev/null || { echo "rig did not come up"; exit 1; }
t0=$(date +%s)
"$SD" characterize "$dir/mnt" -o "$out/predict-cliff.toml" --keep-traces "$out/traces-cliff" >"$out/predict-cliff.log" 2>&1
echo "characterize rc=$? in $(( $(date +%s) - t0 )) s" >>"$out/predict-cliff.log"
tests/rig/rig.sh down "$dir"
for b in 1MiB 4MiB; do
  tests/rig/truth.sh cliff $b --lo 6 --hi 14 --repeats 2 --start warm --duration 60s --block 256KiB --out "$out" --dir /tmp/rig-truth-s22 FILL_CAP=1 \
    >"$out/truth-cliff-$b.txt" 2>"$out/truth-cliff-$b.log"
done
echo finished >>"$out/predict-cliff.log"
