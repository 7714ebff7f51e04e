#!/usr/bin/env bash
# fio, an independent client, through the mount: (1) write then verify with
# crc32c; (2) sequential O_DIRECT writes at several block sizes run at the
# rate `streamdisk show` predicts for the profile, within +-20 % (loose: a
# loaded 2-core CI machine adds FUSE round-trip time to every request). The
# +-3 % claim is measured by `bench/mount_bench.sh build fidelity`, whose
# ratios are in README "Performance"; this test only catches a mount that is
# grossly off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mount_lib.bash"
command -v fio >/dev/null || skip "fio is not installed (apt-get install fio; run.sh installs it)"

PROFILE=(-p samsung-960evo-250g "${SLOW_SETS[@]}")
start_mount "${PROFILE[@]}" --backing "$BACK" --realtime

fio --name=verify --directory="$MNT" --rw=randwrite --bs=64k --size=8m --ioengine=psync --direct=1 \
  --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --output="$WORK/verify.txt" >/dev/null 2>"$WORK/fio.err" \
  || fail "fio verify=crc32c failed: $(tail -5 "$WORK/verify.txt" "$WORK/fio.err")"
grep -q "err= 0" "$WORK/verify.txt" || fail "fio verify reported errors: $(cat "$WORK/verify.txt")"

"$STREAMDISK" show "${PROFILE[@]}" --json >"$WORK/show.json" || fail "show --json"
for bs in 65536 262144 1048576; do
  "${RT[@]}" fio --name=seq --filename="$MNT/seq" --rw=write --bs=$bs --size=256m --runtime=2 --time_based \
    --ioengine=psync --direct=1 --output-format=json --output="$WORK/seq$bs.json" >/dev/null 2>&1 \
    || fail "fio sequential write bs=$bs failed"
  read -r measured predicted < <($PY - "$WORK/seq$bs.json" "$WORK/show.json" $bs <<'PYEOF'
import json, sys
fio = json.load(open(sys.argv[1]))
show = json.load(open(sys.argv[2]))
bs = float(sys.argv[3])
measured = fio["jobs"][0]["write"]["bw_bytes"] / 1e6
predicted = [r for r in show["write_rates"] if r["block_bytes"] == bs][0]["sustained_direct_mbps"]
print(measured, predicted)
PYEOF
  )
  echo "bs=$bs: fio $measured MB/s, predicted $predicted MB/s"
  $PY -c "import sys; m, p = $measured, $predicted; sys.exit(0 if abs(m / p - 1) <= 0.20 else 1)" \
    || fail "bs=$bs: fio measured $measured MB/s, the profile predicts $predicted MB/s (more than 20 % off)"
done
stop_mount
finish
