#!/usr/bin/env bash
# Lifecycle: SIGTERM unmounts cleanly with a summary; SIGKILL leaves no mount
# behind (auto_unmount); `fusermount3 -u` ends the daemon.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

wait_unmounted() {
  for _ in $(seq 300); do is_mounted "$MNT" || return 0; sleep 0.1; done
  return 1
}

# Status line (without -q) once a second, summary and --json summary.
"$STREAMDISK" mount -p samsung-960evo-250g --backing "$BACK" --json "$MNT" >"$WORK/mount.out" 2>"$WORK/mount.err" &
MOUNT_PID=$!
for _ in $(seq 100); do is_mounted "$MNT" && break; sleep 0.1; done
echo x >"$MNT/a"
dd if=/dev/zero of="$MNT/z" bs=64k count=10 status=none
sleep 2.2
kill -TERM "$MOUNT_PID"; wait "$MOUNT_PID"; rc=$?; MOUNT_PID=""
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
grep -q "unmounted after" "$WORK/mount.err" || fail "no summary after SIGTERM"
[ "$(grep -c "written .* MB/s .*waiting" "$WORK/mount.err")" -ge 2 ] || fail "no status line each second: $(cat "$WORK/mount.err")"
written=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['bytes_written'])" "$WORK/mount.out") \
  || fail "--json summary is not JSON: $(cat "$WORK/mount.out")"
[ "$written" = $((2 + 655360)) ] || fail "--json summary: bytes_written $written, expected $((2 + 655360))"
is_mounted "$MNT" && fail "still mounted after SIGTERM"

# A writer is mid-request (parked) when the daemon dies. Several times: the
# dead mount was left behind now and then on a loaded machine while the
# /dev/fuse descriptor sat below fusermount3's socket (fusefs/channel.cpp).
for round in 1 2 3 4 5; do
  start_mount -p samsung-960evo-250g --backing "$BACK"
  dd if=/dev/zero of="$MNT/b" bs=1M count=4000 status=none 2>/dev/null &
  writer=$!
  sleep 0.$((round * 2 - 1))
  kill -KILL "$MOUNT_PID"; wait "$MOUNT_PID" 2>/dev/null; MOUNT_PID=""
  if ! wait_unmounted; then
    fail "round $round: mount point still mounted 30 s after SIGKILL (auto_unmount); fusermount3 helpers: $(pgrep -a fusermount3 | tr '\n' ';')"
    fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
  fi
  wait "$writer" 2>/dev/null
  rm -f "$BACK/b"
done
[ -f "$BACK/a" ] || fail "backing files lost"

# Without its auto_unmount helper a killed daemon leaves a dead mount: a new
# mount on it is refused with the fix (stat there fails with ENOTCONN).
start_mount -p samsung-960evo-250g --backing "$BACK"
helper=$(pgrep -P "$MOUNT_PID" fusermount3)
[ -n "$helper" ] || fail "no fusermount3 helper under the daemon"
kill -KILL $helper "$MOUNT_PID"; wait "$MOUNT_PID" 2>/dev/null; MOUNT_PID=""
sleep 0.5
if is_mounted "$MNT"; then
  "$STREAMDISK" mount -q -p samsung-960evo-250g --backing "$BACK" "$MNT" 2>"$WORK/dead.err"; rc=$?
  [ "$rc" -eq 2 ] || fail "mount on a dead mount: exit status $rc, expected 2"
  grep -q "is a dead FUSE mount .*fusermount3 -u $MNT" "$WORK/dead.err" || fail "mount on a dead mount: $(cat "$WORK/dead.err")"
  fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
else
  fail "the mount went away without its helper"
fi

start_mount -p samsung-960evo-250g --backing "$BACK"
fusermount3 -u "$MNT" || fail "fusermount3 -u failed"
for _ in $(seq 100); do kill -0 "$MOUNT_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$MOUNT_PID" 2>/dev/null && fail "daemon still running after fusermount3 -u"
wait "$MOUNT_PID"; rc=$?; MOUNT_PID=""
[ "$rc" -eq 0 ] || fail "exit status $rc after fusermount3 -u"
finish
