#!/usr/bin/env bash
# An audio recorder's file, captured with strace: sox writes a W64 file
# through libsndfile, which rewrites the header at the end after reading it
# back. Replaying the capture on real storage must rebuild a file of exactly
# the size sox wrote (offsets reconstructed from fds, seeks and reads), and
# the virtual-time replay must run against a Pi profile.
source "$(dirname "$0")/../lib.sh"
for t in strace sox; do command -v $t >/dev/null || { echo "$t is not installed (./run.sh installs it)"; exit 1; }; done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
strace -f -tt -T -e trace=openat,read,write,pwrite64,writev,lseek,fsync,fdatasync,close,ftruncate,fallocate,dup2,dup3,fcntl \
  -o sox.strace sox -q -n -r 48000 -c 18 -b 16 rec.w64 synth 2 sine 440 vol 0.5 || fail "strace sox failed"
size=$(stat -c %s rec.w64)
[ "$size" -gt 3000000 ] || fail "sox wrote only $size bytes"
mkdir target
"$STREAMDISK" replay sox.strace --target target --keep --as-fast-as-possible >/dev/null || fail "wall-clock replay failed"
[ "$(stat -c %s target/replay-*-1.dat)" -eq "$size" ] \
  || fail "replayed file is $(stat -c %s target/replay-*-1.dat) bytes, sox wrote $size"
out=$("$STREAMDISK" replay sox.strace -p rpi4-buster-ultrafit-exfat --buffer 2MiB --json) || fail "virtual replay failed"
python3 - "$out" "$size" <<'PY' || fail "sox replay JSON is not what was expected"
import json, sys
j, size = json.loads(sys.argv[1]), int(sys.argv[2])
t = j["trace"]
# Every byte of the file, plus the header written again at the end.
assert size < t["bytes_written"] < size + 4096, (t["bytes_written"], size)
assert t["files"] == 1, t["files"]
r = j["results"][0]
assert r["errors"] == {}, r["errors"]
assert r["completion_s"] > 0
PY
finish
