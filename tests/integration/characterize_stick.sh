#!/usr/bin/env bash
# characterize on a 16 GB stick (a `streamdisk mount --discard` of the
# built-in sandisk-ultrafit-16g): it keeps to its budget (the plan, not a
# speed figure: 25 % and 15 s of slack for the calibration and a loaded
# machine), prints progress lines with an ETA, removes its files and finds
# the stick's sustained rate. The default 4 min budget on the same model runs
# in virtual time in tests/unit/characterize_test.cpp; CI runs a 90 s one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
start_mount -p sandisk-ultrafit-16g --discard --realtime
BUDGET=90
t0=$(date +%s.%N)
"$STREAMDISK" characterize "$MNT" -o "$WORK/stick.toml" --budget ${BUDGET}s --progress --json >"$WORK/out" 2>"$WORK/err" \
  || fail "characterize exit $?: $(tr '\r' '\n' <"$WORK/err" | tail -2)"
t1=$(date +%s.%N)
stop_mount
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
echo "characterize with a ${BUDGET} s budget took $took s"
awk -v t="$took" -v b="$BUDGET" 'BEGIN { exit !(t <= 1.25 * b + 15) }' || fail "took $took s for a $BUDGET s budget"
# Progress: lines naming the phase, bytes written and an ETA, several phases.
prog=$(tr '\r' '\n' <"$WORK/err" | grep -c 'characterize: .*written.*ETA')
[ "$prog" -ge 5 ] || fail "only $prog progress lines: $(tr '\r' '\n' <"$WORK/err" | head -5)"
for ph in cache blocksize paced; do
  tr '\r' '\n' <"$WORK/err" | grep -q "characterize: $ph" || fail "no progress line for the $ph phase"
done
jq -e '.seconds > 0' "$WORK/out" >/dev/null || fail "no JSON result"
sus=$(jq -r '[.params[] | select(.key == "device.sustained_mbps") | .value][0] // 0' "$WORK/out")
# The stick writes 15.55 MB/s past its 1 ms per request; 1 MiB writes through FUSE see a little less.
awk -v s="$sus" 'BEGIN { exit !(s > 15.55 * 0.8 && s < 15.55 * 1.15) }' || fail "sustained $sus MB/s, the stick's is 15.55"
[ -s "$WORK/stick.toml" ] || fail "no profile written"
# Real storage: the other processes' share of the CPUs during the run is measured
# (the FUSE stand-in's own work counts there), and the fitted rate carries its
# 95 % interval into the profile and the headline's spread.
jq -e '.cpu_busy_others >= 0 and .cpu_busy_others <= 1' "$WORK/out" >/dev/null \
  || fail "cpu_busy_others missing or outside 0..1: $(jq -c .cpu_busy_others "$WORK/out")"
grep -q '^sustained_mbps = { value = [0-9.e+]*, range = \[' "$WORK/stick.toml" || fail "sustained_mbps carries no range"
jq -e '.headline.spread.low <= .headline.sample_rate and .headline.sample_rate <= .headline.spread.high' "$WORK/out" \
  >/dev/null || fail "the headline's spread does not hold it: $(jq -c '.headline.spread | {low, most_likely, high}' "$WORK/out")"
finish
