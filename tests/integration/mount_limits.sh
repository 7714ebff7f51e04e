#!/usr/bin/env bash
# The emulated device's limits are real: statfs reports the emulated capacity
# and free space (after --prefill), a write past the free space fails with
# ENOSPC at the cluster boundary, and the filesystem layer's file-size limit
# fails with EFBIG at exactly max_file_bytes; on every built-in filesystem
# profile (their cluster size and file limit overridden to the same values).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

cap=$((64 * 1048576)) cluster=32768 maxfile=5000000
for fs in ext4 fat32 exfat-kernel exfat-fuse ntfs-3g; do
rm -rf "${BACK:?}"/*
start_mount -p "$fs+samsung-960evo-250g" --backing "$BACK" --capacity "$cap" --prefill 50% \
  --set filesystem.cluster_bytes=$cluster --set filesystem.max_file_bytes=$maxfile

# statfs: blocks x fragment size = capacity; free = capacity - prefill.
read -r blocks bfree frsize < <(stat -f -c '%b %f %S' "$MNT")
[ $((blocks * frsize)) -eq $cap ] || fail "$fs: statfs capacity $((blocks * frsize)), expected $cap"
[ $((bfree * frsize)) -eq $((cap / 2)) ] || fail "$fs: statfs free $((bfree * frsize)), expected $((cap / 2))"

# EFBIG: a file stops at exactly max_file_bytes (1 MiB writes, the last one short).
read -r n err < <($PY "$HERE/mount_client.py" fill "$MNT/big" 1048576)
[ "$err" = EFBIG ] || fail "$fs: expected EFBIG, got $err after $n bytes"
[ "$n" -eq $maxfile ] || fail "$fs: EFBIG after $n bytes, expected $maxfile"
[ "$(stat -c %s "$BACK/big")" -eq $maxfile ] || fail "backing file is $(stat -c %s "$BACK/big") bytes"

# ENOSPC: files of 4 MB (under the size limit) until the device is full. The
# free space left is whole clusters: capacity/2 minus the clusters of 'big'.
big_clusters=$(((maxfile + cluster - 1) / cluster))
free=$((cap / 2 - big_clusters * cluster))
total=0 i=0 err=""
while [ -z "$err" ] || [ "$err" = EFBIG ]; do
  read -r n err < <($PY "$HERE/mount_client.py" fill "$MNT/part$i" 1000000)
  total=$((total + n)); i=$((i + 1))
  [ "$i" -lt 20 ] || break
done
[ "$err" = ENOSPC ] || fail "$fs: expected ENOSPC, got $err after $total bytes"
# Every file but the last ends at max_file_bytes (EFBIG) in whole clusters;
# the last one ends at the cluster boundary where free space runs out.
full=$((i - 1))
expect=$((full * maxfile + free - full * big_clusters * cluster))
[ "$total" -eq "$expect" ] || fail "$fs: ENOSPC after $total bytes in $i files, expected $expect"
read -r bfree < <(stat -f -c '%f' "$MNT")
[ "$bfree" -eq 0 ] || fail "statfs reports $bfree free blocks on a full device"

# Deleting a file gives its clusters back.
rm "$MNT/part0"
sleep 0.2
read -r bfree < <(stat -f -c '%f' "$MNT")
[ "$bfree" -eq "$big_clusters" ] || fail "$fs: after rm: $bfree free clusters, expected $big_clusters"
stop_mount
grep -q "ENOSPC [1-9]" "$WORK/mount.err" || fail "$fs: summary does not count ENOSPC: $(cat "$WORK/mount.err")"
echo "$fs: EFBIG at $maxfile, ENOSPC at $total bytes in $i files"
done
finish
