#!/usr/bin/env bash
# `measure --direct` on a FUSE filesystem (the project's own `streamdisk mount`)
# never claims a bypass it did not get: O_DIRECT reaches the userspace driver,
# which is not the device. And `characterize` on the same mount (a slow
# profile, a small budget) sees a userspace driver, writes a profile that
# `capacity` uses as is, and leaves no files. Then exfat-fuse over a loop
# device: measure says how that driver writes to its device.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

start_mount -p samsung-960evo-250g "${SLOW_SETS[@]}" --discard
out=$("$STREAMDISK" measure "$MNT" --sweep blocksize --direct --blocks 64k,256k --seconds 0.5 --size 16MiB --json) \
  || fail "measure through the mount: exit $?"
jq -e '.direct_used == false' <<<"$out" >/dev/null || fail "measure says O_DIRECT was used on a FUSE mount"
jq -e '.notes | map(test("bypassed \\(O_DIRECT\\)")) | any | not' <<<"$out" >/dev/null \
  || fail "measure claims a bypass on FUSE: $(jq -c .notes <<<"$out")"
jq -e '.notes | map(test("userspace \\(FUSE\\)")) | any' <<<"$out" >/dev/null \
  || fail "measure does not say the filesystem is FUSE: $(jq -c .notes <<<"$out")"
human=$("$STREAMDISK" measure "$MNT" --sweep blocksize --direct --blocks 64k --seconds 0.3 --size 8MiB) || fail "human run"
grep -q "bypassed (O_DIRECT)" <<<"$human" && fail "human output claims a bypass: $human"
grep -q "not direct" <<<"$human" || fail "human output does not say the writes were not direct: $human"

ch=$("$STREAMDISK" characterize "$MNT" -o "$WORK/mnt.toml" --budget 20s --json) || fail "characterize on the mount: exit $?"
jq -e '.filesystem.userspace == true' <<<"$ch" >/dev/null || fail "characterize missed the userspace driver"
grep -q '^userspace = { value = 1' "$WORK/mnt.toml" || fail "profile lacks userspace = 1: $(grep userspace "$WORK/mnt.toml")"
"$STREAMDISK" capacity -p "$WORK/mnt.toml" --find sample-rate -c 1 -d 10s >/dev/null || fail "capacity cannot use the profile"
[ -z "$(ls -A "$MNT")" ] || fail "files left in the mount: $(ls -A "$MNT")"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC"

# A real userspace driver over a block device (a loop device on an image):
# measure names the process that holds the device open and how. exfat-fuse
# opens it without O_DIRECT or O_SYNC, so its writes go through the device's
# page cache and the device's pauses are behind that cache; the trace header
# says so for calibrate (driver_io).
command -v mount.exfat-fuse >/dev/null && command -v mkfs.exfat >/dev/null || skip "exfat-fuse or exfatprogs missing"
img=$WORK/stick.img ex=$WORK/exfat LOOP=""
mkdir -p "$ex"
loop_cleanup() {
  is_mounted "$ex" && umount "$ex" 2>/dev/null
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
  mount_cleanup
}
trap loop_cleanup EXIT
if truncate -s 64M "$img" && mkfs.exfat "$img" >/dev/null && LOOP=$(losetup -f --show "$img") &&
   mount.exfat-fuse "$LOOP" "$ex" >/dev/null 2>&1; then
  out=$("$STREAMDISK" measure "$ex" --sweep blocksize --blocks 64k --seconds 0.2 --size 2MiB --trace "$WORK/ex.csv" \
    --json) || fail "measure on exfat-fuse: exit $?"
  jq -e --arg d "$LOOP" '.notes | map(test("device I/O: .*exfat.*holds " + $d + " open without O_DIRECT or O_SYNC")) | any' \
    <<<"$out" >/dev/null || fail "measure does not say how exfat-fuse writes $LOOP: $(jq -c .notes <<<"$out")"
  grep -qx '# driver_io=page_cache' "$WORK/ex.csv" || fail "trace header lacks driver_io=page_cache: $(grep '^#' "$WORK/ex.csv")"
  umount "$ex" || fail "exfat-fuse did not unmount"
  losetup -d "$LOOP" && LOOP=""
else
  fail "exfat-fuse did not mount a loop device"
fi
finish
