#!/usr/bin/env bash
# characterize on a FUSE driver that writes its block device through a large page
# cache (the `fuse` test rig, exfat-fuse over a 15 MB/s device, under a 400 MB dirty
# limit, as on a desktop): its "direct" writes first fill that cache at the driver's
# pace and are then paced by the kernel, so their own rate is not the device's (the
# fits gave 17.5, 18.3 and 22.0 MB/s, bench/rig_truth.md session 29). The sustained
# rate must come from the device's own written count (/sys/dev/block/.../stat), within
# 15 % of the rig's rate, and the run must keep to its budget (each "direct" phase
# used to wait ~20 s in fsync for that cache: 7 min for a 4 min budget).
# Needs root, nbdkit, nbdfuse, exfat-fuse (run.sh installs them).
# shellcheck source=../lib.sh
source "$SD_SOURCE_DIR/tests/lib.sh"
source "$SD_SOURCE_DIR/tests/rig/test_lib.bash"
rig_test_setup fuse-cache mount.exfat-fuse

RATE=15
MNT=$("$RIG/rig.sh" up fuse "$W/rig" SIZE=2G RATE_MBPS=$RATE DIRTY_BYTES=400000000 DIRTY_BG_BYTES=200000000) \
  || { fail "rig fuse did not come up"; finish; }
BUDGET=90
t0=$(date +%s)
"$STREAMDISK" characterize "$MNT" -o "$W/p.toml" --budget ${BUDGET}s --idle 2s --check 0 --json >"$W/out.json" \
  2>"$W/err" || fail "characterize exit $?: $(tail -2 "$W/err")"
took=$(( $(date +%s) - t0 ))
[ -z "$(ls -A "$MNT")" ] || fail "characterize left files: $(ls -A "$MNT")"
python3 - "$W/out.json" "$RATE" "$BUDGET" "$took" <<'EOF' || fail "see above"
import json, sys
d = json.load(open(sys.argv[1])); rate, budget, took = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= cond
sus = next((p for p in d["params"] if p["key"] == "device.sustained_mbps"), None)
check(sus is not None, "a sustained rate was fitted")
if sus:
    check(abs(sus["value"] / rate - 1) <= 0.15, f"sustained {sus['value']:.2f} MB/s within 15 % of the rig's {rate:g}")
check(any("from the device's own written count" in n for n in d["notes"]),
      "the notes say the sustained rate is the device's own count")
check(took <= 1.3 * budget + 30, f"the run took {took:.0f} s for a {budget:.0f} s budget (at most 1.3 x + 30 s)")
sys.exit(0 if ok else 1)
EOF
finish
