# For the CI tests that run streamdisk on a test rig (source after tests/lib.sh).
# rig_test_setup NAME TOOL: needs root and TOOL (the rig's filesystem driver,
# else the test is skipped); takes turns with the mount tests (their lock, see
# tests/integration/mount_lib.bash: timing tests); W is a new temporary
# directory; on exit the rig in $W/rig is brought down (rig.sh restores
# vm.dirty_*) and W removed, also when the test fails.
rig_test_setup() {
  RIG=$SD_SOURCE_DIR/tests/rig
  [ "$(id -u)" -eq 0 ] || { echo "FAIL: the rig test needs root (losetup, mount, vm.dirty_*)" >&2; exit 1; }
  command -v "$2" >/dev/null || skip "$2 is not installed"
  exec 9>"${TMPDIR:-/tmp}/streamdisk-mount-tests.lock"
  flock -w 280 9 || { echo "another mount test held the lock for 280 s" >&2; exit 1; }
  W=$(mktemp -d "/tmp/sd-$1.XXXXXX")
  export RIG_WAIT_S=120
  # SD_KEEP_WORK=DIR keeps a copy of the work directory (traces, logs) for a look after the test
  trap '"$RIG/rig.sh" down "$W/rig"; [ -z "${SD_KEEP_WORK:-}" ] || cp -r "$W" "$SD_KEEP_WORK"; rm -rf "$W"' EXIT
}
