#!/usr/bin/env bash
# characterize takes the lengths of the pauses flat-out writes met from the block
# device's own stops (its stat file, read every 2 ms): a writer behind ntfs-3g's page
# cache meets each pause late and shows it short (the ntfs rig's 1.2 s pauses came
# out 957 ms, bench/rig_truth.md sessions 27 and 30). On the `ntfs` rig with ~1 s
# pauses every ~3 s: the device's log is kept with the traces and refits as
# characterize fitted; the lengths the pauses took from the device have a median
# within 25 % of the pauses the rig itself logged (events.log) and at least 10 %
# longer than the writes' own lengths of the same pauses; the notes say so.
# Needs root, nbdkit, nbdfuse, ntfs-3g (run.sh installs them).
# shellcheck source=../lib.sh
source "$SD_SOURCE_DIR/tests/lib.sh"
source "$SD_SOURCE_DIR/tests/rig/test_lib.bash"
rig_test_setup device-pauses ntfs-3g

MNT=$("$RIG/rig.sh" up ntfs "$W/rig" SIZE=2G PAUSE_EVERY=3 PAUSE_LEN=1.0) || { fail "rig ntfs did not come up"; finish; }
mkdir "$W/traces"
"$STREAMDISK" characterize "$MNT" -o "$W/p.toml" --budget 90s --idle 2s --check 0 --keep-traces "$W/traces" --json \
  >"$W/out.json" 2>"$W/err" || fail "characterize exit $?: $(tail -2 "$W/err")"
cp "$W/rig/events.log" "$W/events.log"
[ -s "$W/traces/device-activity.log" ] || fail "device-activity.log was not kept"
head -1 "$W/traces/device-activity.log" | grep -qx '# streamdisk-device-activity 1' || fail "device-activity.log has no format line"
# The kept traces refit as characterize fitted (the same pause lengths).
"$STREAMDISK" calibrate "$W"/traces/*.csv --device-activity "$W/traces/device-activity.log" --json >"$W/refit.json" \
  2>"$W/refit.err" || fail "calibrate --device-activity exit $?: $(tail -2 "$W/refit.err")"
python3 - "$W/out.json" "$W/refit.json" "$W/events.log" <<'PY' || fail "see above"
import json, statistics, sys
d = json.load(open(sys.argv[1])); refit = json.load(open(sys.argv[2]))
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= cond
pauses, start = [], None
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) >= 2 and f[1] == "pause": start = float(f[0])
    elif len(f) >= 2 and f[1] == "resume" and start is not None: pauses.append(float(f[0]) - start); start = None
check(len(pauses) >= 10, f"the rig paused {len(pauses)} times")
rig = statistics.median(pauses) * 1e3 if pauses else 0
dur = {p["key"]: p["value"] for p in d["params"]}
fit = dur.get("device.stall_duration_ms", 0)
# Four runs (two under CI's parallel builds): the device's lengths 874, 999, 1008 and
# 862 ms for rig medians of 985-1056 (-18 % at worst, under load: more pauses begin
# while the device idles and show only partly), the writes' own 543, 773, 741 and 688
# (-25 % to -45 %). So: within 25 % of the rig, and at least 10 % longer than the
# writes' own lengths of the same pauses.
dp = d.get("device_pauses") or {}
m = dp.get("matched_device_median_s", 0) * 1e3
wm = dp.get("matched_writes_median_s", 0) * 1e3
check(dp.get("matched", 0) >= 5 and rig > 0 and abs(m / rig - 1) <= 0.25,
      f"{dp.get('matched', 0)} pauses took the device's lengths, median {m:.0f} ms: within 25 % of the rig's median "
      f"{rig:.0f} ms")
check(m >= 1.1 * wm > 0, f"the device's lengths ({m:.0f} ms) are at least 10 % longer than the writes' own ({wm:.0f} ms)")
# Not checked: the final fit against the rig. It also rests on the pauses the device
# showed no stop for (2-4 of ~12 with this rig and budget), which decide whether a
# second, shorter population is fitted: 732, 975 and 309 + 1083 ms in three runs.
check(any("take their lengths from the device's own stops" in n for n in d["notes"]),
      "the notes say the lengths came from the device's own stops")
check(dp.get("busy_gaps", 0) > 100 and len(dp.get("lengths_s", [])) >= 5,
      f"the device's own stops were measured ({dp.get('busy_gaps', 0)} busy gaps, {len(dp.get('lengths_s', []))} stops)")
re = {p["key"]: p["value"] for p in refit["params"]}
# (the kept traces hold times to the microsecond: the refit may differ in the last digits)
check(abs(re.get("device.stall_duration_ms", 0) - fit) <= 0.005 * max(fit, 1),
      f"calibrate --device-activity on the kept traces: {re.get('device.stall_duration_ms', 0):.1f} ms, as characterize")
if not ok:
    for n in d["notes"]:
        if "stall" in n: print("  note:", n[:400])
    print("  stall keys:", {k: round(v, 3) for k, v in dur.items() if "stall" in k})
sys.exit(0 if ok else 1)
PY
finish
