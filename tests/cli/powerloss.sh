#!/usr/bin/env bash
# simulate --fault powerloss (docs/faults.md "Power loss"): what survives, per
# filesystem rule, header strategy and device cache, from the model alone:
#   - ext4 (journal every 5 s): a WAV whose header is written at close keeps
#     up to a commit interval less than was written, and reads as 0 s
#     strictly; with the header rewritten every second, strictly nearly all;
#   - exfat-fuse (size at close): the open file is empty; split parts that
#     were closed survive whole;
#   - FAT32 in the kernel: the length follows the data written back;
#   - a volatile device cache: an fsync protects everything when the flush
#     is honest, not when it lies;
#   - a power loss after the recording ended; the text rows; bad input.
. "$(dirname "$0")/../lib.sh"
EXT4=rpi4-bullseye+ext4+samsung-sata-ssd-laptop
REC=(-c 8 -r 48k -b 16 -f wav -d 60s --no-spread)  # 768 kB/s, 512 KiB blocks every 0.68 s
RATE=768000

sim() { "$STREAMDISK" simulate "$@" --json || fail "simulate $*: exit $?"; }
# check JSON PYTHON-ASSERTIONS: j is the simulate JSON, f its first file's power-loss entry.
check() {
  python3 - "$1" "$2" <<'PY' || fail "$3"
import json, sys
j = json.loads(sys.argv[1])
pl = j["power_loss"]
f = pl["files"][0]
exec(sys.argv[2])
PY
}

# ext4, header at close.
j=$(sim -p $EXT4 "${REC[@]}" --fault powerloss@20s)
check "$j" "
assert pl['length_rule'] == 'journal commit' and abs(pl['time_s'] - 20) < 1e-9, pl
assert f['name'] == 'rec.wav' and f['exists'], f
w, n = f['written_bytes'], f['length_bytes']
assert 19 * $RATE < w <= 20.1 * $RATE, w
assert (20 - 5 - 1) * $RATE < n < w, (n, w)     # at most a commit interval and a block lost
assert f['data_bytes'] == n, f                  # ordered data: no zeros inside the length
i = f['inspect']
assert i['strict_seconds'] == 0 and i['repair_needed'], i
assert abs(i['lenient_seconds'] - (n - 44) / $RATE) < 0.01, i
" "ext4, header at close: $j"

# ext4, header every second: the header rewrites reach the disk at once (an
# overwrite in place), the length only at the next commit: the header runs
# ahead of the length, and a strict reader still gets nothing.
j=$(sim -p $EXT4 "${REC[@]}" --fault powerloss@20s --header-every 1s)
check "$j" "
i = f['inspect']
assert 13 < i['lenient_seconds'] < 20, i
assert i['strict_seconds'] == 0 and i['declared_bytes'] > i['present_bytes'], i
assert i['declared_bytes'] <= f['written_bytes'], i
" "ext4, header every second: $j"

# exfat-fuse: the size is written at close.
EXFAT=rpi4-buster+exfat-fuse+samsung-sata-ssd-laptop
j=$(sim -p $EXFAT "${REC[@]}" --fault powerloss@20s --header-every 1s)
check "$j" "
assert pl['length_rule'] == 'at close/fsync', pl
assert f['exists'] and f['length_bytes'] == 0 and f['written_bytes'] > 10 * $RATE, f
" "exfat-fuse: $j"
# ... and once closed, all of it (the recording ended at 10 s).
j=$(sim -p $EXFAT -c 8 -r 48k -b 16 -f wav -d 10s --no-spread --fault powerloss@11s)
check "$j" "
assert f['length_bytes'] == f['written_bytes'] == f['data_bytes'], f
assert f['inspect']['strict_seconds'] == f['inspect']['lenient_seconds'] > 9.9, f
" "exfat-fuse after close: $j"

# FAT32 in the kernel: the length is the data on the device, the header at
# close never got there; rewritten every second, it lags the length by at
# most a second, so a strict reader gets nearly all.
FAT=rpi4-bullseye+fat32+samsung-sata-ssd-laptop
j=$(sim -p $FAT "${REC[@]}" --fault powerloss@20s)
check "$j" "
assert pl['length_rule'] == 'with the data', pl
n, w = f['length_bytes'], f['written_bytes']
assert w - 2 * 524288 <= n <= w, f   # written back within a block or two
assert f['inspect']['strict_seconds'] == 0, f
" "fat32: $j"
j=$(sim -p $FAT "${REC[@]}" --fault powerloss@20s --header-every 1s)
check "$j" "
i = f['inspect']
assert 19 < i['lenient_seconds'] <= 20, i
assert i['lenient_seconds'] - 1.5 < i['strict_seconds'] <= i['lenient_seconds'], i
" "fat32, header every second: $j"

# A volatile cache that keeps data up to 30 s, an fsync at the end (it
# returns at the next journal commit, about 65 s), the power cut at 66 s.
CACHE=(--fsync --fault powerloss@66s --set device.write_cache_bytes=64MiB --set device.write_cache_destage_ms=30000)
j=$(sim -p $EXT4 "${REC[@]}" "${CACHE[@]}")
check "$j" "
assert pl['flush_honest'] and pl['write_cache_bytes'] == 64 * 2**20, pl
assert f['length_bytes'] == f['written_bytes'] == f['data_bytes'], f
assert f['inspect']['strict_seconds'] == f['inspect']['lenient_seconds'] > 59.3, f
" "honest flush: $j"
j=$(sim -p $EXT4 "${REC[@]}" "${CACHE[@]}" --set device.flush_honest=0)
check "$j" "
assert not pl['flush_honest'], pl
assert f['length_bytes'] < f['written_bytes'] - 20 * $RATE, f   # back to a commit 30 s old
assert f['inspect']['strict_seconds'] == 0, f
" "lying flush: $j"

# After the recording ended: ext4 commits within 5 s, so 30 s later all is there.
j=$(sim -p $EXT4 -c 8 -r 48k -b 16 -f wav -d 10s --no-spread --fault powerloss@30s)
check "$j" "
assert abs(pl['time_s'] - 30) < 1e-9, pl
assert f['length_bytes'] == f['written_bytes'], f
assert f['inspect']['strict_seconds'] == j['frames_written'] / 48000, f
" "after the end: $j"
# ... and 0.1 s after the end, before the commit after the close: the header
# (rewritten in place at close, durable at once) declares more than the
# committed length, so a strict reader gets nothing.
j=$(sim -p $EXT4 -c 8 -r 48k -b 16 -f wav -d 10s --no-spread --fault powerloss@10.1s)
check "$j" "
assert f['inspect']['strict_seconds'] == 0 and f['length_bytes'] < f['written_bytes'], f
" "0.1 s after the end: $j"

# A byte trigger: the power goes when the recording passes 6 MB.
j=$(sim -p $EXT4 "${REC[@]}" --fault 'powerloss@6MB,file=rec*')
check "$j" "
assert 6e6 / $RATE < pl['time_s'] < 6e6 / $RATE + 0.7, pl
assert f['written_bytes'] <= 6_000_000, f
" "byte trigger: $j"

# Text: the rule and one row per file.
text=$("$STREAMDISK" simulate -p $EXT4 "${REC[@]}" --fault powerloss@20s)
grep -q "power loss .*at 20.000 s: lengths durable journal commit" <<<"$text" || fail "no power loss row: $text"
grep -q "survivor .*rec.wav: .* survive; strict reader 0.000 s, lenient .*header needs repair" <<<"$text" ||
  fail "no survivor row: $text"
grep -q "fault .*power lost" <<<"$text" || fail "no power-loss event: $text"

expect_bad_input "powerloss with for=" "stays gone" -- simulate -p $EXT4 --fault powerloss@1s,for=2s
expect_bad_input "powerloss with ops" "hits every operation" -- simulate -p $EXT4 --fault powerloss:write@1s
expect_bad_input "bad cache size" "write_cache_bytes" -- simulate -p $EXT4 --set device.write_cache_bytes=-1
finish
