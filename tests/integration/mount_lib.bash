# Helpers for tests that mount `streamdisk mount` (source after ../lib.sh).
# Every test gets its own temp dir; the EXIT trap always unmounts and ends
# the daemon, even when the test fails; a test killed outright (SIGKILL skips
# the trap) is cleaned up by the next one (sweep_stale_mounts).
# Whether something is mounted on $1 (also a dead FUSE mount, where
# `mountpoint` fails with "Transport endpoint is not connected").
# (/proc/self/mounts writes a space in a path as \040, a tab as \011)
is_mounted() { awk -v m="$1" 'BEGIN { gsub(/ /, "\\040", m); gsub(/\t/, "\\011", m) } $2 == m { f = 1 } END { exit !f }' /proc/self/mounts; }
# proc_start PID: the process's start time (/proc/PID/stat field 22), empty
# when it is gone; with the PID it names one process even after PID reuse.
proc_start() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  set -- ${s##*) }  # fields 3... (the name in parentheses may hold spaces)
  echo "${20}"
}
# Every test's temp dir is ROOT/sd-mount-test.XXXXXX, with its owner (the
# test's shell: "PID START") in it. The EXIT trap unmounts, but a SIGKILL (a
# killed ctest) skips it and leaves the daemon running and its mount behind.
SD_MOUNT_TEST_ROOT=${SD_MOUNT_TEST_ROOT:-/tmp}
# sweep_stale_mounts [ROOT]: unmounts each fuse.streamdisk mount inside a
# ROOT/sd-mount-test.* dir whose owner is gone (the daemon then exits), and
# removes that dir once nothing is mounted in it. Mounts of any other type,
# elsewhere, of a live owner, or in a dir without an owner file stay.
sweep_stale_mounts() {
  local root=${1:-$SD_MOUNT_TEST_ROOT} mnt type dir pid start stale=() m
  while read -r _ mnt type _; do
    [ "$type" = fuse.streamdisk ] || continue
    mnt=$(printf '%b' "$mnt")  # the table's \040 (a space) and \011 (a tab)
    case $mnt in "$root"/sd-mount-test.*/*) ;; *) continue ;; esac
    dir=${mnt#"$root"/}; dir=$root/${dir%%/*}
    read -r pid start 2>/dev/null <"$dir/owner" || continue
    [ -n "$pid" ] && [ "$(proc_start "$pid")" = "$start" ] && continue
    stale+=("$mnt")
  done </proc/self/mounts
  for m in "${stale[@]}"; do
    echo "mount_lib: unmounting $m, left by a test that is gone" >&2
    fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    dir=${m#"$root"/}; dir=$root/${dir%%/*}
    # Its daemon (start_mount's "PID START") exits once unmounted: wait for
    # it, so that it writes nothing more into the dir.
    if read -r pid start 2>/dev/null <"$dir/daemon"; then
      for _ in $(seq 50); do [ "$(proc_start "$pid")" = "$start" ] || break; sleep 0.1; done
      [ "$(proc_start "$pid")" = "$start" ] && kill -KILL "$pid"
    fi
    awk -v d="$dir/" 'index($2, d) == 1 { f = 1 } END { exit f }' /proc/self/mounts && rm -rf "$dir"
  done
  return 0
}
# Mount tests measure time and run FUSE workers and clients at real-time
# priority; on a 2-core machine two of them at once disturb each other's
# timing, so they take turns (ctest -j runs them in parallel otherwise).
# The sweep comes first: a stale mount's daemon may be what holds the lock.
sweep_stale_mounts
exec 9>"${TMPDIR:-/tmp}/streamdisk-mount-tests.lock"
flock -w 280 9 || { echo "another mount test held the lock for 280 s" >&2; exit 1; }
WORK=$(mktemp -d "$SD_MOUNT_TEST_ROOT/sd-mount-test.XXXXXX")
echo "$$ $(proc_start $$)" >"$WORK/owner"
MNT=$WORK/mnt
BACK=$WORK/back
mkdir -p "$MNT" "$BACK"
MOUNT_PID=""
EXTRA_UMOUNTS=()
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
  # A mount left from before would pass the wait below at once.
  if is_mounted "$MNT"; then echo "start_mount: $MNT is still mounted from before" >&2; exit 1; fi
  # 9>&-: the daemon must not hold the test lock (it outlives a killed test).
  "$STREAMDISK" mount -q "$@" "$MNT" >"$WORK/mount.out" 2>"$WORK/mount.err" 9>&- &
  MOUNT_PID=$!
  echo "$MOUNT_PID $(proc_start $MOUNT_PID)" >"$WORK/daemon"
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
