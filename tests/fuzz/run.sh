#!/usr/bin/env bash
# Runs every libFuzzer target in tests/fuzz for N seconds each (default 20),
# starting from its seed corpus in tests/fuzz/corpus/<reader>/, one target per
# core at a time (JOBS, default nproc). Builds them
# first (clang-14, ASan + UBSan, the build directory tests/sanitize.sh uses).
#   tests/fuzz/run.sh              20 s per target (what CI runs)
#   tests/fuzz/run.sh 600          10 minutes per target
#   tests/fuzz/run.sh 60 strace    one target
# New inputs the fuzzer finds go to a temporary directory (the committed seeds
# stay small); a crash is kept in $SD_FUZZ_OUT (default build-asan/fuzz-out)
# as crash-<hash>: turn it into a unit test with that input (README "Reliability").
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
only=${2:-}
dir=${SD_ASAN_BUILD:-build-asan}
out=${SD_FUZZ_OUT:-$dir/fuzz-out}
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "usage: tests/fuzz/run.sh [seconds per target] [target]" >&2; exit 2; }
[ -z "$only" ] || [ -d "tests/fuzz/corpus/$only" ] || { echo "fuzz/run.sh: no target '$only': one of $(ls tests/fuzz/corpus | tr '\n' ' ')" >&2; exit 2; }
tests/sanitize.sh build fuzz_targets
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# One target a core at a time (JOBS, default nproc): each fuzzer is one
# process on one core, so two at once on two cores each get the N seconds of
# a core they would get alone, in half the wall time.
jobs=${JOBS:-$(nproc)}
fuzz_one() {  # fuzz_one NAME SEEDS: its log in $work/NAME.log, ok or FINDING in $work/NAME.result
  local name=$1 seeds=$2 exe="$dir/tests/fuzz/${1}_fuzz" dict=()
  mkdir -p "$work/$name"
  case $name in fio_json | report_json) dict=(-dict=tests/fuzz/json.dict) ;; esac
  # -rss_limit_mb / -timeout: a reader that grows memory without bound or
  # loops on one input is a finding too. -max_len: traces are text files;
  # 64 KiB reaches every state of a line-based reader.
  if "$exe" "$work/$name" "$seeds" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$out/$name-" -print_final_stats=1 "${dict[@]}" >"$work/$name.log" 2>&1; then
    echo ok >"$work/$name.result"
  else
    echo "FINDING (see $out/$name-*)" >"$work/$name.result"
  fi
}
rc=0
names=()
for seeds in tests/fuzz/corpus/*/; do
  name=$(basename "$seeds")
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  [ -x "$dir/tests/fuzz/${name}_fuzz" ] || { echo "fuzz/run.sh: no target for corpus $seeds ($dir/tests/fuzz/${name}_fuzz)" >&2; rc=1; continue; }
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  fuzz_one "$name" "$seeds" &
  names+=("$name")
done
wait
printf '%-14s %8s %12s %10s %s\n' target seconds executions exec/s result
for name in "${names[@]}"; do
  result=$(cat "$work/$name.result" 2>/dev/null || echo "FINDING (no result: see $work/$name.log)")
  [ "$result" = ok ] || { rc=1; tail -60 "$work/$name.log" >&2; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$name.log" | tail -1)
  printf '%-14s %8s %12s %10s %s\n' "$name" "$seconds" "${runs:-?}" "${rate:-?}" "$result"
done
exit $rc
