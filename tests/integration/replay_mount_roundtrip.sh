#!/usr/bin/env bash
# mount --trace -> replay --open-loop with the same profile: every operation
# completes when the mount's model said (to 1 us), and within 1 ms (p99) of
# when the mount really replied. Needs `mount` (branch fuse); until it is
# merged this test only says so.
source "$(dirname "$0")/../lib.sh"
if ! "$STREAMDISK" mount --help >/dev/null 2>&1 || [ ! -f "$(dirname "$0")/mount_lib.bash" ]; then
  echo "mount is not in this build yet: nothing to check"; exit 0
fi
. "$(dirname "$0")/mount_lib.bash"
SETS=(--set device.burst_bytes=20MB --set device.burst_mbps=200 --set device.sustained_mbps=40
      --set device.op_overhead_us=300 --set device.stall_interval_mb=8 --set device.stall_duration_ms=30)
start_mount -p samsung-960evo-250g --backing "$BACK" --realtime --seed 11 --trace "$WORK/ops.csv" "${SETS[@]}"
"${RT[@]}" $PY "$HERE/mount_client.py" mixed "$MNT" 3 || fail "workload failed"
stop_mount
[ -s "$WORK/ops.csv" ] || fail "no trace written"
"$STREAMDISK" replay "$WORK/ops.csv" -p samsung-960evo-250g "${SETS[@]}" --open-loop --trace-out "$WORK/rep.csv" \
  >"$WORK/replay.out" || fail "replay of the mount's trace failed"
python3 - "$WORK/ops.csv" "$WORK/rep.csv" <<'PY' || fail "the replay does not agree with the mount"
import csv, sys
rows = lambda p: list(csv.DictReader(l for l in open(p) if not l.startswith("#")))
mount, rep = rows(sys.argv[1]), rows(sys.argv[2])
assert len(mount) == len(rep) > 10, (len(mount), len(rep))
model = [abs(float(r["end_s"]) - float(m["modelled_end_s"])) for m, r in zip(mount, rep) if m["modelled_end_s"]]
real = sorted(abs(float(r["end_s"]) - float(m["end_s"])) for m, r in zip(mount, rep) if m["op"] in ("write", "read"))
p99 = real[int(0.99 * (len(real) - 1))]
print("ops %d: |replay - mount's model| max %.3g s; |replay - mount's reply| p50 %.3f ms p99 %.3f ms"
      % (len(rep), max(model), real[len(real) // 2] * 1e3, p99 * 1e3))
assert max(model) <= 1e-6, "the replay's model and the mount's disagree"
assert p99 <= 1e-3, "p99 above 1 ms"
PY
finish
