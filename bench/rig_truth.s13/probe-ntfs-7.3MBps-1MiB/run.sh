#!/bin/bash
# How this directory was made (session 13, as root, from the repository's root):
#   bench/rig_truth.s13/probe-ntfs-7.3MBps-1MiB/run.sh /tmp/probe ntfs 7.3MB/s 1MiB --duration 90s
# tests/rig/probe.sh on the ntfs rig, and beside it perf trace of ntfs-3g's calls on its
# block device that took longer than 20 ms (perf.txt).
set -u
[ $# -ge 4 ] || { echo "usage: $0 OUTDIR RIG RATE BUFFER [probe.sh options]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=$1; shift
mkdir -p "$out"
"$root/tests/rig/probe.sh" "$@" --out "$out" > "$out/probe.log" 2>&1 &
pp=$!
p=
for _ in $(seq 1 600); do p=$(pgrep -x ntfs-3g | head -1); [ -n "$p" ] && break; sleep 0.1; done
echo "ntfs-3g pid $p" > "$out/perf.log"
perf trace --duration 20 -e pread64,pwrite64,fsync,fdatasync -p "$p" -o "$out/perf.txt" 2>>"$out/perf.log" &
tp=$!
wait $pp
kill -INT $tp 2>/dev/null; wait $tp
