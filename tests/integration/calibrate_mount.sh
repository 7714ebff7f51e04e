#!/usr/bin/env bash
# Calibrate from measurements taken through a FUSE mount of a known profile:
# (1) fio alone: O_DIRECT writes at three block sizes with write_lat_log;
#     calibrate fits per-op overhead and bandwidth from fio's logs;
# (2) the closed loop: `measure` (block-size and sustained sweeps) on the
#     mount, then calibrate: the sustained rate, burst size and rate and the
#     per-op overhead come back within 5 % (issue 6).
# Wall-clock measurements on a shared machine: the FUSE round trip adds to
# every request (up to ~0.1-0.3 ms under load, partly credited back by the
# mount), which is why the profile's requests take 5 ms and more.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
command -v fio >/dev/null || { echo "fio is not installed (run.sh installs it)"; exit 1; }

within() {  # within WHAT GOT TRUTH TOL
  [ -n "$2" ] || { fail "$1 was not fitted"; return; }
  awk -v g="$2" -v t="$3" -v e="$4" 'BEGIN { d = g / t - 1; exit !(d <= e && d >= -e) }' \
    || fail "$1: calibrated $2, the mounted profile says $3 (tolerance $4)"
  echo "$1: calibrated $2, profile $3"
}
col() { printf '%s\n' "$1" | awk -v k="device.$2" '$1 == k { print $2 }'; }

cat >"$WORK/p.toml" <<'TOML'
format_version = 1
layer = "device"
name = "mounted"
[params]
sustained_mbps = 20
op_overhead_us = 5000
burst_bytes = 40_000_000
burst_mbps = 60
TOML
start_mount -p "$WORK/p.toml" --backing "$BACK" --realtime

# (1) fio's logs alone (the burst cache is used up first by a 64 MB write).
"${RT[@]}" fio --name=fill --filename="$MNT/pre" --rw=write --bs=1m --size=64m --ioengine=psync --direct=1 \
  >/dev/null 2>&1 || fail "fio preconditioning write failed"
logs=()
for bs in 64k 256k 1m; do
  "${RT[@]}" fio --name=b$bs --filename="$MNT/b$bs" --rw=write --bs=$bs --size=64m --runtime=2 --time_based \
    --ioengine=psync --direct=1 --write_lat_log="$WORK/b$bs" --log_offset=1 >/dev/null 2>&1 \
    || fail "fio bs=$bs failed"
  logs+=(--fio-lat-log "$(ls "$WORK"/b${bs}_lat.*.log | head -1)")
done
out=$("$STREAMDISK" calibrate "${logs[@]}") || fail "calibrate from fio logs on the mount failed: $out"
within "fio: sustained_mbps" "$(col "$out" sustained_mbps)" 20 0.05
within "fio: op_overhead_us" "$(col "$out" op_overhead_us)" 5000 0.05

# (2) measure on the mount, then calibrate. Blocks up to 1 MiB: FUSE splits
# larger writes into 1 MiB requests, each paying the per-request cost.
"${RT[@]}" "$STREAMDISK" measure "$MNT" --sweep blocksize --direct --blocks 64k,128k,256k,512k,1M --seconds 1 \
  --trace "$WORK/sweep.csv" >/dev/null 2>"$WORK/m1.err" || fail "measure blocksize failed: $(cat "$WORK/m1.err")"
stop_mount
start_mount -p "$WORK/p.toml" --backing "$BACK" --realtime   # a fresh (empty) burst cache
"${RT[@]}" "$STREAMDISK" measure "$MNT" --sweep sustained --direct --seconds 6 --trace "$WORK/sustained.csv" \
  >/dev/null 2>"$WORK/m2.err" || fail "measure sustained failed: $(cat "$WORK/m2.err")"
stop_mount
out=$("$STREAMDISK" calibrate "$WORK/sweep.csv" "$WORK/sustained.csv" -o "$WORK/back.toml") \
  || fail "calibrate from measure's traces failed: $out"
within "loop: sustained_mbps" "$(col "$out" sustained_mbps)" 20 0.05
within "loop: burst_bytes" "$(col "$out" burst_bytes)" 40000000 0.05
within "loop: burst_mbps" "$(col "$out" burst_mbps)" 60 0.05
within "loop: op_overhead_us" "$(col "$out" op_overhead_us)" 5000 0.05
"$STREAMDISK" show "$WORK/back.toml" >/dev/null || fail "the calibrated profile does not load"
finish
