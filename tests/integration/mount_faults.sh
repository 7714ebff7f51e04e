#!/usr/bin/env bash
# Faults through the mount (docs/faults.md), seen by real programs:
#   - EIO at a chosen byte reaches dd at that byte, and the trace records it;
#   - ENOSPC at a chosen byte ends a writer there;
#   - `record` stops with the error at the byte the fault names;
#   - a latency spike added at run time (`streamdisk fault`) shows in the
#     writer's own timing of that write, and not in the next ones;
#   - a pulled device (gone) fails every later call, and the mount still
#     unmounts cleanly;
#   - bad specs: one line, exit 2, at mount time and at run time;
#   - `fault` on a mount point whose name has a space.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"

expect_bad_input "mount --fault bogus" "unknown fault 'bogus'" -- mount -p samsung-960evo-250g --backing "$BACK" \
  --fault bogus "$MNT"
expect_bad_input "mount --fault powerloss,for=" "a device that is gone stays gone" -- mount -p samsung-960evo-250g \
  --backing "$BACK" --fault powerloss@10s,for=2s "$MNT"
is_mounted "$MNT" && fail "a bad --fault mounted anyway"

start_mount -p samsung-960evo-250g --backing "$BACK" --trace "$WORK/trace.csv" \
  --fault 'eio:write@3000000B,file=a.*' --fault 'enospc@5MB,file=b.*' --fault 'eio:write@1MB,file=rec*' \
  --fault 'eio:write@2MiB,file=f.*'

# EIO at byte 3000000: dd copies exactly that much, then reports the error.
dd if=/dev/zero of="$MNT/a.dat" bs=1M count=10 2>"$WORK/dd.err" && fail "dd through an EIO fault succeeded"
grep -q "Input/output error" "$WORK/dd.err" || fail "dd did not see EIO: $(cat "$WORK/dd.err")"
grep -q "^3000000 bytes" "$WORK/dd.err" || fail "dd did not stop at byte 3000000: $(cat "$WORK/dd.err")"
[ "$(stat -c %s "$BACK/a.dat")" -eq 3000000 ] || fail "a.dat holds $(stat -c %s "$BACK/a.dat") bytes, not 3000000"

# fio: the same, with its own accounting (error 5 = EIO after 2 MiB).
fio --name=f --filename="$MNT/f.dat" --rw=write --bs=256k --size=8M --direct=1 --ioengine=psync \
  --fallocate=none --output-format=json --output="$WORK/fio.json" >"$WORK/fio.err" 2>&1
[ "$(jq -r '.jobs[0].error' "$WORK/fio.json")" = 5 ] || fail "fio error $(jq -r '.jobs[0].error' "$WORK/fio.json"), expected 5 (EIO): $(cat "$WORK/fio.err")"
[ "$(jq -r '.jobs[0].write.io_bytes' "$WORK/fio.json")" -eq 2097152 ] ||
  fail "fio wrote $(jq -r '.jobs[0].write.io_bytes' "$WORK/fio.json") bytes before EIO, expected 2097152"

# ENOSPC at 5 MB for a writer of 1 MB blocks (mount_client.py fill).
read -r n err < <($PY "$HERE/mount_client.py" fill "$MNT/b.dat" 1000000)
[ "$err" = ENOSPC ] && [ "$n" -eq 5000000 ] || fail "b.dat: $err after $n bytes, expected ENOSPC after 5000000"

# record stops with EIO at byte 1 MB of its file.
out=$("$STREAMDISK" record "$MNT" -c 2 -r 48k -b 16 -f raw -d 20s --json 2>"$WORK/rec.err")
rc=$?
[ "$rc" -le 1 ] || fail "record: exit $rc: $(cat "$WORK/rec.err")"
jq -r .stopped_reason <<<"$out" | grep -q EIO || fail "record did not stop with EIO: $out $(cat "$WORK/rec.err")"
[ "$(stat -c %s "$BACK/rec.raw" 2>/dev/null || echo 0)" -eq 1000000 ] ||
  fail "rec.raw holds $(stat -c %s "$BACK/rec.raw" 2>/dev/null) bytes, not 1000000"

# simulate with the same fault agrees: the same bytes, the error at the same
# time of the recording (the mount's usual tolerance: well under a block).
sim=$("$STREAMDISK" simulate -p samsung-960evo-250g -c 2 -r 48k -b 16 -f raw -d 20s --fault 'eio:write@1MB,file=rec*' --json)
[ "$(jq -r '.files[0].bytes' <<<"$sim")" = 1000000 ] || fail "simulate: rec.raw $(jq -r '.files[0].bytes' <<<"$sim") bytes"
echo "EIO at 1 MB: record through the mount stopped at $(jq -r .stopped_s <<<"$out") s, simulate at $(jq -r .stopped_s <<<"$sim") s"
awk -v a="$(jq -r .stopped_s <<<"$out")" -v b="$(jq -r .stopped_s <<<"$sim")" 'BEGIN { d = a - b; exit !(d < 0.1 && d > -0.1) }' ||
  fail "record through the mount stopped at $(jq -r .stopped_s <<<"$out") s, simulate at $(jq -r .stopped_s <<<"$sim") s"

# A 1.5 s latency spike added at run time: the first write of c.dat takes it.
"$STREAMDISK" fault "$MNT" 'delay=1500ms:write,file=c.*' >/dev/null || fail "streamdisk fault: exit $?"
times=$($PY - "$MNT/c.dat" <<'EOF'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(4):
    t = time.monotonic()
    os.write(fd, b"x" * 65536)
    print(f"{time.monotonic() - t:.3f}")
os.close(fd)
EOF
)
read -r t1 t2 t3 t4 <<<"$(echo $times)"
echo "1.5 s spike: writes took $t1 $t2 $t3 $t4 s"
awk -v a="$t1" 'BEGIN { exit !(a >= 1.45 && a < 3.0) }' || fail "spiked write took $t1 s, expected about 1.5 s"
for t in "$t2" "$t3" "$t4"; do
  awk -v a="$t" 'BEGIN { exit !(a < 0.5) }' || fail "a write after the spike took $t s"
done
expect_bad_input "fault bogus" "unknown fault 'bogus'" -- fault "$MNT" bogus
expect_bad_input "fault on a plain directory" "not a running .streamdisk mount." -- fault "$WORK" eio

# A create that fails (at run time, for one file pattern): the program gets
# EROFS and the backing directory keeps nothing.
"$STREAMDISK" fault "$MNT" 'erofs:create,file=ro.*' >/dev/null || fail "streamdisk fault erofs: exit $?"
err=$({ echo x >"$MNT/ro.txt"; } 2>&1) && fail "create with an EROFS fault succeeded"
grep -q "Read-only file system" <<<"$err" || fail "create with an EROFS fault: $err"
[ -e "$BACK/ro.txt" ] && fail "the failed create left ro.txt in the backing directory"
echo fine >"$MNT/rw.txt" || fail "a create the pattern does not match failed"

# The device is pulled: every later call fails; the mount still unmounts.
echo before >"$MNT/d.txt" || fail "cannot write before the device is gone"
"$STREAMDISK" fault "$MNT" gone >/dev/null || fail "streamdisk fault gone: exit $?"
{ echo x >"$MNT/e.txt"; } 2>/dev/null && fail "create after gone succeeded"
ls "$MNT" >/dev/null 2>&1 && fail "ls after gone succeeded"
cat "$MNT/d.txt" >/dev/null 2>&1 && fail "read after gone succeeded"
stat "$MNT/d.txt" >/dev/null 2>&1 && fail "stat after gone succeeded"
stop_mount
[ "$MOUNT_RC" -eq 0 ] || fail "mount exited $MOUNT_RC after the device was gone: $(cat "$WORK/mount.err")"
is_mounted "$MNT" && fail "still mounted after stop"
[ -e "$BACK/e.txt" ] && fail "a file was created after the device was gone"

# The trace records the faults: the header names them, a row has the EIO at 3000000.
grep -q "^# fault1=eio:write@3000000B,file=a.\*$" "$WORK/trace.csv" || fail "trace header lacks the fault"
awk -F, '$3 == "write" && $5 == 3000000 && $10 == "EIO"' "$WORK/trace.csv" | grep -q . ||
  fail "trace has no EIO write at offset 3000000"
awk -F, '$3 == "write" && $10 == "ENOSPC" && $5 == 5000000' "$WORK/trace.csv" | grep -q . ||
  fail "trace has no ENOSPC write at offset 5000000"
grep -q "fault events [1-9]" "$WORK/mount.err" || fail "summary does not count fault events: $(cat "$WORK/mount.err")"

# On a filesystem without extended attributes, a program's setxattr fails as on
# the driver, and the control (an attribute itself) still works afterwards.
rm -rf "${BACK:?}"/*
start_mount -p exfat-fuse+samsung-960evo-250g --backing "$BACK"
echo x >"$MNT/x.txt"
out=$($PY -c "import os, sys
try: os.setxattr(sys.argv[1], 'user.take', b'1')
except OSError as e: print(e.strerror)" "$MNT/x.txt")
[ "$out" = "Operation not supported" ] || fail "exfat-fuse: setxattr gave '$out', expected EOPNOTSUPP"
"$STREAMDISK" fault "$MNT" 'erofs:create,file=late.*' >/dev/null || fail "streamdisk fault after a refused setxattr: exit $?"
{ echo x >"$MNT/late.txt"; } 2>/dev/null && fail "the fault added after a refused setxattr did not fire"
stop_mount

# A mount point with a space in its name (/proc/self/mountinfo writes it as
# \040): `fault` finds the mount (it answered "not a running streamdisk mount").
rm -rf "${BACK:?}"/*
MNT="$WORK/my stick"
mkdir -p "$MNT"
start_mount -p samsung-960evo-250g --backing "$BACK"
"$STREAMDISK" fault "$MNT" 'eio:create,file=sp.*' >/dev/null || fail "streamdisk fault on a mount point with a space: exit $?"
{ echo x >"$MNT/sp.txt"; } 2>/dev/null && fail "the fault on a mount point with a space did not fire"
stop_mount
is_mounted "$MNT" && fail "the mount point with a space is still mounted after stop"
finish
