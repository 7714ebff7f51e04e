#!/usr/bin/env bash
# The calls recorders make besides write(): O_SYNC/O_DSYNC opens (each write
# followed by a flush in the model), posix_fadvise and sync_file_range
# (accepted), copy_file_range (the copy is read and written through the
# model), fdatasync on a directory, two processes appending to one file.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
C="$HERE/mount_client.py"

start_mount -p samsung-960evo-250g --backing "$BACK" --trace "$WORK/trace.csv"
$PY "$C" syncwrite "$MNT/osync.bin" O_SYNC 20 || fail "O_SYNC writes failed"
$PY "$C" syncwrite "$MNT/odsync.bin" O_DSYNC 20 || fail "O_DSYNC writes failed"
$PY "$C" hints "$MNT/hints.bin" || fail "posix_fadvise/sync_file_range failed"
head -c 3000017 /dev/urandom >"$WORK/src.bin"
cp "$WORK/src.bin" "$MNT/src.bin"
$PY "$C" copy "$MNT/src.bin" "$MNT/copy.bin" || fail "copy_file_range failed"
$PY -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY); os.fdatasync(fd); os.fsync(fd)" "$MNT" ||
  fail "fdatasync/fsync on a directory failed"
$PY "$C" append "$MNT/log.txt" A 500 & a=$!
$PY "$C" append "$MNT/log.txt" B 500 & b=$!
wait $a || fail "appender A failed"
wait $b || fail "appender B failed"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC"

# O_SYNC/O_DSYNC: 20 writes, each followed by its flush in the model.
for f in osync odsync; do
  id=$(stat -c %i "$BACK/$f.bin")
  read -r w s < <(awk -F, -v id="$id" '$4 == id && $3 == "write" { w++ } $4 == id && $3 == "fsync" { s++ } END { print w + 0, s + 0 }' "$WORK/trace.csv")
  [ "$w" -eq 20 ] && [ "$s" -eq 20 ] || fail "$f: $w writes and $s flushes in the trace, expected 20 and 20"
  [ "$(stat -c %s "$BACK/$f.bin")" -eq $((20 * 65536)) ] || fail "$f: wrong size"
done
[ "$(stat -c %s "$BACK/hints.bin")" -eq 1048576 ] || fail "hints.bin: wrong size"
cmp -s "$WORK/src.bin" "$BACK/copy.bin" || fail "copy_file_range: the copy differs"
$PY "$C" coverage "$WORK/trace.csv" "$(stat -c %i "$BACK/copy.bin")" 3000017 >/dev/null || fail "copy.bin: not every byte modelled"
# Two appenders: 1000 whole lines, 500 of each, none torn.
[ "$(grep -c '^A [0-9]\{6\} \.*$' "$BACK/log.txt")" -eq 500 ] || fail "appender A's lines are not all there intact"
[ "$(grep -c '^B [0-9]\{6\} \.*$' "$BACK/log.txt")" -eq 500 ] || fail "appender B's lines are not all there intact"
[ "$(stat -c %s "$BACK/log.txt")" -eq 100000 ] || fail "log.txt is $(stat -c %s "$BACK/log.txt") bytes, expected 100000"
finish
