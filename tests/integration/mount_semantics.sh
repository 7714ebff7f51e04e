#!/usr/bin/env bash
# Each built-in filesystem profile answers links, xattrs, permissions, case,
# names, timestamps and fallocate as its Linux driver does (fs_probe.py, one
# line per call). ext4, exfat-fuse and ntfs-3g are checked against the real
# driver on an image run in this test. vfat and the kernel's exFAT driver are
# not in every kernel (nor in this one): both are checked against the answers
# their sources give (docs/mount.md cites them), and vfat also against the
# real driver in user-mode Linux (uml_lib.bash), which must agree with them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
. "$(dirname "$0")/uml_lib.bash"
LOOP=""
real_cleanup() {
  for m in "$WORK"/real-*; do is_mounted "$m" && umount "$m" 2>/dev/null; done
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
  mount_cleanup
}
trap real_cleanup EXIT

# The answers of FAT32 (vfat) and exFAT (kernel) as their sources give them
# (fs/fat, fs/exfat; chmod: fat_setattr/exfat_setattr drop a mode the
# filesystem cannot hold and succeed, special bits are EPERM).
expected_kernel_fat() {  # $1 = mtime after setting ...001.123456789 s; $2 = fallocate answers
  cat <<EOT
symlink EPERM
link EPERM
setxattr ENOTSUP
getxattr-missing ENOTSUP
listxattr-has-take False
open-other-case 1000
mkdir-other-case EEXIST
create-colon EINVAL
create-255 ok
create-256 ENAMETOOLONG
chmod-0644 ok
mode-after-0644 0o755
chmod-0777 ok
mode-after-0777 0o755
chmod-4755 EPERM
chmod-a-w ok
mode-after 0o555
dir-chmod-a-w ok
dir-mode-after 0o755
chown-other EPERM
utime-odd ok
mtime-ns-after $1
$2
fdatasync-dir ok
fsync-dir ok
statfs-namemax 1530
blksize 32768
EOT
}

# real_probe FS: the probe's answers on the real driver, in $WORK/real-FS.out (1 = could not mount here).
real_probe() {
  local fs=$1 img=$WORK/real-$1.img dir=$WORK/real-$1
  mkdir -p "$dir" && truncate -s 64M "$img" || return 1
  case $fs in
    ext4) mkfs.ext4 -q -F -b 4096 "$img" && mount -o loop "$img" "$dir" || return 1 ;;  # the profile's block
    exfat-fuse)
      mkfs.exfat "$img" >/dev/null && LOOP=$(losetup -f --show "$img") || return 1
      mount.exfat-fuse "$LOOP" "$dir" >/dev/null 2>&1 || return 1 ;;
    ntfs-3g) mkntfs -q -F -f "$img" >/dev/null 2>&1 && ntfs-3g "$img" "$dir" || return 1 ;;
  esac
  $PY "$HERE/fs_probe.py" "$dir" >"$dir.out"
  umount "$dir"
  if [ -n "$LOOP" ]; then losetup -d "$LOOP"; LOOP=""; fi
}

for fs in ext4 fat32 exfat-kernel exfat-fuse ntfs-3g; do
  rm -rf "${BACK:?}"/*
  start_mount -p "$fs+samsung-960evo-250g" --backing "$BACK"
  $PY "$HERE/fs_probe.py" "$MNT" >"$WORK/$fs.out" || fail "$fs: probe failed on the mount"
  stop_mount
  case $fs in
    fat32) expected_kernel_fat 1000000000000000000 "fallocate ok
fallocate-keep-size ok
fallocate-punch ENOTSUP
size-after-fallocate 65536" >"$WORK/$fs.want"
      if ! uml_vfat_available; then
        echo "fat32: user-mode-linux is not installed (run.sh installs it): compared with the sources only"
      # The profile's 32 KiB clusters: FAT32 needs 65525 of them, 2 GiB (sparse).
      elif ! truncate -s 2100M "$WORK/real-fat32.img" || ! mkfs.vfat -F 32 -S 512 -s 64 "$WORK/real-fat32.img" >/dev/null; then
        fail "fat32: could not make the FAT32 image for user-mode Linux"
      else
        uml_rc=0
        uml_vfat "$WORK/real-fat32.img" "$WORK/real-fat32.out" "$PY" "$HERE/fs_probe.py" || uml_rc=$?
        case $uml_rc in
          0)
            diff "$WORK/real-fat32.out" "$WORK/$fs.want" >"$WORK/real-fat32.diff" ||
              fail "fat32: the kernel's vfat answers differently from its sources as read here (< vfat, > sources):
$(cat "$WORK/real-fat32.diff")"
            echo "fat32: the kernel's vfat (Linux $UML_VERSION, user-mode) gives the sources' answers" ;;
          126) echo "fat32: user-mode Linux does not boot on this host kernel ($(uname -r)): compared with the sources only" ;;
          *) fail "fat32: the probe did not run on the kernel's vfat (user-mode Linux, status $uml_rc)" ;;
        esac
      fi ;;
    exfat-kernel) expected_kernel_fat 1000000001120000000 "fallocate ENOTSUP
fallocate-keep-size ENOTSUP
fallocate-punch ENOTSUP
size-after-fallocate 0" >"$WORK/$fs.want" ;;
    *)
      if ! real_probe "$fs"; then
        echo "$fs: the real driver could not be mounted here (loop devices, mkfs): compared with nothing"
        continue
      fi
      cp "$WORK/real-$fs.out" "$WORK/$fs.want" ;;
  esac
  diff "$WORK/$fs.want" "$WORK/$fs.out" >"$WORK/$fs.diff" ||
    fail "$fs: the mount answers differently from the driver (< driver, > mount):
$(cat "$WORK/$fs.diff")"
  echo "$fs: $(grep -c . "$WORK/$fs.out") calls as the driver answers them"
done
finish
