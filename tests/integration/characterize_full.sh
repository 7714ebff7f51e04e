#!/usr/bin/env bash
# characterize meets ENOSPC in the middle of a phase (the device holds less
# than statvfs said when the run began: here another writer fills the tmpfs
# once the run has started): one line on stderr naming the problem and the
# fix, exit status 2, every test file removed, no profile written.
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d /tmp/sd-characterize-full.XXXXXX)
MNT=$T/mnt
FILLER=""
cleanup() {
  [ -n "$FILLER" ] && kill "$FILLER" 2>/dev/null && wait "$FILLER" 2>/dev/null
  umount "$MNT" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$MNT"
mount -t tmpfs -o size=300M tmpfs "$MNT" || skip "cannot mount a tmpfs here"

# The other writer: once characterize's first test file appears, fill what is left,
# and keep taking whatever space frees up until characterize has ended. (One dd was
# not enough: characterize's first phase writes at GB/s on tmpfs and could take the
# space first; dd then stopped at ENOSPC and the space characterize freed after its
# phase stayed free, so it finished cleanly. Seen in 1 run of 3.)
( for _ in $(seq 300); do ls "$MNT" | grep -q streamdisk-characterize && break; sleep 0.1; done
  while [ ! -e "$T/done" ]; do
    dd if=/dev/zero bs=1M 2>/dev/null >>"$MNT/other-writer"
    sleep 0.01
  done ) &
FILLER=$!
"$STREAMDISK" characterize "$MNT" -o "$T/p.toml" --budget 30s --idle 1s >"$T/out" 2>"$T/err"
rc=$?
touch "$T/done"
wait "$FILLER"
FILLER=""
# A busy machine (CI builds beside the tests) adds characterize's warning
# about it before the first write; the error itself is one line.
msg=$(grep -v '^streamdisk: warning: other processes kept' "$T/err")
[ "$rc" -eq 2 ] || fail "exit status $rc after ENOSPC, expected 2 (stderr: $msg)"
[ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] || fail "expected one line on stderr, got: $msg"
grep -q "filled up (ENOSPC) in the .* phase.*free some space" <<<"$msg" || fail "unclear message: $msg"
[ ! -s "$T/out" ] || fail "printed a result after ENOSPC: $(head -3 "$T/out")"
[ ! -e "$T/p.toml" ] || fail "a profile was written after ENOSPC"
left=$(ls -A "$MNT" | grep -v '^other-writer$')
[ -z "$left" ] || fail "test files left after ENOSPC: $left"
finish
