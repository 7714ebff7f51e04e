#!/bin/bash
# Session 20: capacity again on the kept rig profiles (s16: eight rigs, s18: ext2stick,
# s19: slowreq) with extra --set values, against the criterion truths in
# truth-criterion.txt (rig buffer truth interval prediction-then).
# Usage, from the repository root: bench/rig_truth.s20/repredict-with-sets.sh "device.x=1 host.y=2"
# SD=path/to/streamdisk overrides the binary. Prints: rig buffer pred truth err OK/--
cd "$(dirname "$0")/../.." || exit 2
SD=${SD:-$PWD/build/cli/streamdisk}
sets=()
for s in $1; do sets+=(--set "$s"); done
B=$PWD/bench
while read -r rig buf truth ival old; do
  case $rig in ext2stick) prof=$B/rig_truth.s18/predict-$rig.toml;; slowreq) prof=$B/rig_truth.s19/predict-$rig.toml;; *) prof=$B/rig_truth.s16/predict-$rig.toml;; esac
  (
  best=$($SD capacity -p $prof --find sample-rate -c 1 -b 8 -f raw --buffer $buf --block 256KiB -d 60s --json "${sets[@]}" 2>/dev/null | jq '.results[0].best // null')
  python3 -c "
b=$best; t=$truth
print(f'$rig $buf pred {b/1e6 if b else float(\"nan\"):.2f} truth {t:.2f} err {((b/1e6)/t-1)*100 if b else float(\"nan\"):+.0f}% {\"OK\" if b and abs(b/1e6/t-1)<=0.1 else \"--\"}')
"
  ) &
  [ $(jobs -r | wc -l) -ge 2 ] && wait -n
done < bench/rig_truth.s20/truth-criterion.txt
wait
