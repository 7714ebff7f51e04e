# Helpers for tests that mount `streamdisk mount` (source after ../lib.sh).
# Every test gets its own temp dir; the EXIT trap always unmounts and ends
# the daemon, even when the test fails.
WORK=$(mktemp -d /tmp/sd-mount-test.XXXXXX)
MNT=$WORK/mnt
BACK=$WORK/back
mkdir -p "$MNT" "$BACK"
MOUNT_PID=""
EXTRA_UMOUNTS=()
# Whether something is mounted on $1 (also a dead FUSE mount, where
# `mountpoint` fails with "Transport endpoint is not connected").
is_mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; }
mount_cleanup() {
  if is_mounted "$MNT"; then fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; fi
  if [ -n "$MOUNT_PID" ]; then kill "$MOUNT_PID" 2>/dev/null; wait "$MOUNT_PID" 2>/dev/null; fi
  for m in "${EXTRA_UMOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
  rm -rf "$WORK"
}
trap mount_cleanup EXIT
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# start_mount ARGS...: mounts on $MNT in the background, waits until mounted.
start_mount() {
  "$STREAMDISK" mount -q "$@" "$MNT" >"$WORK/mount.out" 2>"$WORK/mount.err" &
  MOUNT_PID=$!
  for _ in $(seq 100); do
    is_mounted "$MNT" && return 0
    kill -0 "$MOUNT_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "mount did not come up: $(cat "$WORK/mount.err")" >&2
  exit 1
}

# stop_mount: SIGINT, waits for a clean exit; sets MOUNT_RC.
stop_mount() {
  kill -INT "$MOUNT_PID"
  for _ in $(seq 100); do kill -0 "$MOUNT_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$MOUNT_PID" 2>/dev/null; then fail "mount did not exit within 10 s of SIGINT"; kill -TERM "$MOUNT_PID"; fi
  wait "$MOUNT_PID"
  MOUNT_RC=$?
  MOUNT_PID=""
}

# A profile with modest, known rates (built-in device plus overrides): each
# request takes milliseconds, so the FUSE round trip on a loaded 2-core
# machine (0.1-0.5 ms) stays a small part of it.
SLOW_SETS=(--set device.burst_bytes=0 --set device.sustained_mbps=20 --set device.op_overhead_us=2000)
# Clients that measure rates run at real-time priority when allowed, like
# the mount's workers with --realtime, so other load does not delay them.
RT=()
chrt -f 1 true 2>/dev/null && RT=(chrt -f 1)
