#!/usr/bin/env bash
# Data written through the mount reads back identical from the mount and from
# the backing directory: random sizes and offsets, several files, threads.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

start_mount -p samsung-960evo-250g --backing "$BACK" --seed 3
$PY "$HERE/mount_client.py" roundtrip "$MNT" "$BACK" || fail "round trip through the mount"
# Rename, truncate, unlink pass through.
mv "$MNT/f0" "$MNT/renamed" && [ -f "$BACK/renamed" ] || fail "rename did not reach the backing directory"
truncate -s 1000 "$MNT/renamed" && [ "$(stat -c %s "$BACK/renamed")" = 1000 ] || fail "truncate did not pass through"
mkdir "$MNT/sub" && echo hello >"$MNT/sub/x" && [ "$(cat "$BACK/sub/x")" = hello ] || fail "subdirectory file"
rm "$MNT/renamed" && [ ! -e "$BACK/renamed" ] || fail "unlink did not pass through"
# Metadata through open descriptors (fchmod on a directory, futimens on a file).
$PY -c "
import os, sys
d = os.open(sys.argv[1] + '/sub', os.O_RDONLY | os.O_DIRECTORY); os.fchmod(d, 0o700); os.close(d)
f = os.open(sys.argv[1] + '/sub/x', os.O_RDWR); os.ftruncate(f, 3); os.utime(f, (1000000000, 1000000000)); os.close(f)
" "$MNT" || fail "fchmod/futimens/ftruncate through descriptors"
[ "$(stat -c %a "$BACK/sub")" = 700 ] || fail "fchmod on a directory did not pass through"
[ "$(stat -c %Y:%s "$BACK/sub/x")" = 1000000000:3 ] || fail "futimens/ftruncate did not pass through"
ls "$MNT/sub" | grep -qx x || fail "readdir does not list sub/x"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC after SIGINT"
grep -q "unmounted after" "$WORK/mount.err" || fail "no summary on unmount: $(cat "$WORK/mount.err")"
is_mounted "$MNT" && fail "still mounted after SIGINT"
finish
