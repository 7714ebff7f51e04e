#!/usr/bin/env bash
# Where does the reference recorder's writer block on a rig? Builds rig NAME, records
# once with refrec, samples the kernel stack of every refrec thread in D state every
# ~20 ms, tears the rig down, prints refrec's summary and the most common stacks.
# Usage (as root): tests/rig/whereblocks.sh NAME RATE BUFFER [DURATION] [KEY=VALUE ...]
# Example: tests/rig/whereblocks.sh stalls 3MB/s 1MiB 60s
set -u
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 3 ] || { echo "usage: whereblocks.sh NAME RATE BUFFER [DURATION] [KEY=VALUE ...]" >&2; exit 2; }
name=$1 rate=$2 buf=$3 dur=${4:-60s}; shift 3; [ $# -gt 0 ] && shift
D=$(mktemp -d /tmp/rig-whereblocks.XXXXXX)
trap '"$here/rig.sh" down "$D/rig"; rm -rf "$D"' EXIT
"$here/rig.sh" up "$name" "$D/rig" "$@" >/dev/null || exit 1
"$here/refrec.sh" "$D/compile-check.raw" --rate 1 --duration 0.01s >/dev/null  # compile outside the timed run
chrt -f 20 "$here/refrec.sh" "$D/rig/mnt/rec.raw" --rate "$rate" --buffer "$buf" --block 256KiB \
  --duration "$dur" >"$D/refrec.json" &
rr=$!
pid=$rr  # chrt and refrec.sh exec: the recorder keeps this pid
while kill -0 "$rr" 2>/dev/null; do
  for t in /proc/"$pid"/task/*; do
    grep -q '^State:.*D' "$t/status" 2>/dev/null &&
      awk '{ sub(/\+.*/, "", $2); printf "%s ", $2 } END { print "" }' "$t/stack" 2>/dev/null >>"$D/stacks"
  done
  sleep 0.02
done
wait "$rr"
jq -c '{overruns, overrun_at_s, max_write_latency_s, max_write_latency_at_s}' "$D/refrec.json"
echo "samples in D state, by kernel stack (innermost first):"
sort "$D/stacks" 2>/dev/null | uniq -c | sort -rn | head -8
