#!/usr/bin/env bash
# characterize takes the lengths of the pauses flat-out writes met from the block
# device's own stops (its stat file, read every 2 ms): a writer behind ntfs-3g's page
# cache meets each pause late and shows it short (the ntfs rig's 1.2 s pauses came
# out 957 ms, bench/rig_truth.md sessions 27 and 30). On the `ntfs` rig with ~1 s
# pauses every ~3 s: the device's log is kept with the traces and refits as
# characterize fitted; the lengths the pauses took from the device have a median
# within 25 % of the pauses the rig itself logged (events.log); each stop the device
# showed, put on the rig's clock, is one of the rig's pauses, at most 25 % short of it
# when the device was busy as it began and never more than 0.2 s longer; the notes say so;
# where the arrivals were counted on the device, their period is the rig's within 35 %.
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
rig_pauses, start = [], None  # (start, length), CLOCK_MONOTONIC seconds
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) >= 2 and f[1] == "pause": start = float(f[0])
    elif len(f) >= 2 and f[1] == "resume" and start is not None: rig_pauses.append((start, float(f[0]) - start)); start = None
pauses = [L for _, L in rig_pauses]
check(len(pauses) >= 10, f"the rig paused {len(pauses)} times")
rig = statistics.median(pauses) * 1e3 if pauses else 0
dur = {p["key"]: p["value"] for p in d["params"]}
fit = dur.get("device.stall_duration_ms", 0)
# Five runs (three under CI's parallel builds): the device's lengths 874, 999, 1008,
# 862 and 876 ms for rig medians of 946-1056 (-18 % at worst, under load: more pauses
# begin while the device idles and show only partly). So: within 25 % of the rig.
# (The writes' own lengths of the same pauses were 543-773 ms in four of those runs
# and 848 in the fifth: how much shorter a writer behind the page cache sees a pause
# depends on the machine's load, so it is not checked.)
dp = d.get("device_pauses") or {}
m = dp.get("matched_device_median_s", 0) * 1e3
check(dp.get("matched", 0) >= 5 and rig > 0 and abs(m / rig - 1) <= 0.25,
      f"{dp.get('matched', 0)} pauses took the device's lengths, median {m:.0f} ms: within 25 % of the rig's median "
      f"{rig:.0f} ms")
# Each stop the device showed, against the rig's own log. The two clocks differ by a
# constant: the median difference of the pairs near the one most stops agree on within
# 0.3 s. A stop begins at the last completion before its pause, and the rig's loop
# device completes requests in bursts (nbdkit's rate filter lets a 0.25 s bucket
# through at once), so its start is known to about ±0.15 s. A stop that begins with its
# rig pause (within 0.2 s: the device busy then) is the whole pause, on this device up
# to 15 % shorter, since the rate filter lets the time it lost through at once after it
# (bench/rig_truth.s30: 1.255 s for 1.297, 1.06 for 1.235), or a little longer (1.09
# in a quiet run: the completion before it came early); one that begins later began
# while the device idled and shows the rest. None may end more than 0.2 s (the start's
# precision and a request's service time) after its rig pause did. Only stops of at
# least half the rig's median count: the loop device's own unevenness shows "stops" up
# to ~0.35 s, and the list holds stops down to half the fitted median. A stop the rig
# never made is a process of the rig's starved of CPU (nbdkit, nbdfuse): one, or a
# fifth of them, is allowed. A stop that began up to 0.2 s into its rig pause is held
# against what was left of the pause from its start. One whole stop may fall to half of
# it: a CI run under parallel builds showed one at 0.70 among 19 of 0.84-1.12 (a
# starved nbdkit lets the rate filter's lost time through in one burst); the median
# must stay at 0.85 or more, which a writer's own view of the pauses (0.55-0.77 of
# them behind the page cache) does not reach.
stops = [(a, l) for a, l in zip(dp.get("at_s", []), dp.get("lengths_s", [])) if l >= 0.5 * rig / 1e3]
def pairs(off, within):
    return [a - r for a, _ in stops for r, _ in rig_pauses if abs(a - r - off) < within]
coarse = max((len(pairs(a - r, 0.3)), a - r) for a, _ in stops for r, _ in rig_pauses) if stops and rig_pauses else (0, 0.0)
off = statistics.median(pairs(coarse[1], 0.3)) if coarse[0] else 0.0
whole, late, stray, over = [], 0, [], []
for a, l in stops:
    near = [(r, L) for r, L in rig_pauses if -0.3 < a - off - r < L]
    if not near:
        stray.append(f"{a:.2f} s: {l * 1e3:.0f} ms")
        continue
    r, L = near[0]
    if a - off - r < 0.2: whole.append(l / (L - max(0.0, a - off - r)))
    else: late += 1
    if a - off + l > r + L + 0.2: over.append(f"{l * 1e3:.0f} ms from {a - off - r:+.2f} s for {L * 1e3:.0f} ms")
short = [x for x in whole if x < 0.75]
check(len(whole) >= 4 and len(short) <= 1 and all(x >= 0.5 for x in whole)
      and statistics.median(whole) >= 0.85,
      f"{len(whole)} of the device's {len(stops)} stops began with a rig pause and lasted "
      f"{', '.join(f'{x:.2f}' for x in sorted(whole))} of what was left of it (median 0.85 or more, "
      f"at most one under 0.75, none under 0.5); {late} began later, the device idle")
check(len(stray) <= max(1, len(stops) // 5),
      f"the stops are the rig's pauses ({len(stray)} of {len(stops)} not: {', '.join(stray[:3])}; at most one or a fifth)")
check(not over, f"no stop outlasts its rig pause by more than 0.2 s ({', '.join(over[:3])})")
# Not checked: the final fit against the rig. It also rests on the pauses the device
# showed no stop for (2-4 of ~12 with this rig and budget), which decide whether a
# second, shorter population is fitted: 732, 975 and 309 + 1083 ms in three runs.
# Where the pauses' arrivals were counted on the device (one population: its stops
# per second busy), their period is the rig's spacing (3 s ± 30 %) within 35 %: a
# pause that begins while the device idles is missed, and so is that idle time.
if any("arrivals from the device's own stops" in n for n in d["notes"]):
    starts = [r for r, _ in rig_pauses]
    spacing = (starts[-1] - starts[0]) / (len(starts) - 1) if len(starts) > 1 else 0
    per = dur.get("device.stall_period_ms", 0) / 1e3
    check(spacing > 0 and abs(per / spacing - 1) <= 0.35,
          f"the pauses' period counted on the device, {per:.2f} s: within 35 % of the rig's {spacing:.2f} s")
else:
    print("note: the arrivals were not counted on the device in this run (two populations, or its stops unclear)")
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
