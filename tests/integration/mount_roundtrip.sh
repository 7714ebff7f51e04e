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
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited with $MOUNT_RC after SIGINT"
grep -q "unmounted after" "$WORK/mount.err" || fail "no summary on unmount: $(cat "$WORK/mount.err")"
is_mounted "$MNT" && fail "still mounted after SIGINT"
finish
