#!/usr/bin/env bash
# Shared writable mappings work through the mount and are charged: a file
# filled through mmap reaches the backing file intact, every byte of it
# reached the model as a write with a modelled time (the trace shows it),
# and a shared read-only mapping reads it back. Once with the kernel's
# FUSE_DIRECT_IO_ALLOW_MMAP (Linux 6.6+), once with the page-cache fallback
# for older kernels (STREAMDISK_MOUNT_DIO_MMAP=0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

size=$((4 * 1048576 + 12345))  # not a whole number of pages
for mode in dio-mmap page-cache; do
  rm -rf "${BACK:?}"/* "$WORK/trace.csv"
  if [ "$mode" = page-cache ]; then export STREAMDISK_MOUNT_DIO_MMAP=0; fi
  start_mount -p samsung-960evo-250g --backing "$BACK" --trace "$WORK/trace.csv" "${SLOW_SETS[@]}"
  read -r secs sum < <($PY "$HERE/mount_client.py" mmapwrite "$MNT/mapped.bin" "$size" 7) ||
    fail "$mode: mmap writer failed"
  [ "$(stat -c %s "$BACK/mapped.bin")" -eq "$size" ] || fail "$mode: backing file is $(stat -c %s "$BACK/mapped.bin") bytes"
  [ "$(sha256sum <"$BACK/mapped.bin" | cut -d' ' -f1)" = "$sum" ] || fail "$mode: backing file differs from what was mapped"
  [ "$($PY "$HERE/mount_client.py" mapread "$MNT/mapped.bin")" = "$sum" ] || fail "$mode: shared read-only map reads wrong data"
  # 4 MiB at 20 MB/s is 0.21 s in the model: a writer that took less did not wait for it.
  $PY -c "import sys; sys.exit(float(sys.argv[1]) < 0.2)" "$secs" || fail "$mode: 4 MiB through mmap took $secs s, under the model's 0.21 s"
  id=$(stat -c %i "$BACK/mapped.bin")
  stop_mount
  unset STREAMDISK_MOUNT_DIO_MMAP
  [ "$MOUNT_RC" -eq 0 ] || fail "$mode: mount exited with $MOUNT_RC"
  $PY "$HERE/mount_client.py" coverage "$WORK/trace.csv" "$id" "$size" >/dev/null || fail "$mode: trace does not cover the mapped file"
  echo "$mode: 4 MiB through mmap in $secs s"
done
finish
