#!/usr/bin/env bash
# `measure` through `mount` of a known profile recovers the profile's rates
# (+-20 %: a loaded 2-core CI machine adds FUSE round-trip time to every
# request): the blocksize sweep's O_DIRECT write rates against what
# `show --json` predicts, and the sustained sweep's burst rate, post-cache
# rate and write cliff (to one 0.25 s window) against the burst cache the profile sets.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
near() {  # near MEASURED EXPECTED: |measured/expected - 1| <= 20 %
  jq -en --argjson m "$1" --argjson e "$2" '($m / $e - 1) | fabs <= 0.20' >/dev/null
}
within() {  # within WHAT MEASURED EXPECTED
  near "$2" "$3" || fail "$1: measured $2, the profile says $3 (more than 20 % off)"
  echo "$1: measured $2, profile $3"
}

PROFILE=(-p samsung-960evo-250g "${SLOW_SETS[@]}")
"$STREAMDISK" show "${PROFILE[@]}" --json >"$WORK/show.json" || fail "show --json"
start_mount "${PROFILE[@]}" --discard --realtime
# A burst of load beside the test (CI's other builds) slows every FUSE round trip of
# one sweep: a sweep with a rate off by more than 20 % is measured once more, and the
# bound holds for that second sweep as for the first (CI once saw 64 KiB at 0.79 and
# 256 KiB at 0.81 of the profile in one sweep, the other checks of the run passing).
for attempt in 1 2; do
  out=$("${RT[@]}" "$STREAMDISK" measure "$MNT" --sweep blocksize --direct --blocks 64k,256k,1M --seconds 1 \
    --size 64MiB --json) || fail "measure through the mount: exit $?"
  rows=() all_near=1
  for i in 0 1 2; do
    bs=$(jq ".rows[$i][0]" <<<"$out"); got=$(jq ".rows[$i][1]" <<<"$out")
    want=$(jq --argjson b "$bs" '.write_rates[] | select(.block_bytes == $b) | .sustained_direct_mbps' "$WORK/show.json")
    rows+=("$bs $got $want")
    near "$got" "$want" || all_near=0
  done
  [ "$all_near" -eq 1 ] && break
  [ "$attempt" -eq 1 ] && echo "blocksize sweep off by more than 20 % (${rows[*]}): measuring once more"
done
for r in "${rows[@]}"; do
  read -r bs got want <<<"$r"
  within "blocksize $bs B write MB/s" "$got" "$want"
done
[ -z "$(ls -A "$MNT")" ] || fail "measure left files in the mount: $(ls -A "$MNT")"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC"

# A 24 MB burst cache at 40 MB/s in front of 10 MB/s, no recovery: the cliff
# comes after 24 MB / 40 MB/s = 0.6 s at 1 MiB writes (plus per-request cost).
BURST=(-p samsung-960evo-250g --set device.burst_bytes=24MB --set device.burst_mbps=40 --set device.sustained_mbps=10
       --set device.recover_mbps=0 --set device.op_overhead_us=2000)
start_mount "${BURST[@]}" --discard --realtime
out=$("${RT[@]}" "$STREAMDISK" measure "$MNT" --sweep sustained --direct --seconds 4 --size 200MiB --window 0.25 --json) \
  || fail "sustained through the mount: exit $?"
stop_mount
# The same sweep on the model in virtual time gives the profile's answer.
model=$("$STREAMDISK" measure "${BURST[@]}" --sweep sustained --direct --seconds 4 --size 200MiB --window 0.25 --json) \
  || fail "sustained on the model: exit $?"
jq -e '.summary.cliff_seconds > 0' <<<"$model" >/dev/null || fail "the model shows no cliff: $model"
for k in initial_mbps final_mbps; do
  within "sustained $k" "$(jq ".summary.$k" <<<"$out")" "$(jq ".summary.$k" <<<"$model")"
done
# The cliff is found to one 0.25 s window: a window off (a loaded machine delays one
# request across a boundary; CI once saw 0.457 s / 16 MiB against 0.658 s / 23 MiB)
# is the measurement's resolution, not an error. More than a window is.
within_window() {  # WHAT MEASURED EXPECTED RESOLUTION
  jq -en --argjson m "$2" --argjson e "$3" --argjson r "$4" '($m - $e) | fabs <= $r' >/dev/null \
    || fail "$1: measured $2, the profile says $3 (more than one 0.25 s window, $4, off)"
  echo "$1: measured $2, profile $3 (within $4)"
}
within_window "sustained cliff_seconds" "$(jq .summary.cliff_seconds <<<"$out")" "$(jq .summary.cliff_seconds <<<"$model")" 0.25
within_window "sustained cliff_bytes" "$(jq .summary.cliff_bytes <<<"$out")" "$(jq .summary.cliff_bytes <<<"$model")" \
  "$(jq '.summary.initial_mbps * 1e6 * 0.25 | floor' <<<"$model")"
finish
