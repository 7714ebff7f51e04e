#!/usr/bin/env bash
# A real program's I/O, captured with strace, replays in virtual time against
# a profile and in wall-clock time against a directory.
source "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || { echo "strace is not installed (./run.sh installs it)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
strace -f -tt -T -e trace=openat,read,write,pwrite64,writev,lseek,fsync,fdatasync,close,ftruncate,fallocate,dup2,dup3,fcntl \
  -o dd.strace dd if=/dev/zero of=rec.bin bs=256k count=24 conv=fsync 2>/dev/null || fail "strace dd failed"
[ "$(stat -c %s rec.bin)" -eq $((256 * 1024 * 24)) ] || fail "dd did not write the file"

out=$("$STREAMDISK" replay dd.strace -p samsung-960evo-250g --json) || fail "replay of the dd capture failed"
python3 - "$out" <<'PY' || fail "dd replay JSON is not what was expected"
import json, sys
j = json.loads(sys.argv[1])
t = j["trace"]
assert t["format"] == "strace"
assert t["bytes_written"] == 256 * 1024 * 24, t["bytes_written"]
r = j["results"][0]
assert r["writes"] == 24, r["writes"]
assert r["completion_s"] > 0
PY

mkdir target
out=$("$STREAMDISK" replay dd.strace --target target --time-scale 0.5 --json) || fail "wall-clock replay failed"
python3 - "$out" <<'PY' || fail "wall-clock replay JSON is not what was expected"
import json, sys
j = json.loads(sys.argv[1])
r = j["results"][0]
assert r["target"] == "path"
assert r["bytes_written"] == 256 * 1024 * 24
assert r["errors"] == {}, r["errors"]
# At half the recorded time scale, the replay cannot end before half the recording.
assert r["completion_s"] >= 0.5 * j["trace"]["recorded_end_s"] * 0.99 - 0.001, (r["completion_s"], j["trace"]["recorded_end_s"])
PY
[ -z "$(ls target)" ] || fail "replay --target left files behind: $(ls target)"
"$STREAMDISK" replay dd.strace --target target --keep >/dev/null || fail "replay --keep failed"
[ "$(stat -c %s target/replay-*-1.dat)" -eq $((256 * 1024 * 24)) ] || fail "--keep did not keep a file of the traced size"
finish
