#!/usr/bin/env bash
# --discard keeps names and sizes but not contents: a 16 MiB tmpfs backing
# holds a 64 MiB file, statfs reports the emulated capacity, and reads
# return zeros. Without --backing the private temp dir is removed at unmount.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

mount -t tmpfs -o size=16m tmpfs "$BACK" || skip "cannot mount a tmpfs (needs root)"
EXTRA_UMOUNTS+=("$BACK")
start_mount -p samsung-960evo-250g --discard --backing "$BACK" --capacity 1GB
dd if=/dev/urandom of="$MNT/big" bs=1M count=64 status=none || fail "writing 64 MiB through a 16 MiB tmpfs"
[ "$(stat -c %s "$MNT/big")" -eq $((64 << 20)) ] || fail "size through the mount: $(stat -c %s "$MNT/big")"
[ "$(stat -c %s "$BACK/big")" -eq $((64 << 20)) ] || fail "backing file size: $(stat -c %s "$BACK/big")"
[ "$(stat -c %b "$BACK/big")" -eq 0 ] || fail "backing file holds $(stat -c %b "$BACK/big") blocks of data"
read -r blocks frsize < <(stat -f -c '%b %S' "$MNT")
[ "$blocks" -eq $((1000000000 / frsize)) ] || fail "statfs: $blocks blocks of $frsize, expected 1 GB"
cmp -n $((64 << 20)) "$MNT/big" /dev/zero || fail "reads of a discarded file are not zeros"
stop_mount

# Without --backing: a private directory, gone after the unmount.
export TMPDIR=$WORK
start_mount -p samsung-960evo-250g --discard
echo data >"$MNT/x"
ls -d "$WORK"/streamdisk-discard-* >/dev/null 2>&1 || fail "no private backing directory in TMPDIR"
stop_mount
ls -d "$WORK"/streamdisk-discard-* >/dev/null 2>&1 && fail "private backing directory left behind"
finish
