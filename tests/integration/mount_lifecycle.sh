#!/usr/bin/env bash
# Lifecycle: SIGTERM unmounts cleanly with a summary; SIGKILL leaves no mount
# behind (auto_unmount); `fusermount3 -u` ends the daemon.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

wait_unmounted() {
  for _ in $(seq 100); do is_mounted "$MNT" || return 0; sleep 0.1; done
  return 1
}

start_mount -p samsung-960evo-250g --backing "$BACK"
echo x >"$MNT/a"
kill -TERM "$MOUNT_PID"; wait "$MOUNT_PID"; rc=$?; MOUNT_PID=""
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
grep -q "unmounted after" "$WORK/mount.err" || fail "no summary after SIGTERM"
is_mounted "$MNT" && fail "still mounted after SIGTERM"

start_mount -p samsung-960evo-250g --backing "$BACK"
# A writer is mid-request (parked) when the daemon dies.
dd if=/dev/zero of="$MNT/b" bs=1M count=4000 status=none 2>/dev/null &
writer=$!
sleep 0.5
kill -KILL "$MOUNT_PID"; wait "$MOUNT_PID" 2>/dev/null; MOUNT_PID=""
wait_unmounted || fail "mount point still mounted 10 s after SIGKILL (auto_unmount)"
wait "$writer" 2>/dev/null
[ -f "$BACK/a" ] || fail "backing files lost"

start_mount -p samsung-960evo-250g --backing "$BACK"
fusermount3 -u "$MNT" || fail "fusermount3 -u failed"
for _ in $(seq 100); do kill -0 "$MOUNT_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$MOUNT_PID" 2>/dev/null && fail "daemon still running after fusermount3 -u"
wait "$MOUNT_PID"; rc=$?; MOUNT_PID=""
[ "$rc" -eq 0 ] || fail "exit status $rc after fusermount3 -u"
finish
