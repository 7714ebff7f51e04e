#!/usr/bin/env bash
# characterize on a real path (a tmpfs, small budget): it runs every phase,
# writes a profile that `show` and `capacity` load as is, prints a headline,
# removes every test file, and says honestly that its reads came from memory.
# (Ctrl-C in the middle of a run: characterize_interrupt.sh.)
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d /tmp/sd-characterize-real.XXXXXX)
MNT=$T/mnt
PID=""
BUSY=()
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null
  for b in "${BUSY[@]}"; do kill "$b" 2>/dev/null; done
  umount "$MNT" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$MNT" "$T/traces"
mount -t tmpfs -o size=600M tmpfs "$MNT" || { echo "cannot mount a tmpfs: skipped"; exit 0; }

out=$("$STREAMDISK" characterize "$MNT" -o "$T/tmpfs.toml" --budget 20s --keep-traces "$T/traces" --json) \
  || fail "characterize exit $?"
[ -z "$(ls -A "$MNT")" ] || fail "characterize left files: $(ls -A "$MNT")"
[ -s "$T/tmpfs.toml" ] || fail "no profile written"
"$STREAMDISK" show "$T/tmpfs.toml" >/dev/null || fail "show cannot load the profile"
"$STREAMDISK" capacity -p "$T/tmpfs.toml" --find sample-rate -c 1 -d 10s >/dev/null || fail "capacity cannot use the profile"
jq -e '.headline.found and .headline.data_rate_bytes_per_s > 0' <<<"$out" >/dev/null || fail "no headline: $out"
jq -e '[.phases[].name] | index("paced-0.5") != null and index("cache") != null and index("blocksize") != null' \
  <<<"$out" >/dev/null || fail "phases missing: $(jq -c '[.phases[].name]' <<<"$out")"
jq -e '.params[] | select(.key == "filesystem.userspace") | .value == 0' <<<"$out" >/dev/null \
  || fail "tmpfs is not a userspace filesystem"
# tmpfs either refuses O_DIRECT or keeps the data in memory anyway: either way it must say so.
jq -e '.notes | map(test("O_DIRECT refused|not bypassed|not dropped")) | any' <<<"$out" >/dev/null \
  || fail "no note that the reads did not come from a device: $(jq -c .notes <<<"$out")"
jq -e '[.params[].key] | map(startswith("device.read_")) | any | not' <<<"$out" >/dev/null \
  || fail "read figures from memory went into the profile"
ls "$T/traces"/paced-0.3.csv "$T/traces"/cache.csv >/dev/null || fail "traces not kept: $(ls "$T/traces")"
grep -q '^# sweep=paced' "$T/traces/paced-0.3.csv" || fail "paced trace lacks its sweep line"
# The kept traces calibrate on their own, too.
"$STREAMDISK" calibrate "$T"/traces/*.csv >/dev/null || fail "calibrate cannot read the kept traces"

jq -e '.cpu_busy_idle >= 0 and .cpu_busy_idle <= 1' <<<"$out" >/dev/null \
  || fail "cpu_busy_idle missing or outside 0..1: $(jq -c .cpu_busy_idle <<<"$out")"

# Other programs busy before the first write: measured while characterize
# waits for the device to be idle, and said at once on stderr and in the notes.
for _ in 1 2; do timeout 60 sh -c 'while :; do :; done' & BUSY+=($!); done
"$STREAMDISK" characterize "$MNT" --budget 10s --idle 3s --json >"$T/busy.json" 2>"$T/busy.err" \
  || fail "characterize (busy machine) exit $?"
for b in "${BUSY[@]}"; do kill "$b" 2>/dev/null; done
BUSY=()
jq -e '.cpu_busy_idle > 0.5' "$T/busy.json" >/dev/null || fail "two busy loops not seen: $(jq -c .cpu_busy_idle "$T/busy.json")"
grep -q "^streamdisk: warning: other processes kept .* busy before the first write" "$T/busy.err" \
  || fail "no warning on stderr: $(cat "$T/busy.err")"
jq -e '.notes | map(test("before the first write")) | any' "$T/busy.json" >/dev/null || fail "no note about the busy machine"
[ -z "$(ls -A "$MNT")" ] || fail "characterize left files: $(ls -A "$MNT")"

finish
