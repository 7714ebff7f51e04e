#!/usr/bin/env bash
# A mount test killed with SIGKILL (its EXIT trap never runs) leaves its
# daemon and its fuse.streamdisk mount behind; the next mount test's start
# (mount_lib.bash's sweep_stale_mounts) unmounts them, ends the daemon and
# removes the dir, and touches nothing else: not a live test's mount, not a
# mount of another type, not a mount outside the tests' temp root.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
ROOT=$WORK/root        # the temp root of the tests run here (SD_MOUNT_TEST_ROOT)
OTHER=$WORK/elsewhere  # another root: its mounts are not ROOT's sweep's business
mkdir -p "$ROOT" "$OTHER" "$WORK/lock-next"
LIVE_PID=""
sweep_cleanup() {
  # Release the live test (a timeout: a fifo without a reader blocks the writer).
  [ -n "$LIVE_PID" ] && { timeout 10 bash -c 'echo >"$1"' _ "$WORK/go"; wait "$LIVE_PID"; }
  sweep_stale_mounts "$ROOT" 2>/dev/null
  sweep_stale_mounts "$OTHER" 2>/dev/null
  for m in $(awk -v d="$WORK/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts); do umount -l "$m"; done
  mount_cleanup
}
trap sweep_cleanup EXIT

# child ROOT NAME BODY: a mount test of its own (temp root ROOT, lock file in
# $WORK/lock-NAME) started in the background: it mounts, writes a file, puts
# "WORK DAEMON-PID" in $WORK/NAME.out, then runs BODY.
child() {
  mkdir -p "$WORK/lock-$2"
  TMPDIR=$WORK/lock-$2 SD_MOUNT_TEST_ROOT=$1 bash -c '
    . "$SD_SOURCE_DIR/tests/lib.sh"; . "$SD_SOURCE_DIR/tests/integration/mount_lib.bash"
    start_mount -p samsung-960evo-250g --backing "$BACK"
    echo x >"$MNT/take1.wav"
    echo "$WORK $MOUNT_PID" >"'"$WORK/$2.out"'"
    '"$3" &
}
# killed_test ROOT NAME: a test that mounts and is killed with SIGKILL; sets KWORK and KDAEMON.
killed_test() {
  child "$1" "$2" 'kill -KILL $$'
  wait $! 2>/dev/null
  read -r KWORK KDAEMON <"$WORK/$2.out" || { fail "the killed test did not mount"; exit 1; }
  is_mounted "$KWORK/mnt" || fail "the killed test's mount is gone before any sweep (nothing to test)"
  kill -0 "$KDAEMON" 2>/dev/null || fail "the killed test's daemon is gone before any sweep (nothing to test)"
}
SD_SOURCE_DIR=${SD_SOURCE_DIR:-$(cd "$HERE/../.." && pwd)}
export SD_SOURCE_DIR

# 1. A live test under ROOT, mounted, waiting for $WORK/go (first: every test's
# start sweeps, and the stale mount must wait for "the next test" below).
mkfifo "$WORK/go"
child "$ROOT" live 'read -r _ <"'"$WORK"'/go"'
LIVE_PID=$!
LIVE_WORK=""
for _ in $(seq 100); do read -r LIVE_WORK _ 2>/dev/null <"$WORK/live.out" && break; sleep 0.1; done
[ -n "$LIVE_WORK" ] && is_mounted "$LIVE_WORK/mnt" || { fail "the live test did not mount"; exit 1; }
# 2. A killed test under ROOT.
killed_test "$ROOT" stale; STALE_WORK=$KWORK STALE_DAEMON=$KDAEMON
# Its daemon does not hold the test lock (start_mount closes it): the next test can start.
flock -n "$WORK/lock-stale/streamdisk-mount-tests.lock" true || fail "the killed test's daemon holds the mount-test lock"
# 3. The same under another root.
killed_test "$OTHER" else; ELSE_WORK=$KWORK ELSE_DAEMON=$KDAEMON
# 4. A tmpfs in a dead test's dir under ROOT.
TMPFS_WORK=$ROOT/sd-mount-test.tmpfs
mkdir -p "$TMPFS_WORK/mnt"
echo "$KDAEMON 1" >"$TMPFS_WORK/owner"  # no such process started at tick 1
mount -t tmpfs -o size=1m none "$TMPFS_WORK/mnt" || fail "cannot mount a tmpfs"

# The next mount test under ROOT starts: it sweeps.
TMPDIR=$WORK/lock-next SD_MOUNT_TEST_ROOT=$ROOT bash -c '
  . "$SD_SOURCE_DIR/tests/lib.sh"; . "$SD_SOURCE_DIR/tests/integration/mount_lib.bash"; echo "$WORK" >"'"$WORK"'/next.out"' \
  2>"$WORK/next.err" || fail "the next test could not start: $(cat "$WORK/next.err")"
grep -q "unmounting $STALE_WORK/mnt, left by a test that is gone" "$WORK/next.err" ||
  fail "the next test did not say it swept $STALE_WORK/mnt: $(cat "$WORK/next.err")"
[ "$(grep -c unmounting "$WORK/next.err")" -eq 1 ] || fail "the sweep unmounted more than the stale mount: $(cat "$WORK/next.err")"
is_mounted "$STALE_WORK/mnt" && fail "the killed test's mount is still there"
for _ in $(seq 50); do kill -0 "$STALE_DAEMON" 2>/dev/null || break; sleep 0.1; done
kill -0 "$STALE_DAEMON" 2>/dev/null && fail "the killed test's daemon still runs after the sweep"
[ -e "$STALE_WORK" ] && fail "the killed test's dir $STALE_WORK is still there"
[ -e "$(cat "$WORK/next.out")" ] && fail "the next test did not clean up its own dir"
# What was not stale, or not ours, is untouched.
is_mounted "$LIVE_WORK/mnt" && [ "$(cat "$LIVE_WORK/mnt/take1.wav")" = x ] || fail "the live test's mount was touched"
is_mounted "$TMPFS_WORK/mnt" || fail "the tmpfs in a dead test's dir was unmounted"
[ -e "$TMPFS_WORK/owner" ] || fail "the dir holding a tmpfs was removed"
is_mounted "$ELSE_WORK/mnt" && kill -0 "$ELSE_DAEMON" 2>/dev/null || fail "a mount outside the temp root was touched"

# The live test ends normally; the other root's sweep takes its stale mount.
echo >"$WORK/go"; wait "$LIVE_PID" || fail "the live test failed"; LIVE_PID=""
is_mounted "$LIVE_WORK/mnt" && fail "the live test left its mount"
sweep_stale_mounts "$OTHER" 2>/dev/null
is_mounted "$ELSE_WORK/mnt" && fail "sweep_stale_mounts $OTHER left the stale mount there"
for _ in $(seq 50); do kill -0 "$ELSE_DAEMON" 2>/dev/null || break; sleep 0.1; done
kill -0 "$ELSE_DAEMON" 2>/dev/null && fail "the stale daemon under $OTHER still runs"
umount "$TMPFS_WORK/mnt"
finish
