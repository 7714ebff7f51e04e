#!/usr/bin/env bash
# Every way `streamdisk mount` refuses to start: exit 2, one line naming the
# problem and the fix, and nothing mounted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

P=(-p samsung-960evo-250g)
expect_bad_input "no backing" "--backing DIR.*--discard" -- mount "${P[@]}" "$MNT"
expect_bad_input "missing mount point" "does not exist.*mkdir" -- mount "${P[@]}" --discard "$WORK/nope"
touch "$WORK/file"
expect_bad_input "mount point is a file" "not a directory" -- mount "${P[@]}" --discard "$WORK/file"
mkdir -p "$WORK/full" && touch "$WORK/full/x"
expect_bad_input "mount point not empty" "not empty" -- mount "${P[@]}" --discard "$WORK/full"
mkdir -p "$MNT/inner"
expect_bad_input "backing inside mount point" "inside the mount point" -- mount "${P[@]}" --backing "$MNT/inner" "$MNT"
rmdir "$MNT/inner"
expect_bad_input "mount point inside backing" "inside the backing" -- mount "${P[@]}" --backing "$WORK" "$MNT"
expect_bad_input "backing missing" "backing directory .* is not a directory" -- mount "${P[@]}" --backing "$WORK/nope" "$MNT"
expect_bad_input "unknown profile" "profile|unknown" -- mount -p no-such-device --discard "$MNT"
expect_bad_input "bad capacity" "--capacity" -- mount "${P[@]}" --discard --capacity lots "$MNT"
expect_bad_input "prefill over 100%" "--prefill" -- mount "${P[@]}" --discard --prefill 150% "$MNT"
expect_bad_input "prefill bare number" "--prefill 85: give a fraction" -- mount "${P[@]}" --discard --prefill 85 "$MNT"
expect_bad_input "prefill over capacity" "more than the capacity" -- mount "${P[@]}" --discard --capacity 1GB --prefill 2GB "$MNT"
expect_bad_input "bad overhead credit" "--overhead-credit" -- mount "${P[@]}" --discard --overhead-credit 5s "$MNT"
expect_bad_input "prefill without capacity" "--prefill needs a capacity" -- \
  mount "${P[@]}" --set device.capacity_bytes=0 --discard --prefill 50% "$MNT"
expect_bad_input "trace directory missing" "cannot write the trace" -- mount "${P[@]}" --discard --trace "$WORK/no/t.csv" "$MNT"
# The trace by the output-file rules, before anything is mounted: a directory was
# exit 1, and the profile's own TOML file was replaced by the trace at unmount.
# (Within 20 s: a mount that starts after all is ended by the timeout's SIGTERM.)
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$STREAMDISK" >"$WORK/sd-timeout"
chmod +x "$WORK/sd-timeout"
mkdir -p "$WORK/tdir"
STREAMDISK=$WORK/sd-timeout expect_bad_input "trace is a directory" "--trace .*tdir is a directory" -- \
  mount "${P[@]}" --discard --trace "$WORK/tdir" "$MNT"
printf 'format_version = 1\nlayer = "device"\nname = "mine"\n[params]\nsustained_mbps = 100\n' >"$WORK/dev.toml"
sum=$(md5sum <"$WORK/dev.toml")
STREAMDISK=$WORK/sd-timeout expect_bad_input "trace is the profile" "--trace .*dev.toml is also an input" -- \
  mount -p "ext4+$WORK/dev.toml" --discard --trace "$WORK/dev.toml" "$MNT"
[ "$(md5sum <"$WORK/dev.toml")" = "$sum" ] || fail "mount --trace replaced its profile"
[ -z "$(ls -A "$WORK/tdir")" ] && [ -z "$(find "$WORK" -name '*.tmp')" ] || fail "a refused mount left files"
STREAMDISK_FUSE_DEVICE=$WORK/no-fuse expect_bad_input "no /dev/fuse" "cannot use .*no-fuse.*modprobe fuse" -- \
  mount "${P[@]}" --discard "$MNT"
# No fusermount3 on PATH: a PATH with only the tools lib.sh needs.
mkdir -p "$WORK/bin"
for t in mktemp cat grep rm; do ln -s "$(command -v $t)" "$WORK/bin/$t"; done
PATH=$WORK/bin expect_bad_input "no fusermount3" "fusermount3 not found.*apt-get install fuse3" -- \
  mount "${P[@]}" --discard "$MNT"
# Busy: something is already mounted there.
if mount -t tmpfs -o size=1m tmpfs "$WORK/full" 2>/dev/null; then
  EXTRA_UMOUNTS+=("$WORK/full")
  expect_bad_input "mount point busy" "busy" -- mount "${P[@]}" --discard "$WORK/full"
fi
is_mounted "$MNT" && fail "something got mounted"
finish
