#!/usr/bin/env bash
# One fit's stalls on characterize's own profile: the stall and catch-up keys of FIT
# (a calibrate profile; and its sustained rate where that gave the catch-up back) set on CHAR (characterize's profile, which also holds the host
# and filesystem it measured), then capacity's highest clean sample rate for the rig
# truth's recorder (1 channel x 8 bit raw, 256 KiB writes, 60 s) with each BUFFER.
# Prints "BUFFER VALUE UNIT" per buffer. Used by bench/rig_truth.s30/ab.sh and
# bench/rig_truth.s31/repeat.sh:
#   bench/fit_capacity.sh CHAR.toml FIT.toml [BUFFER ...]   (default 1MiB 4MiB)
S=${STREAMDISK:-build/cli/streamdisk}
char=$1 fit=$2; shift 2
[ $# -gt 0 ] || set -- 1MiB 4MiB
flags=$("$S" show "$fit" | grep -E "^  (device|filesystem)\.(stall|catchup)[a-z_0-9]* +[0-9]" |
  awk '{printf "--set %s=%s ", $1, $2}')
# The sustained rate too where the fit gave the pauses' catch-up back (calibrate's
# "less the catch-up": the timeline's own rate counted the made-up writes as speed).
sus=$(sed -nE 's/^sustained_mbps = \{ value = ([0-9.e+-]+),.*less the catch-up.*/\1/p' "$fit")
[ -n "$sus" ] && flags="$flags --set device.sustained_mbps=$sus"
for b in "$@"; do
  # shellcheck disable=SC2086
  r=$("$S" capacity -p "$char" $flags --find sample-rate -c 1 -b 8 -f raw --buffer "$b" --block 256KiB \
    -d 60s 2>&1 | sed -n 4p | awk '{print $2, $3}')
  echo "$b $r"
done
