#!/usr/bin/env bash
# Fidelity and overhead of `streamdisk mount`, measured with fio (run as root:
# it mounts a tmpfs). Prints ratios measured in one run (STYLE.md 12):
#   1. fidelity: fio's sequential O_DIRECT write rate through the mount /
#      the rate `streamdisk show` predicts, per block size, in the burst and
#      in the sustained phase (goal: within +-3 %);
#   2. per-operation completion error, reply time - modelled time, from
#      --trace (goal: p99 <= 1 ms);
#   3. ceiling with an unlimited profile, 1 MiB blocks: the mount with
#      --discard / a do-nothing FUSE filesystem with the same options
#      (bench/nullfs.cpp; goal >= 0.8), and the mount with a tmpfs backing
#      directory (goal >= 2 GB/s).
#   4. mmap: a writer that fills its file through a shared mapping (msync
#      every 4 MiB) against a write() writer with the same 1 MiB blocks, both
#      as rates over the rate `show` predicts, in one run.
# Usage: bench/mount_bench.sh [BUILD_DIR] [fidelity|ceiling|mmap|all]   (about 3 minutes)
set -euo pipefail
BUILD=${1:-build}
WHAT=${2:-all}
SD=$(realpath "$BUILD/cli/streamdisk")
NULLFS=$(realpath "$BUILD/bench/sd_nullfs")
W=$(mktemp -d /tmp/sd-mount-bench.XXXXXX)
mkdir -p "$W/mnt" "$W/tmpfs"
PID=""
cleanup() {
  mountpoint -q "$W/mnt" && fusermount3 -u "$W/mnt"
  [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
  mountpoint -q "$W/tmpfs" && umount "$W/tmpfs"
  rm -rf "$W"
}
trap cleanup EXIT
RT=()
chrt -f 1 true 2>/dev/null && RT=(chrt -f 1)

up() {  # up CMD...: start a filesystem on $W/mnt in the background
  "$@" "$W/mnt" 2>"$W/fs.err" &
  PID=$!
  for _ in $(seq 100); do mountpoint -q "$W/mnt" && return; sleep 0.1; done
  echo "did not mount: $(cat "$W/fs.err")" >&2; exit 1
}
down() { kill -INT "$PID"; wait "$PID" || true; PID=""; }
# fio_bw JSONFILE JOBINDEX: write bandwidth in MB/s
fio_bw() { python3 -c "import json,sys; print(json.load(open('$1'))['jobs'][$2]['write']['bw_bytes']/1e6)"; }

# A USB-stick-like device with modest rates, so a run takes seconds:
# 200 MB burst cache at 400 MB/s, then 100 MB/s, 100 us per request.
P=(-p samsung-960evo-250g --set device.burst_bytes=200MB --set device.burst_mbps=400
   --set device.sustained_mbps=100 --set device.recover_mbps=0 --set device.op_overhead_us=100)
"$SD" show "${P[@]}" --json >"$W/show.json"
predicted() {  # predicted BLOCK PHASE(burst|sustained)
  python3 -c "import json; r=[r for r in json.load(open('$W/show.json'))['write_rates'] if r['block_bytes']==$1][0]; print(r['$2_direct_mbps'])"
}
errors() {  # errors TRACE: p50 p99 of (end - modelled end) for writes, in ms
  python3 - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith('#'))][1:]
e = sorted(float(r[1]) - float(r[8]) for r in rows if r[2] == 'write')
print(f"{e[len(e)//2]*1e3:.3f} {e[int(len(e)*0.99)]*1e3:.3f}")
PY
}

if [ "$WHAT" = mmap ] || [ "$WHAT" = all ]; then
echo "== mmap: a shared-mapping writer and a write() writer, 256 MiB each, rate / predicted 1 MiB rate"
# The kernel's dirty limit decides how much a FUSE mapping may hold dirty (docs/mount.md).
echo "   vm.dirty_bytes=$(sysctl -n vm.dirty_bytes) vm.dirty_ratio=$(sysctl -n vm.dirty_ratio), load $(cut -d' ' -f1 /proc/loadavg)"
M=(-p samsung-960evo-250g --set device.burst_bytes=0 --set device.sustained_mbps=100 --set device.op_overhead_us=100)
"$SD" show "${M[@]}" --json >"$W/mshow.json"
pm=$(python3 -c "import json; print([r for r in json.load(open('$W/mshow.json'))['write_rates'] if r['block_bytes']==1048576][0]['sustained_direct_mbps'])")
CLIENT=$(dirname "$0")/../tests/integration/mount_client.py
mount -t tmpfs -o size=1200m tmpfs "$W/tmpfs"  # a backing directory (not --discard: reads of holes are free)
for round in 1 2 3; do
  rm -f "$W/tmpfs/m" "$W/tmpfs/w"
  up "$SD" mount -q --realtime "${M[@]}" --backing "$W/tmpfs" --trace "$W/mmap.csv"
  read -r ms _ < <("${RT[@]}" python3 "$CLIENT" mmapwrite "$W/mnt/m" 268435456 1)
  t0=$(date +%s.%N); "${RT[@]}" dd if=/dev/zero of="$W/mnt/w" bs=1M count=256 status=none; t1=$(date +%s.%N)
  down
  python3 - "$W/mmap.csv" "$ms" "$t0" "$t1" "$pm" <<'PY'
import csv, statistics, sys
trace, ms, t0, t1, pm = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
rows = [r for r in csv.DictReader(l for l in open(trace) if not l.startswith('#'))]
files = {}
for r in rows:
    files.setdefault(r['file'], []).append(r)
m = rows[0]['file']  # the mapped file is created first
w = [r for r in rows if r['op'] == 'write' and r['file'] == m]
rd = [r for r in rows if r['op'] == 'read' and r['file'] == m]
mb = 268435456 / 1e6
print(f"mmap {mb/ms:6.1f} MB/s ({mb/ms/pm:.2f} of {pm:.1f}), write() {mb/(t1-t0):6.1f} MB/s ({mb/(t1-t0)/pm:.2f}); "
      f"mmap writeback: {len(w)} writes, median {statistics.median(int(r['bytes']) for r in w)/1024:.0f} KiB, "
      f"{len(rd)} page-fault reads")
PY
done
rm -f "$W/tmpfs/m" "$W/tmpfs/w"
umount "$W/tmpfs"
fi
[ "$WHAT" = mmap ] && exit 0

if [ "$WHAT" != ceiling ]; then
echo "== fidelity: fio rate / predicted rate (profile: ${P[*]:2})"
printf "%8s  %9s %9s %6s %13s   %9s %9s %6s %13s\n" block "burst" "pred" ratio "err p50/p99" sustained pred ratio "err p50/p99"
for bs in 4096 16384 65536 262144 1048576 4194304 8388608; do
  size=$((bs < 65536 ? 24 : 150))m  # stays inside the 200 MB burst cache
  up "$SD" mount -q --realtime "${P[@]}" --discard --trace "$W/burst.csv"
  "${RT[@]}" fio --name=b --filename="$W/mnt/f" --rw=write --bs=$bs --size=$size --ioengine=psync --direct=1 \
    --output-format=json --output="$W/b.json" >/dev/null
  down
  up "$SD" mount -q --realtime "${P[@]}" --discard --trace "$W/sus.csv"
  "${RT[@]}" fio --name=fill --filename="$W/mnt/fill" --rw=write --bs=1m --size=210m --ioengine=psync --direct=1 \
    --name=s --stonewall --filename="$W/mnt/f" --rw=write --bs=$bs --size=512m --runtime=2 --time_based \
    --ioengine=psync --direct=1 --output-format=json --output="$W/s.json" >/dev/null
  down
  b=$(fio_bw "$W/b.json" 0) s=$(fio_bw "$W/s.json" 1)
  pb=$(predicted $bs burst) ps=$(predicted $bs sustained)
  read -r be50 be99 < <(errors "$W/burst.csv")
  read -r se50 se99 < <(errors "$W/sus.csv")
  python3 -c "print(f'{$bs//1024:>6}Ki  {$b:9.1f} {$pb:9.1f} {$b/$pb:6.3f} {\"$be50/$be99\":>13}   {$s:9.1f} {$ps:9.1f} {$s/$ps:6.3f} {\"$se50/$se99\":>13}')"
done
echo "(rates in MB/s; err = reply time - modelled completion, ms; the sustained error includes the 1 MiB fill job)"
fi
[ "$WHAT" = fidelity ] && exit 0

echo "== ceiling: unlimited profile, fio 1 MiB sequential O_DIRECT writes, 3 s each, 5 rounds"
U=(-p samsung-960evo-250g --set device.burst_bytes=0 --set device.sustained_mbps=1000000 --set device.op_overhead_us=0)
mount -t tmpfs -o size=1200m tmpfs "$W/tmpfs"
run_ceiling() {  # run_ceiling FILE: MB/s
  fio --name=c --filename="$W/mnt/$1" --rw=write --bs=1m --size=1g --runtime=3 --time_based --ioengine=psync \
    --direct=1 --output-format=json --output="$W/c.json" >/dev/null
  fio_bw "$W/c.json" 0
}
ROWS=""
for round in 1 2 3 4 5; do
  up "$NULLFS"; n=$(run_ceiling data); down
  up "$SD" mount -q "${U[@]}" --discard; d=$(run_ceiling data); down
  up "$SD" mount -q "${U[@]}" --backing "$W/tmpfs"; t=$(run_ceiling data); down
  rm -f "$W/tmpfs/data"
  ROWS+="$n $d $t
"
  python3 -c "print(f'round $round: nullfs {$n:7.0f} MB/s   mount --discard {$d:7.0f} MB/s (ratio {$d/$n:.2f})   mount tmpfs backing {$t:7.0f} MB/s')"
done
# The machine is shared: each round compares runs seconds apart; report medians.
printf '%s' "$ROWS" | python3 -c "
import statistics as st, sys
r = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(f'median: nullfs {st.median(x[0] for x in r):.0f} MB/s, --discard {st.median(x[1] for x in r):.0f} MB/s, '
      f'ratio {st.median(x[1]/x[0] for x in r):.2f}; tmpfs backing {st.median(x[2] for x in r):.0f} MB/s '
      f'(ratio {st.median(x[2]/x[0] for x in r):.2f})')"
