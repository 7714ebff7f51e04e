#!/usr/bin/env bash
# Self-consistency of the measure -> predict flow, in virtual time: for each synthetic
# stack in bench/self_consistency/ (host + filesystem + device of known parameters,
# chosen to span the physics the model has, none copied from a test rig), compare
#   true:   streamdisk capacity on the stack itself, and
#   fitted: streamdisk characterize -p STACK (the whole measurement plan run against
#           the model) -> profile -> streamdisk capacity,
# for the rig table's recorder (1 channel, 8-bit raw, 256 KiB writes, 60 s) at two
# ring sizes. Where the model is the device, characterize must give back what it
# measured: a miss here is the calibration not inverting the model's own layers
# (a page cache that hides a device's pauses, a journal that shows them), which no
# real device can fix. Runs in a few minutes on 2 cores; nothing is timed.
#
# Usage: bench/self_consistency.sh [--stacks "a b"] [--buffers "1MiB 4MiB"] [--out DIR]
#   --out DIR (new or empty) keeps each stack's fitted profile and characterize log.
# Example: bench/self_consistency.sh --stacks fuse-behind-cache --buffers 1MiB
# Prints a markdown table and a summary line (rows within +-10 %).
set -u
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
cd "$(dirname "$0")/.."
STREAMDISK=${STREAMDISK:-$PWD/build/cli/streamdisk}
die() { echo "self_consistency.sh: $*" >&2; exit 2; }
[ -x "$STREAMDISK" ] || die "$STREAMDISK not found: build first (see README)"
dir=bench/self_consistency
stacks=$(cd "$dir" && ls *.toml | sed 's/\.toml$//' | tr '\n' ' ') buffers="1MiB 4MiB" out=
while [ $# -gt 0 ]; do
  case "$1" in --stacks|--buffers|--out) [ $# -ge 2 ] || die "$1 needs a value: see --help" ;; esac
  case "$1" in
    --stacks) stacks=$2; shift 2 ;; --buffers) buffers=$2; shift 2 ;; --out) out=$2; shift 2 ;;
    *) die "unknown argument '$1': see --help" ;;
  esac
done
work=$(mktemp -d /tmp/sd-selfcons.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -n "$out" ]; then
  # Never over files it did not write: the directory must be new or empty.
  [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && die "--out $out is not empty: give a new or empty directory"
  mkdir -p "$out" || die "cannot create $out"
fi
cap() {  # PROFILE BUFFER: highest clean data rate, MB/s
  "$STREAMDISK" capacity -p "$1" --find sample-rate -c 1 -b 8 -f raw --buffer "$2" --block 256KiB -d 60s --json \
    | jq -r '.results[0].best // empty | . / 1e6'
}
for s in $stacks; do
  [ -f "$dir/$s.toml" ] || die "no stack $dir/$s.toml (the stacks: $(cd "$dir" && ls *.toml | sed 's/\.toml$//' | tr '\n' ' '))"
done
echo "| stack | buffer | true MB/s | characterize -> capacity MB/s | error |"
echo "|---|---|---|---|---|"
n=0 inside=0
for s in $stacks; do
  fit=$work/$s.fitted.toml
  "$STREAMDISK" characterize -p "$dir/$s.toml" -o "$fit" >"$work/$s.log" 2>&1 || { echo "| $s | – | characterize failed: $(tail -1 "$work/$s.log") | | |"; continue; }
  [ -n "$out" ] && cp "$fit" "$work/$s.log" "$out/"
  for b in $buffers; do
    t=$(cap "$dir/$s.toml" "$b") f=$(cap "$fit" "$b")
    e=$(awk -v t="$t" -v f="$f" 'BEGIN { if (t > 0 && f != "") printf "%+.0f %%", (f / t - 1) * 100; else print "–" }')
    printf '| %s | %s | %.3g | %.3g | %s |\n' "$s" "$b" "${t:-0}" "${f:-0}" "$e"
    n=$((n + 1))
    awk -v t="$t" -v f="$f" 'BEGIN { exit !(t > 0 && f != "" && f / t - 1 <= 0.10 && f / t - 1 >= -0.10) }' && inside=$((inside + 1))
  done
done
echo
echo "$inside of $n rows within ±10 %"
