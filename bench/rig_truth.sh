#!/usr/bin/env bash
# The project's most important number, reproduced: on each test rig (tests/rig/) and
# buffer size, the highest rate the independent reference recorder records cleanly
# (truth, by bisection on fresh rigs) against what streamdisk predicts for the same
# recorder after characterizing the rig.
#
# Usage (as root, from the repository root, after building):
#   bench/rig_truth.sh truth   [--rigs "cliff stalls fuse hostcache"] [--buffers "1MiB 4MiB"]
#                              [--duration 60s] [--repeats 3] [--out bench/rig_truth.run]
#   bench/rig_truth.sh predict [--rigs ...] [--buffers ...] [--duration 60s] [--out ...]
#   bench/rig_truth.sh repredict [--rigs ...] [--buffers ...] [--out ...]
#                              # capacity again on the profiles predict kept, with this build
#   bench/rig_truth.sh table   [--out ...]          # markdown: truth vs prediction
#   bench/rig_truth.sh all     [...]                # truth, predict, table
# Example: bench/rig_truth.sh all --rigs stalls --buffers "1MiB 4MiB" --duration 60s
#
# truth runs one rig at a time (until session 16 it ran one queue per buffer size in
# parallel, two rigs at a time, where the second rig had no minimum share of the dirty
# limits). Each rig x buffer takes ~15-25 min with 60 s recordings and 3 repeats per rate.
# predict uses `streamdisk characterize PATH -o p.toml $CHARACTERIZE_ARGS` (e.g. "--budget 6min")
# when the binary has it, else the
# README's flow: measure --sweep blocksize --direct, --sweep sustained --direct, a
# buffered --sweep sustained, calibrate, on one fresh rig; then for each buffer
#   streamdisk capacity -p p.toml --find sample-rate -c 1 -b 8 -f raw --buffer B --block 256KiB -d DURATION
# repredict runs only that last step on the kept predict-RIG.toml (every one in --out unless
# --rigs says), with today's build: a rig's profile comes from measurements alone, so a
# model change is held against every rig in seconds, without the rigs. It appends to
# predict.jsonl (the table takes each row's latest) with the build's `git describe`.
set -u
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
cd "$(dirname "$0")/.." || exit 2
root=$PWD
STREAMDISK=${STREAMDISK:-$root/build/cli/streamdisk}
die() { echo "rig_truth.sh: $*" >&2; exit 2; }
mode=${1:-}; shift || true
rigs="cliff stalls fuse hostcache" rigs_given=0 buffers="1MiB 4MiB" duration=60s repeats=3 out=bench/rig_truth.run
block=256KiB
while [ $# -gt 0 ]; do
  case "$1" in
    --rigs) rigs=$2; rigs_given=1; shift 2 ;; --buffers) buffers=$2; shift 2 ;; --duration) duration=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;; --out) out=$2; shift 2 ;;
    *) die "unknown argument '$1': see the usage at the top of $0" ;;
  esac
done
mkdir -p "$out" || die "cannot create $out"
out=$(realpath "$out")

# Starting brackets (MB/s) only save probes: truth.sh widens a bracket that is wrong.
bracket() {
  case "$1" in
    cliff) echo "5 14" ;; stalls) echo "4 16" ;; fuse) echo "3 12" ;; hostcache) echo "6 24" ;; ext2stick) echo "2 10" ;; slowreq) echo "4 30" ;;
    *) echo "1 32" ;;
  esac
}

# One rig at a time: two rigs up together share the machine's dirty limits (the
# second cannot get a minimum share of them: rig.sh says so), so the second one's
# recorder meets the throttle earlier than it would with the machine to itself.
do_truth() {
  local b r
  for b in $buffers; do
    for r in $rigs; do
      read -r lo hi <<<"$(bracket "$r")"
      tests/rig/truth.sh "$r" "$b" --lo "$lo" --hi "$hi" --repeats "$repeats" \
        --duration "$duration" --block "$block" --out "$out" --dir "/tmp/rig-truth" \
        2>>"$out/truth-$r-$b.log"
    done
  done
}

predict_dir=/tmp/rig-predict
do_predict() {
  local r b dir=$predict_dir prof tool
  [ -x "$STREAMDISK" ] || die "$STREAMDISK not found: build first (see README)"
  trap 'tests/rig/rig.sh down "$predict_dir"' EXIT
  for r in $rigs; do
    prof="$out/predict-$r.toml"
    RIG_WAIT_S=3600 tests/rig/rig.sh up "$r" "$dir" >/dev/null || die "rig $r did not come up"
    local t0; t0=$(date +%s)
    if "$STREAMDISK" characterize --help >/dev/null 2>&1; then
      tool=characterize
      mkdir -p "$out/traces-$r"
      # shellcheck disable=SC2086  # CHARACTERIZE_ARGS: extra options, split on spaces
      "$STREAMDISK" characterize "$dir/mnt" -o "$prof" --keep-traces "$out/traces-$r" ${CHARACTERIZE_ARGS:-} >"$out/predict-$r.log" 2>&1
      # The log names the kept traces by absolute path: relative to the repository instead.
      sed -i "s|$root/||g" "$out/predict-$r.log"
    else
      tool="measure+calibrate"
      {
        "$STREAMDISK" measure "$dir/mnt" --sweep blocksize --direct --trace "$out/predict-$r-sweep.csv" &&
        "$STREAMDISK" measure "$dir/mnt" --sweep sustained --direct --seconds 30 --trace "$out/predict-$r-sustained.csv" &&
        "$STREAMDISK" measure "$dir/mnt" --sweep sustained --seconds 30 --trace "$out/predict-$r-buffered.csv" &&
        "$STREAMDISK" calibrate "$out/predict-$r-sweep.csv" "$out/predict-$r-sustained.csv" \
          --buffered "$out/predict-$r-buffered.csv" --name "rig-$r" -o "$prof"
      } >"$out/predict-$r.log" 2>&1
    fi
    local rc=$? secs=$(( $(date +%s) - t0 ))
    tests/rig/rig.sh down "$dir"
    for b in $buffers; do
      local best=null
      [ $rc -eq 0 ] && best=$(predict_one "$prof" "$b" 2>>"$out/predict-$r.log")
      jq -cn --arg rig "$r" --arg buffer "$b" --arg tool "$tool" --argjson best "${best:-null}" \
        --argjson secs "$secs" --argjson rc "$rc" \
        '{rig: $rig, buffer: $buffer, tool: $tool, predicted_MBps: (if $best == null then null else $best / 1e6 end),
          characterize_s: $secs, characterize_rc: $rc}' | tee -a "$out/predict.jsonl"
    done
  done
}

# The prediction for one kept profile ($1) and buffer ($2): MB/s, or null.
predict_one() {
  "$STREAMDISK" capacity -p "$1" --find sample-rate -c 1 -b 8 -f raw --buffer "$2" \
    --block "$block" -d "$duration" --json | jq '.results[0].best // null'
}

do_repredict() {
  local r b prof best session model
  [ -x "$STREAMDISK" ] || die "$STREAMDISK not found: build first (see README)"
  model=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
  if [ "$rigs_given" = 0 ]; then
    rigs=$(cd "$out" && for f in predict-*.toml; do [ -f "$f" ] && basename "$f" .toml | sed 's/^predict-//'; done)
    [ -n "$rigs" ] || die "no predict-RIG.toml in $out: run 'bench/rig_truth.sh predict --out $out' first"
  fi
  for r in $rigs; do
    prof="$out/predict-$r.toml"
    [ -f "$prof" ] || die "no $prof: run 'bench/rig_truth.sh predict --rigs $r --out $out' first"
    # The session the profile was measured in, from its first prediction.
    session=$(jq -s --arg rig "$r" '[.[] | select(.rig == $rig and .session != null)] | first | .session // null' \
              "$out/predict.jsonl" 2>/dev/null || echo null)
    for b in $buffers; do
      best=$(predict_one "$prof" "$b" 2>>"$out/repredict-$r.log") || best=null
      jq -cn --arg rig "$r" --arg buffer "$b" --arg model "$model" --argjson best "${best:-null}" \
        --argjson session "${session:-null}" \
        '{rig: $rig, buffer: $buffer, tool: "characterize", predicted_MBps: (if $best == null then null else $best / 1e6 end),
          session: $session, repredicted_with: $model}' | tee -a "$out/predict.jsonl"
    done
  done
}

do_table() {
  echo "| rig | buffer | truth MB/s: highest clean / lowest overran | runs (clean runs needed per rate) | wall | predicted MB/s | error | flow |"
  echo "|---|---|---|---|---|---|---|---|"
  jq -rs --slurpfile p <(cat "$out/predict.jsonl" 2>/dev/null | jq -s . ) '
    .[] as $t
    | ([$p[0][]? | select(.rig == $t.rig and .buffer == $t.buffer)] | last) as $q
    | "| \($t.rig) | \($t.buffer) | \($t.truth_MBps) / \($t.unsafe_MBps) | \($t.runs) (\($t.clean_runs_at_truth)) | \(($t.wall_s / 60) | floor) min | "
      + (if $q.predicted_MBps == null then "– | – | \($q.tool // "not run") |"
         else "\($q.predicted_MBps * 100 | round / 100) | \((($q.predicted_MBps / $t.truth_MBps - 1) * 100) | round) % | \($q.tool)\(if $q.session then ", session \($q.session)" else "" end)\(if $q.repredicted_with then ", re-predicted with \($q.repredicted_with)" else "" end) |" end)
  ' "$out/summary.jsonl"
}

case "$mode" in
  truth) do_truth ;;
  predict) do_predict ;;
  repredict) do_repredict ;;
  table) do_table ;;
  all) do_truth; do_predict; do_table ;;
  *) die "usage: bench/rig_truth.sh truth|predict|repredict|table|all [--rigs ...] [--buffers ...] [--duration 60s] [--repeats 3] [--out DIR]" ;;
esac
