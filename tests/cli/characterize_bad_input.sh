#!/usr/bin/env bash
# characterize: bad paths, a full device, bad options -> one line on stderr,
# exit status 2, nothing written.
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d /tmp/sd-characterize-cli.XXXXXX)
MNT="" RO=""
cleanup() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  [ -n "$RO" ] && umount "$RO" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

expect_bad_input "missing directory" "is not a directory" -- characterize "$T/nope" -o "$T/p.toml"
touch "$T/file"
expect_bad_input "a file, not a directory" "is not a directory" -- characterize "$T/file" -o "$T/p.toml"
expect_bad_input "no target" "give either a directory" -- characterize -o "$T/p.toml"
expect_bad_input "both targets" "give either a directory" -- characterize "$T" -p sandisk-ultrafit-16g
expect_bad_input "bad budget" "--budget" -- characterize "$T" --budget soon
expect_bad_input "zero budget" "--budget" -- characterize "$T" --budget 0s
expect_bad_input "bad check" "--check 'soon'" -- characterize "$T" --check soon
expect_bad_input "check over half the budget" "more than half the 4min budget" -- characterize "$T" --check 3min
expect_bad_input "output in a missing directory" "does not exist" -- characterize "$T" -o "$T/no/such/p.toml"
expect_bad_input "output is a directory" "is a directory" -- characterize "$T" -o "$T"
expect_bad_input "keep-traces not a directory" "exists and is not a directory" -- characterize -p sandisk-ultrafit-16g --keep-traces "$T/file"
expect_bad_input "keep-traces missing" "mkdir -p" -- characterize -p sandisk-ultrafit-16g --keep-traces "$T/nope-traces"
# --keep-traces never replaces a file it did not write: an earlier run's trace (or a
# dangling link of such a name) stops the run before it measures anything.
mkdir -p "$T/traces" "$T/traces2"
echo precious >"$T/traces/cache.csv"
expect_bad_input "keep-traces would replace a file" "cache.csv exists" -- \
  characterize -p sandisk-ultrafit-16g --budget 1min --keep-traces "$T/traces" -o "$T/p.toml"
[ "$(cat "$T/traces/cache.csv")" = precious ] || fail "--keep-traces replaced a file it did not write"
[ "$(ls "$T/traces")" = cache.csv ] || fail "--keep-traces wrote into a directory it refused: $(ls "$T/traces")"
ln -s "$T/nowhere" "$T/traces2/paced-0.5.csv"
expect_bad_input "keep-traces would replace a link" "paced-0.5.csv exists" -- \
  characterize -p sandisk-ultrafit-16g --budget 1min --keep-traces "$T/traces2" -o "$T/p.toml"
[ ! -e "$T/nowhere" ] || fail "--keep-traces wrote through a link"
# The profile is never one of the traces the same run keeps (it replaced the run's
# own cache.csv at the end).
mkdir -p "$T/traces3"
expect_bad_input "-o is one of the kept traces" "cache.csv" -- \
  characterize -p sandisk-ultrafit-16g --budget 1min --keep-traces "$T/traces3" -o "$T/traces3/cache.csv"
[ -z "$(ls "$T/traces3")" ] || fail "characterize wrote into --keep-traces before refusing -o: $(ls "$T/traces3")"
expect_bad_input "unknown profile" "profile" -- characterize -p no-such-profile-xyz
expect_bad_input "bad recorder buffer" "buffer" -- characterize -p sandisk-ultrafit-16g --buffer -5
# A (modelled) device too small to characterize below the safe level.
expect_bad_input "full model" "free of .*90 % full" -- characterize -p sandisk-ultrafit-16g --set device.capacity_bytes=50MB -o "$T/p.toml"
[ ! -e "$T/p.toml" ] || fail "a profile was written after bad input"

# A real, nearly full filesystem: a 40 MiB tmpfs (needs root to mount).
MNT="$T/small"
mkdir -p "$MNT"
if mount -t tmpfs -o size=40M tmpfs "$MNT" 2>/dev/null; then
  expect_bad_input "full device" "free of .*free some space" -- characterize "$MNT" -o "$T/p.toml"
  [ -z "$(ls -A "$MNT")" ] || fail "characterize left files on the full device: $(ls -A "$MNT")"
else
  echo "skipped the tmpfs part (cannot mount here)"
  MNT=""
fi
# A read-only filesystem: room enough, but nothing may be written.
RO="$T/ro"
mkdir -p "$RO"
if mount -t tmpfs -o size=300M,ro tmpfs "$RO" 2>/dev/null; then
  expect_bad_input "read-only mount" "not writable" -- characterize "$RO" -o "$T/p.toml"
else
  echo "skipped the read-only part (cannot mount here)"
  RO=""
fi
[ ! -e "$T/p.toml" ] || fail "a profile was written after bad input"
finish
