#!/usr/bin/env bash
# Truth by bisection: the highest data rate the reference recorder (refrec.c) records
# without overrun on a rig, for one buffer size. Every run gets a fresh rig (rig.sh up
# ... down: a new empty RAM disk, mkfs, an empty write cache), because caches and fill
# state carry over between runs.
#
# A rate is UNSAFE as soon as one run overruns; SAFE after --repeats clean runs. The
# bracket [lo, hi] narrows (geometric bisection) until hi/lo <= 1 + --tol. What that
# says about P(>=1 overrun in one recording): a rate that overran in its first run has
# P >= 5 % at 95 % confidence (Clopper-Pearson, one-sided); a rate clean in N runs has
# P <= 1 - 0.05^(1/N) at 95 % confidence (N=3: 63 %, N=10: 26 %; resolving 5 % needs
# 59 clean runs). So the bisection finds where overruns start being frequent, the step
# of a steep curve, and `truth` is the highest rate found SAFE.
#
# Usage: truth.sh RIG BUFFER [--lo MB/s] [--hi MB/s] [--repeats N] [--duration 60s]
#                 [--block 256KiB] [--tol 0.025] [--start idle|warm] [--out DIR] [--dir RIGDIR] [KEY=VALUE ...]
# Example: tests/rig/truth.sh stalls 4MiB --lo 2 --hi 16 --repeats 3 --out bench/rig_truth
# Prints one JSON summary line (also appended to OUT/summary.jsonl); each run's refrec
# JSON goes to OUT/runs.jsonl. KEY=VALUE pairs are passed to rig.sh up.
#
# Frequencies instead of a bisection: --rates "6 8 10" runs --repeats recordings at
# each rate, overrun or not, and prints one JSON line per rate (runs, overran, the
# Clopper-Pearson 95 % interval of P(>=1 overrun)); bench/rig_compare.py holds
# runs.jsonl against the model's probabilities.
# Example: tests/rig/truth.sh fuse 4MiB --rates "6 9 12" --repeats 4 --out /tmp/freq
#
# --start idle (default) starts the recorder on the fresh, idle rig: the journal's
# commit timer and the kernel flusher's wake-ups then both start from the recorder's
# first writes, so every run meets them at the same points (a step in rate, not a
# probability). --start warm gives them random phases first, as on a disk something
# else already writes to (tests/rig/warm.sh says how); each run's random delays go
# into runs.jsonl.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
die() { echo "truth.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: truth.sh RIG BUFFER [--lo MB/s] [--hi MB/s] [--repeats N] [--duration 60s] [--block 256KiB] [--tol 0.025] [--start idle|warm] [--out DIR]"
rig=$1 buffer=$2; shift 2
lo=1 hi=32 repeats=3 duration=60s block=256KiB tol=0.025 out=. rigdir=/tmp/truth-$rig-$buffer-$$ rates= start=idle
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lo) lo=$2; shift 2 ;; --hi) hi=$2; shift 2 ;; --repeats) repeats=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;; --block) block=$2; shift 2 ;; --tol) tol=$2; shift 2 ;;
    --out) out=$2; shift 2 ;; --dir) rigdir=$2; shift 2 ;; --rates) rates=$2; shift 2 ;;
    --start) start=$2; shift 2 ;;
    *=*) overrides+=("$1"); shift ;;
    *) die "unknown argument '$1': see the usage in $0" ;;
  esac
done
command -v jq >/dev/null || die "jq not found: install it (run.sh does)"
case "$start" in idle|warm) ;; *) die "--start $start: use idle (the recorder starts on the fresh rig) or warm (random timer phases)" ;; esac
awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(a > 0 && b > a) }' || die "need 0 < --lo < --hi (MB/s), got $lo and $hi"
mkdir -p "$out" || die "cannot create $out"
export RIG_WAIT_S=${RIG_WAIT_S:-3600}  # rigs with other vm.dirty_* values may be up: wait for them
# shellcheck source=tests/rig/warm.sh
. "$here/warm.sh"
trap 'warm_down; "$here/rig.sh" down "$rigdir"' EXIT
trap 'exit 130' INT TERM

t_start=$(date +%s)
nruns=0
# run RATE INDEX: one recording on a fresh rig; sets ov to its overrun count.
run() {
  local rate=$1 i=$2 res
  "$here/rig.sh" up "$rig" "$rigdir" "${overrides[@]}" >/dev/null || die "rig $rig did not come up"
  WARM_DELAYS=null
  [ "$start" = warm ] && warm_up "$rigdir/mnt"
  # Real-time priority: overruns must come from the storage, not from the other
  # processes on this machine. The rig's own daemons keep their normal priority.
  res=$(chrt -f 20 "$here/refrec.sh" "$rigdir/mnt/rec.raw" --rate "$rate" --buffer "$buffer" \
        --block "$block" --duration "$duration" 2>&1)
  local pauses; pauses=$(grep -c ' pause' "$rigdir/events.log" 2>/dev/null)
  warm_down
  "$here/rig.sh" down "$rigdir"
  nruns=$((nruns + 1))
  echo "$res" | jq -c --arg rig "$rig" --arg i "$i" --arg p "${pauses:-0}" --arg st "$start" --argjson dl "$WARM_DELAYS" \
    '. + {rig: $rig, run: ($i | tonumber), pauses_injected: ($p | tonumber), start: $st}
       + (if $dl == null then {} else {warm_delays_s: $dl} end)' >>"$out/runs.jsonl" \
    || { echo "truth.sh: refrec failed: $res" >&2; exit 1; }
  ov=$(echo "$res" | jq -r '.overruns')
}
if [ -n "$rates" ]; then
  for rate in $rates; do
    [[ $rate =~ ^[0-9]*[.]?[0-9]+$ ]] && awk -v r="$rate" 'BEGIN { exit !(r > 0) }' || die "--rates: '$rate' is not a rate in MB/s (e.g. --rates \"6 8 10\")"
  done
  for rate in $rates; do
    k=0
    for ((i = 1; i <= repeats; i++)); do
      run "$rate" "$i"
      echo "truth.sh: $rig $buffer ${rate} MB/s run $i: $ov overrun(s)" >&2
      [ "$ov" = 0 ] || k=$((k + 1))
    done
    # Clopper-Pearson 95 % bounds by bisection on the binomial tail (awk: no scipy needed).
    jq -cn --arg rig "$rig" --arg buffer "$buffer" --arg d "$duration" --argjson rate "$rate" \
      --argjson n "$repeats" --argjson k "$k" \
      --argjson b "$(awk -v n="$repeats" -v k="$k" '
        function tail_ge(p, n, k,   i, c, s) { s = 0; c = 1; for (i = 0; i <= n; i++) { if (i >= k) s += c * p^i * (1-p)^(n-i); c = c * (n - i) / (i + 1) } return s }
        function lower(n, k,   a, b, m, j) { if (k == 0) return 0; a = 0; b = 1; for (j = 0; j < 60; j++) { m = (a+b)/2; if (tail_ge(m, n, k) < 0.025) a = m; else b = m } return a }
        function upper(n, k,   a, b, m, j) { if (k == n) return 1; a = 0; b = 1; for (j = 0; j < 60; j++) { m = (a+b)/2; if (1 - tail_ge(m, n, k + 1) < 0.025) b = m; else a = m } return b }
        BEGIN { printf "[%.4f,%.4f]", lower(n, k), upper(n, k) }')" \
      --arg st "$start" '{rig: $rig, buffer: $buffer, duration: $d, rate_MBps: $rate, runs: $n, overran: $k,
        p_overrun: ($k / $n), p_overrun_95pct: $b, start: $st}' | tee -a "$out/frequencies.jsonl"
  done
  exit 0
fi
# probe RATE: v=unsafe at the first overrun, v=safe after $repeats clean runs.
declare -A seen
probe() {
  local rate=$1 i
  for ((i = 1; i <= repeats; i++)); do
    run "$rate" "$i"
    echo "truth.sh: $rig $buffer ${rate} MB/s run $i: $ov overrun(s)" >&2
    [ "$ov" = 0 ] || { v=unsafe; seen[$rate]=$i; return; }
  done
  v=safe; seen[$rate]=$repeats
}
probe "$hi"
while [ "$v" = safe ]; do lo=$hi; hi=$(awk -v h="$hi" 'BEGIN { printf "%.4g", h * 2 }'); probe "$hi"; done
# A lo that came from a hi found safe above is not probed again.
if [ -z "${seen[$lo]:-}" ]; then probe "$lo"; else v=safe; fi
while [ "$v" = unsafe ]; do hi=$lo; lo=$(awk -v l="$lo" 'BEGIN { printf "%.4g", l / 2 }')
  awk -v l="$lo" 'BEGIN { exit !(l < 0.05) }' && die "$rig overruns even at 0.05 MB/s: check the rig"
  probe "$lo"; done
while awk -v a="$lo" -v b="$hi" -v t="$tol" 'BEGIN { exit !(b / a > 1 + t) }'; do
  mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.4g", sqrt(a * b) }')
  probe "$mid"
  if [ "$v" = safe ]; then lo=$mid; else hi=$mid; fi
done
wall=$(( $(date +%s) - t_start ))
unsafe_run=${seen[$hi]}
summary=$(jq -cn --arg rig "$rig" --arg buffer "$buffer" --arg block "$block" --arg d "$duration" \
  --argjson lo "$lo" --argjson hi "$hi" --argjson n "$repeats" --argjson runs "$nruns" \
  --argjson wall "$wall" --argjson ur "$unsafe_run" --arg ov "${overrides[*]}" \
  '{rig: $rig, buffer: $buffer, block: $block, duration: $d, truth_MBps: $lo, unsafe_MBps: $hi,
    unsafe_after_runs: $ur, clean_runs_at_truth: $n,
    p_overrun_at_truth_95pct_upper: (1 - pow(0.05; 1 / $n)),
    runs: $runs, wall_s: $wall, overrides: $ov}')
echo "$summary" | tee -a "$out/summary.jsonl"
