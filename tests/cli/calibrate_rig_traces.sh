#!/usr/bin/env bash
# Real traces, not synthetic ones: characterize's flat-out cache phase and its
# paced phases on the `fuse` rig (exfat-fuse over a device that pauses ~0.3 s
# every ~64 MB written, 16 MiB dirty limit; tests/rig/traces/README.md). The
# flat-out writes kept the block device's page cache full and met the pauses;
# the paced ones (4.4, 7.3 and 10.3 MB/s) met none. calibrate must say the
# pauses are behind a cache and fit them from the flat-out trace alone: some
# tens of MB of the flat-out writes apart, a few hundred ms long.
. "$SD_SOURCE_DIR/tests/lib.sh"
T="$SD_SOURCE_DIR/tests/rig/traces/fuse"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
value() { awk -v k="device.$1" '$1 == k { print $2 }'; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

out=$("$STREAMDISK" calibrate "$T/cache.csv" "$T"/paced-*.csv -o "$dir/fit.toml") || fail "calibrate failed: $out"
printf '%s\n' "$out" | grep -q "met 0 pause(s)" || fail "no note that paced writes met no pauses: $out"
printf '%s\n' "$out" | grep -q "behind a cache" || fail "the pauses were not put behind a cache: $out"
# The device's pauses are the longer population when the fit finds two (a few
# short pauses of the loaded machine's scheduling may form the other).
key=stall; [ -n "$(printf '%s\n' "$out" | value stall2_duration_ms)" ] &&
  [ "$(printf '%s\n' "$out" | value stall2_duration_ms)" != 0 ] && key=stall2
# One flat-out trace at one rate cannot tell byte- from time-triggered
# arrivals; behind a cache the fit takes them per unit of time (the cautious
# choice), so the spacing is the period times the trace's rate.
interval=$(printf '%s\n' "$out" | value ${key}_interval_mb)
period=$(printf '%s\n' "$out" | value ${key}_period_ms)
rate=$(printf '%s\n' "$out" | value sustained_mbps)
[ "${interval:-0}" = 0 ] && interval=$(awk -v p="${period:-0}" -v r="${rate:-0}" 'BEGIN { print p / 1e3 * r }')
between "${interval:-0}" 40 100 || fail "${key}: pauses every '$interval' MB written (period '$period' ms at '$rate' MB/s): the rig pauses every ~64 MB written"
median=$(printf '%s\n' "$out" | value ${key}_duration_ms)
between "${median:-0}" 150 400 || fail "${key}_duration_ms '$median': the rig's pauses are 0.3 s (+-20 %)"
"$STREAMDISK" show "$dir/fit.toml" >/dev/null || fail "the fitted profile does not load"
finish
