#!/usr/bin/env bash
# What blocks a recorder on a rig: one reference-recorder run on a fresh rig with the
# kernel's own account of it beside it. Evidence for the model, not a test.
#   - jbd2 commits (tracefs events jbd2_start_commit / jbd2_end_commit): start, length,
#     and their phases (jbd2_commit_locking: waiting for open handles, so new ones
#     wait; _flushing: the ordered data goes down; _logging: the journal's own write);
#   - the block layer's writeback throttling depth changes (wbt_step), if enabled;
#   - the dirty throttle's decisions (balance_dirty_pages: dirty level, the device's
#     rate limit and the writer's pause; bdi_dirty_ratelimit: how that limit moves);
#   - the flusher's work on the rig's device (writeback_written: why; and per file
#     pass, writeback_single_inode: pages written of the pass's allowance);
#   - /proc/meminfo Dirty and Writeback every 20 ms (machine-wide), and the rig's own
#     block device: KiB written so far and requests in flight (/sys/block/loopN/stat);
#   - the kernel stack of every recorder thread found blocked (state D) at a sample,
#     and of the rig's userspace driver's threads (ntfs-3g, exfat-fuse: "drv:").
# Prints, per recorder write that took longer than --slow, what the kernel was doing:
# the commit in flight (if any), Writeback at the time, the blocked stack's top frames.
#
# Ends with the most common blocked stacks of the whole run.
#
# Usage (as root): probe.sh RIG RATE BUFFER [--duration 60s] [--block 256KiB]
#                  [--slow 0.1] [--start idle|warm] [--out DIR] [KEY=VALUE ...]
# --start warm: random phases for the journal's and the flushers' timers first
# (tests/rig/warm.sh), as truth.sh --start warm.
# Example: tests/rig/probe.sh hostcache 5.4MB/s 1MiB --out /tmp/probe
# Writes DIR/refrec.json, DIR/lat.csv, DIR/samples.txt, DIR/bdi.txt, DIR/trace.txt, DIR/report.txt
# (without --out, DIR is a new directory /tmp/streamdisk-probe.XXXXXX).
# The recorder runs at real-time priority (chrt -f 20), as in truth.sh. Tracing uses
# its own tracefs instance (removed at the end); debugfs/tracefs are mounted only if
# they were not, and unmounted again. The rig always comes down.
set -u
case "${1:-}" in -h|--help|help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "probe.sh: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: probe.sh RIG RATE BUFFER [--duration 60s] [--block 256KiB] [--slow 0.1] [--out DIR] (example: probe.sh hostcache 5.4MB/s 1MiB)"
[ "$(id -u)" = 0 ] || die "needs root (rigs, tracefs): run it with sudo"
rig=$1 rate=$2 buffer=$3; shift 3
duration=60s block=256KiB slow=0.1 out= extra=() start=idle
while [ $# -gt 0 ]; do
  case $1 in
    --duration) duration=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --slow) slow=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --start) start=$2; shift 2 ;;
    *=*) extra+=("$1"); shift ;;
    *) die "unknown option $1 (see the usage at the top of $0)" ;;
  esac
done
case "$start" in idle|warm) ;; *) die "--start $start: use idle or warm" ;; esac
# shellcheck source=tests/rig/warm.sh
. "$here/warm.sh"
[ -f "$here/rigs/$rig.conf" ] || die "no rig named $rig: one of $(ls "$here/rigs" | sed 's/\.conf$//' | tr '\n' ' ')"
# Without --out, a new private directory (not a guessable name in /tmp: this runs as root).
if [ -z "$out" ]; then out=$(mktemp -d /tmp/streamdisk-probe.XXXXXX) || die "cannot create a directory in /tmp"
else mkdir -p "$out" || die "cannot create $out"; fi
dir=$(mktemp -d /tmp/probe-rig-XXXXXX)
mounted_debug= mounted_trace= inst=
cleanup() {
  warm_down
  [ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null
  [ -n "${bdisampler:-}" ] && kill "$bdisampler" 2>/dev/null
  if [ -n "$inst" ] && [ -d "$inst" ]; then
    echo 0 >"$inst/tracing_on" 2>/dev/null
    rmdir "$inst" 2>/dev/null
  fi
  # The rig's directory is this script's own (mktemp below); its logs go with it once
  # nothing is mounted in it any more.
  if "$here/rig.sh" down "$dir" >/dev/null 2>&1 && ! mountpoint -q "$dir/mnt" && ! mountpoint -q "$dir/nbd"; then
    rm -rf --one-file-system -- "$dir"
  fi
  [ -n "$mounted_trace" ] && umount "$mounted_trace" 2>/dev/null
  [ -n "$mounted_debug" ] && umount /sys/kernel/debug 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# tracefs: /sys/kernel/tracing, else under debugfs.
tr=/sys/kernel/tracing
if [ ! -d "$tr/instances" ]; then
  if mount -t tracefs nodev "$tr" 2>/dev/null; then mounted_trace=$tr
  else
    tr=/sys/kernel/debug/tracing
    if [ ! -d "$tr/instances" ]; then
      mountpoint -q /sys/kernel/debug || { mount -t debugfs none /sys/kernel/debug && mounted_debug=1; }
      [ -d "$tr/instances" ] || { mount -t tracefs nodev "$tr" 2>/dev/null && mounted_trace=$tr; }
    fi
  fi
fi
[ -d "$tr/instances" ] || die "no tracefs here (mount -t tracefs nodev /sys/kernel/tracing failed)"
# The rig's per-device dirty accounting (BdiReclaimable, its thresholds): debugfs.
if [ ! -d /sys/kernel/debug/bdi ]; then
  mountpoint -q /sys/kernel/debug || { mount -t debugfs none /sys/kernel/debug 2>/dev/null && mounted_debug=1; }
fi

mnt=$("$here/rig.sh" up "$rig" "$dir" "${extra[@]}") || die "rig.sh up $rig failed"
inst=$tr/instances/streamdisk-probe-$$
mkdir "$inst" || die "cannot create a tracefs instance in $tr/instances"
for e in jbd2/jbd2_start_commit jbd2/jbd2_commit_locking jbd2/jbd2_commit_flushing \
         jbd2/jbd2_commit_logging jbd2/jbd2_end_commit wbt/wbt_step \
         writeback/writeback_written writeback/writeback_single_inode \
         writeback/balance_dirty_pages writeback/bdi_dirty_ratelimit; do
  [ -e "$inst/events/$e/enable" ] && echo 1 >"$inst/events/$e/enable"
done
echo 4096 >"$inst/buffer_size_kb" 2>/dev/null
echo mono >"$inst/trace_clock" 2>/dev/null  # CLOCK_MONOTONIC, as refrec's start_monotonic_s
echo 1 >"$inst/tracing_on"

"$here/refrec.sh" "$dir/compile-check.raw" --rate 1 --duration 0.01s >/dev/null  # compile outside the run
[ "$start" = warm ] && warm_up "$mnt" && echo "probe.sh: warm start, delays $WARM_DELAYS s" >&2
chrt -f 20 "$here/refrec.sh" "$mnt/probe.raw" --rate "$rate" --buffer "$buffer" --block "$block" \
  --duration "$duration" --log "$out/lat.csv" >"$out/refrec.json" &
rec=$!  # chrt and refrec.sh exec: the recorder keeps this pid
# Samples are stamped with CLOCK_MONOTONIC (the recorder's and the trace's clock):
# bash's $EPOCHREALTIME plus the offset between the two clocks, taken once.
# A line "TIME DIRTY_KB WRITEBACK_KB DEV_WRITTEN_KB DEV_INFLIGHT" per sample, and before it one
# "TIME DIRTY_KB WRITEBACK_KB D FRAME..." per recorder thread blocked then (and
# "... D drv:FRAME ..." per blocked thread of the rig's userspace driver).
loopdev=$(sed -n 's/^LOOP=//p' "$dir/rig.env" | tail -1)
devstat=/sys/block/$(basename "$loopdev")/stat
bdi=$(( $(stat -c '0x%t' "$loopdev") )):$(( $(stat -c '0x%T' "$loopdev") ))
[ -r "$devstat" ] || die "cannot read the rig's block device statistics ($devstat)"
# The rig's userspace filesystem driver, if it has one: the process whose command line names the mount.
driver=$(pgrep -f -- "$mnt" | while read -r p; do [ "$p" != "$rec" ] && grep -qE 'ntfs-3g|exfat' "/proc/$p/comm" 2>/dev/null && echo "$p"; done | head -1)
offset=$(python3 -c 'import time; print(f"{time.clock_gettime(time.CLOCK_MONOTONIC) - time.time():.6f}")')
(
  while kill -0 "$rec" 2>/dev/null; do
    now=$(awk -v r="$EPOCHREALTIME" -v o="$offset" \
      '/^Dirty:|^Writeback:/{v = v " " $2} END{printf "%.6f%s", r + o, v}' /proc/meminfo)
    # The recorder's threads, and a userspace driver's (ntfs-3g, exfat-fuse) marked drv:
    for who in "$rec:" ${driver:+"$driver:drv:"}; do
      for task in /proc/"${who%%:*}"/task/*; do
        grep -q '^State:.*D' "$task/status" 2>/dev/null &&
          echo "$now D ${who#*:}$(head -8 "$task/stack" 2>/dev/null | awk '{printf "%s ", $2}')"
      done
    done
    read -r _ _ _ _ _ _ wsec _ inflight _ <"$devstat"
    echo "$now $((wsec / 2)) $inflight"
    sleep 0.02
  done
) >"$out/samples.txt" &
sampler=$!
# Every 0.25 s: "TIME RECLAIMABLE_KB BDI_THRESH_KB THRESH_KB BG_THRESH_KB BANDWIDTH_KBPS"
# for the rig's device (the kernel's per-device share of the dirty limits).
(
  while kill -0 "$rec" 2>/dev/null; do
    [ -r "/sys/kernel/debug/bdi/$bdi/stats" ] || break
    awk -v r="$EPOCHREALTIME" -v o="$offset" '/^BdiReclaimable:|^BdiDirtyThresh:|^DirtyThresh:|^BackgroundThresh:|^BdiWriteBandwidth:/{v = v " " $2}
      END{printf "%.6f%s\n", r + o, v}' "/sys/kernel/debug/bdi/$bdi/stats"
    sleep 0.25
  done
) >"$out/bdi.txt" &
bdisampler=$!
wait "$rec"; rc=$?
wait "$sampler" "$bdisampler" 2>/dev/null; sampler=
echo 0 >"$inst/tracing_on"
cat "$inst/trace" >"$out/trace.txt"
[ "$rc" = 0 ] || die "the recorder failed (exit $rc): $out/refrec.json"

python3 - "$out" "$slow" "$bdi" <<'PY' | tee "$out/report.txt"
import json, re, sys
from collections import Counter
out, slow = sys.argv[1], float(sys.argv[2])
rec = json.load(open(f"{out}/refrec.json"))
t0 = rec["start_monotonic_s"]
commits, starts, steps, phases, passes = [], {}, [], {}, []
bdi = sys.argv[3] if len(sys.argv) > 3 else ""
for line in open(f"{out}/trace.txt"):
    m = re.search(r"\s(\d+\.\d+): (jbd2_start_commit|jbd2_commit_\w+|jbd2_end_commit|wbt_step|writeback_written|writeback_single_inode): (.*)", line)
    if not m:
        continue
    t, ev, rest = float(m.group(1)) - t0, m.group(2), m.group(3)
    if ev in ("writeback_written", "writeback_single_inode"):
        if bdi and f"bdi {bdi}:" in rest:
            passes.append((t, rest))
        continue
    if ev == "wbt_step":
        steps.append((t, rest))
        continue
    tid = re.search(r"transaction (\d+)", rest).group(1)
    if ev.startswith("jbd2_commit_"):
        phases.setdefault(tid, {})[ev[len("jbd2_commit_"):]] = t
        continue
    if ev == "jbd2_start_commit":
        starts[tid] = t
    elif tid in starts:
        commits.append((starts.pop(tid), t, phases.pop(tid, {})))
samples, dev = [], []
for line in open(f"{out}/samples.txt"):
    f = line.split()
    if len(f) >= 3:
        samples.append((float(f[0]) - t0, int(f[1]), int(f[2]), " ".join(f[4:7]) if len(f) > 3 and f[3] == "D" else ""))
    if len(f) == 5 and f[3] != "D":
        dev.append((float(f[0]) - t0, int(f[3]), int(f[4])))
# The rig's device, second by second: MiB it wrote (only seconds with writes).
per_s = {}
for (ta, ka, _), (tb, kb, _) in zip(dev, dev[1:]):
    if kb > ka:
        per_s[int(tb)] = per_s.get(int(tb), 0) + (kb - ka) / 1024
if dev:
    print(f"rig device: {(dev[-1][1] - dev[0][1]) / 1024:.1f} MiB written, at most {max((d[2] for d in dev), default=0)} "
          f"requests in flight; MiB per second: " + " ".join(f"{t}s:{m:.1f}" for t, m in sorted(per_s.items())))
def wb_at(t):
    best = min(samples, key=lambda s: abs(s[0] - t), default=None)
    return best[2] / 1024 if best else float("nan")
print(f"recorder: {rec['rate_MBps']} MB/s, {rec['buffer_bytes'] >> 10} KiB ring, {rec['overruns']} overrun(s), "
      f"max write {rec['max_write_latency_s']:.3f} s")
def phase_text(s, ph):
    return ", ".join(f"{k} +{v - s:.3f}" for k, v in sorted(ph.items(), key=lambda kv: kv[1]))
durs = sorted(e - s for s, e, _ in commits)
if durs:
    print(f"jbd2 commits: {len(durs)}, length median {durs[len(durs) // 2]:.3f} s, max {durs[-1]:.3f} s")
for s, e, ph in commits:
    if e - s >= slow:
        print(f"  commit at {s:7.2f} s took {e - s:.3f} s (Writeback at its start {wb_at(s):.1f} MiB; {phase_text(s, ph)})")
if steps:
    print(f"wbt depth changes: {len(steps)}; last: {steps[-1][1]}")
try:
    bdis = [list(map(float, l.split())) for l in open(f"{out}/bdi.txt") if len(l.split()) == 6]
except OSError:
    bdis = []
if bdis:
    print("rig device's dirty accounting (MiB; every 5 s): t reclaimable bdi_thresh thresh bg_thresh, bandwidth MB/s")
    shown = -5.0
    for t, rec_kb, bth, th, bg, bw in bdis:
        if t - t0 >= shown + 5:
            shown = t - t0
            print(f"  {t - t0:6.1f} {rec_kb / 1024:8.1f} {bth / 1024:8.1f} {th / 1024:8.1f} {bg / 1024:8.1f}  {bw / 1000:.1f}")
print(f"flusher passes on the rig's device: {len(passes)}")
for t, rest in passes:
    m = re.search(r"reason=(\w+)", rest)
    w = re.search(r"ino=(\d+).*age=(\d+).*to_write=(-?\d+) wrote=(\d+)", rest)
    if m:
        print(f"  at {t:7.2f} s: work for {m.group(1)} ended")
    elif w:
        print(f"  at {t:7.2f} s: inode {w.group(1)} (dirty for {int(w.group(2)) / 1000:.1f} s): "
              f"wrote {int(w.group(4)) * 4 / 1024:.1f} MiB, allowance left {int(w.group(3)) * 4 / 1024:.1f} MiB")
print(f"recorder writes slower than {slow} s:")
for line in list(open(f"{out}/lat.csv"))[1:]:
    st, lat = map(float, line.split(","))
    if lat < slow:
        continue
    inside = [(s, e, ph) for s, e, ph in commits if s <= st + lat and e >= st]
    stacks = {s[3] for s in samples if st <= s[0] <= st + lat and s[3]}
    print(f"  at {st:7.2f} s: {lat:.3f} s; Writeback {wb_at(st):.1f} MiB; "
          + (f"commit {inside[0][0]:.2f}-{inside[0][1]:.2f} s ({phase_text(inside[0][0], inside[0][2])}), "
             f"released at +{st + lat - inside[0][0]:.3f}; "
             if inside else "no commit; ")
          + (f"blocked in {' | '.join(sorted(stacks))}" if stacks else "no blocked stack sampled"))
blocked = Counter(" ".join(re.sub(r"\+.*", "", f) for f in line.split()[4:])
                  for line in open(f"{out}/samples.txt") if line.split()[3:4] == ["D"])
print("samples in D state, by kernel stack (innermost first):" if blocked else "no sample in D state")
for stack, n in blocked.most_common(8):
    print(f"  {n:5} {stack}")
PY
echo "probe.sh: everything is in $out" >&2
