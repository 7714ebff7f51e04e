#!/usr/bin/env bash
# GNU Radio's file sink through `streamdisk mount` (docs/mount.md, compatibility
# matrix). Outside CI: Debian's gnuradio is about 130 packages (650 MB
# installed), too much for every CI run. Run as root:
#   apt-get install --no-install-recommends gnuradio
#   bench/gnuradio_sink.sh [BUILD_DIR]          (about 2 minutes)
# A headless flowgraph (bench/gnuradio_flowgraph.py: complex cosine ->
# throttle -> head -> blocks.file_sink, 64 MB of complex float32 at a nominal
# 32 MB/s) writes once to a plain directory and then through a mount of each
# built-in filesystem profile over samsung-960evo-250g, of usrp-2974 (an SDR
# with its SSD) and of rpi4-buster-ultrafit-exfat (a Raspberry Pi recording to
# a USB stick). Per mount it checks that the file is byte-identical to the
# plain one and that the trace's writes cover every byte with modelled times,
# and prints the sink's write sizes and the rate the flowgraph got through
# the mount over its nominal rate (1.00: it kept up; below: the sink blocked
# and slowed the whole flowgraph: GNU Radio's file sink reports no overrun),
# beside the device's own pace, the bytes over the writes' summed modelled
# service times (near or below the nominal 32 MB/s: the emulated device was
# the limit, as it would be on the real one; far above: FUSE and load were).
# Exit status: 0 if every check passed, 1 if one failed, 2 if it cannot run here.
set -uo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
SD=$(realpath "$BUILD/cli/streamdisk" 2>/dev/null) && [ -x "$SD" ] ||
  { echo "gnuradio_sink.sh: no streamdisk binary in $BUILD/cli: build first or give the build directory" >&2; exit 2; }
PY=/usr/bin/python3  # Debian's GNU Radio lives beside Debian's python
$PY -c "import gnuradio.blocks" 2>/dev/null ||
  { echo "gnuradio_sink.sh: GNU Radio is not installed: apt-get install --no-install-recommends gnuradio" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "gnuradio_sink.sh: run as root (it mounts FUSE with allow_other)" >&2; exit 2; }
SAMPLES=8000000  # 64 MB
RATE=4000000     # samples/s: 32 MB/s nominal
# Backing files in memory: the bench's own writes stay off the disk.
W=$(mktemp -d /dev/shm/sd-gnuradio-bench.XXXXXX)
mkdir -p "$W/mnt" "$W/back" "$W/plain"
PID=""
cleanup() {
  mountpoint -q "$W/mnt" && fusermount3 -u "$W/mnt"
  [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
  rm -rf "$W"
}
trap cleanup EXIT
fails=0
flowgraph() { $PY "$HERE/gnuradio_flowgraph.py" "$1" "$SAMPLES" "$RATE"; }

flowgraph "$W/plain/iq.cf32" >/dev/null || { echo "the flowgraph failed on a plain directory" >&2; exit 1; }
ref_bytes=$(stat -c %s "$W/plain/iq.cf32")
[ "$ref_bytes" -eq $((SAMPLES * 8)) ] || { echo "the plain file has $ref_bytes bytes, not $((SAMPLES * 8))" >&2; exit 1; }
echo "GNU Radio $($PY -c 'from gnuradio import gr; print(gr.version())'), streamdisk $("$SD" --version | head -1)"
echo "flowgraph: sig_source_c -> throttle ($((RATE * 8 / 1000000)) MB/s) -> head -> file_sink, $((ref_bytes / 1000000)) MB; load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-45s %-10s %-8s %7s %-22s %-15s %s\n' profile identical trace writes "write bytes (p10/p50/p90)" "rate / nominal" "modelled MB/s"
for p in ext4 fat32 exfat-kernel exfat-fuse ntfs-3g; do profiles+=("$p+samsung-960evo-250g"); done
profiles+=(usrp-2974 rpi4-buster-ultrafit-exfat)
for p in "${profiles[@]}"; do
  rm -rf "${W:?}/back/"* "$W/trace.csv"
  "$SD" mount -q -p "$p" --backing "$W/back" --trace "$W/trace.csv" "$W/mnt" 2>"$W/mount.err" &
  PID=$!
  for _ in $(seq 100); do mountpoint -q "$W/mnt" && break; sleep 0.1; done
  mountpoint -q "$W/mnt" || { echo "$p: did not mount: $(cat "$W/mount.err")" >&2; exit 1; }
  ok=1
  secs=$(flowgraph "$W/mnt/iq.cf32") || { echo "$p: the flowgraph failed through the mount" >&2; ok=0; }
  ino=$(stat -c %i "$W/back/iq.cf32" 2>/dev/null)
  kill -INT "$PID"; wait "$PID"; rc=$?; PID=""
  [ "$rc" -eq 0 ] || { echo "$p: the mount exited with $rc: $(cat "$W/mount.err")" >&2; ok=0; }
  same=no; cmp -s "$W/plain/iq.cf32" "$W/back/iq.cf32" && same=yes
  cover=no; $PY "$HERE/../tests/integration/mount_client.py" coverage "$W/trace.csv" "$ino" "$ref_bytes" >"$W/cover.err" 2>&1 && cover=covers
  [ "$cover" = covers ] || { ok=0; cover="$cover ($(tail -1 "$W/cover.err"))"; }
  [ "$same" = yes ] || ok=0
  [ "$ok" -eq 1 ] || fails=$((fails + 1))
  read -r n sizes model < <($PY - "$W/trace.csv" "$ino" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
        if r["op"] == "write" and r["file"] == sys.argv[2]]
b = sorted(int(r["bytes"]) for r in rows)
q = lambda f: b[min(len(b) - 1, int(len(b) * f))] if b else 0
# The device's own pace: bytes over the writes' summed modelled service times.
busy = sum(float(r["modelled_end_s"] or r["end_s"]) - float(r["start_s"]) for r in rows)
print(len(b), f"{q(0.1)}/{q(0.5)}/{q(0.9)}", f"{sum(b) / busy / 1e6:.0f}" if busy > 0 else "-")
PY
)
  ratio=$(awk -v s="${secs:-0}" -v n="$SAMPLES" -v r="$RATE" 'BEGIN { if (s > 0) printf "%.2f", n / s / r; else print "-" }')
  printf '%-45s %-10s %-8s %7s %-22s %-15s %s\n' "$p" "$same" "$cover" "$n" "$sizes" "$ratio" "$model"
done
echo "$(( ${#profiles[@]} - fails )) passed, $fails failed"
[ "$fails" -eq 0 ]
