#!/usr/bin/env bash
# Issue 11: hostile, endless, absurd and wrong inputs. Each case was a crash,
# a hang, a wrong result or a misleading message before the fix; now each is
# one line on stderr, exit 2, nothing written (or, for replay's errors, a
# result that tells the truth).
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
fifo_pid=
cleanup() { [ -n "$fifo_pid" ] && kill "$fifo_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
dev=samsung-960evo-250g
# expect_quick_bad_input: the same, within 20 s (an endless input must not hang or grow memory).
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$STREAMDISK" >"$tmp/sd-timeout"
chmod +x "$tmp/sd-timeout"
expect_quick_bad_input() {
  local what=$1 regex=$2; shift 3
  local start=$SECONDS
  STREAMDISK="$tmp/sd-timeout" expect_bad_input "$what" "$regex" -- "$@"
  [ $((SECONDS - start)) -lt 20 ] || fail "$what: took $((SECONDS - start)) s"
}

# §1 crashes: fio JSON of the wrong types; measure requests the machine cannot run.
printf '{"jobs":[{"jobname":"a","job options":{"bs":4096},"write":{"io_bytes":1,"bw_bytes":5}}]}' >"$tmp/bs.json"
expect_bad_input "fio json bs as a number" "bs.json job 'a': option \"bs\" must be a string" -- calibrate --fio-json "$tmp/bs.json"
printf '{"jobs":[5]}' >"$tmp/jobs.json"
expect_bad_input "fio json jobs: [5]" "jobs\\[0\\]: each job must be an object" -- calibrate --fio-json "$tmp/jobs.json"
printf '{"jobs":[{"jobname":"a","job options":{"bs":"4k"},"write":{"io_bytes":"x","bw_bytes":5}}]}' >"$tmp/io.json"
expect_bad_input "fio json io_bytes a string" "\"io_bytes\" must be a number" -- calibrate --fio-json "$tmp/io.json"
printf '{"jobs":[{"jobname":"a","job options":{"bs":"4k"},"write":{"io_bytes":5,"bw_bytes":null}}]}' >"$tmp/null.json"
expect_bad_input "fio json bw_bytes null" "no job did any reads or writes" -- calibrate --fio-json "$tmp/null.json"
mkdir "$tmp/m"
expect_bad_input "measure 64GiB blocks" "block size: '64GiB' is more than this sweep can run: give at most 1GiB" -- measure "$tmp/m" --sweep blocksize --blocks 64GiB
expect_bad_input "measure 100000 threads" "thread count: '100000' is more than this sweep can run" -- measure "$tmp/m" --sweep threads --threads 100000
expect_quick_bad_input "measure a model for 1 PB in 4k blocks" "would simulate .* operations" -- measure --profile $dev --sweep sustained --size 1PB --blocks 4k
expect_bad_input "measure for 100 h per point" "would run for .*at most a day" -- measure "$tmp/m" --sweep blocksize --seconds 100h
[ -z "$(ls -A "$tmp/m")" ] || fail "refused measure left files: $(ls -A "$tmp/m")"

# §4 endless and binary inputs end at once.
expect_quick_bad_input "replay /dev/zero" "/dev/zero:1: holds a NUL byte" -- replay /dev/zero -p $dev
expect_quick_bad_input "calibrate /dev/zero" "NUL byte" -- calibrate /dev/zero
expect_quick_bad_input "fio json /dev/zero" "NUL byte" -- calibrate --fio-json /dev/zero
expect_quick_bad_input "table /dev/zero" "NUL byte" -- calibrate --table /dev/zero
expect_quick_bad_input "fio log /dev/zero" "NUL byte" -- calibrate --fio-lat-log /dev/zero
expect_quick_bad_input "report /dev/zero" "NUL byte" -- report /dev/zero -o "$tmp/r.html"
expect_quick_bad_input "profile /dev/zero" "NUL byte" -- show /dev/zero
expect_quick_bad_input "endless line" "a line longer than 1 MiB" -- replay <(yes | tr -d '\n') -p $dev
# CR-only line endings: named, and the message quotes no more than a line's worth.
printf '# streamdisk-trace 1\r%s\r' "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error" >"$tmp/cr.csv"
for i in $(seq 1 3000); do printf '0.1,0.2,write,f,0,4096,0,1,,0\r'; done >>"$tmp/cr.csv"
expect_bad_input "CR-only trace" "cr.csv:1: CR-only line endings" -- replay "$tmp/cr.csv" -p $dev
msg=$("$STREAMDISK" replay "$tmp/cr.csv" -p $dev 2>&1 >/dev/null)
[ ${#msg} -lt 300 ] || fail "CR-only message is ${#msg} characters long"

# §7 pipes are read like files.
printf '# streamdisk-trace 1\nstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n0,0.001,write,f,0,1048576,0,1,,0\n0.5,0.501,write,f,1048576,1048576,0,1,,0\n' >"$tmp/ok.csv"
out=$("$STREAMDISK" replay <(cat "$tmp/ok.csv") -p $dev --json) || fail "replay of a pipe failed"
printf '%s' "$out" | grep -q '"ops": 2' || fail "replay of a pipe did not read its 2 ops: $out"

# §6 wrong values in a native trace are refused where they are read.
row() { printf '# streamdisk-trace 1\n%sstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n%s\n' "$2" "$3" >"$tmp/$1.csv"; }
row neg_bytes "" "0,0.001,write,f,0,-1,0,1,,0"
expect_bad_input "bytes=-1" "neg_bytes.csv:3: bytes '-1' must be a whole number" -- replay "$tmp/neg_bytes.csv" -p $dev
row neg_off "" "0,0.001,write,f,-4096,4096,0,1,,0"
expect_bad_input "negative offset" "offset '-4096'" -- replay "$tmp/neg_off.csv" -p $dev
row neg_start "" "-1e300,0.001,write,f,0,4096,0,1,,0"
expect_bad_input "start_s=-1e300" "start_s and end_s must be seconds" -- replay "$tmp/neg_start.csv" -p $dev
row neg_thread "" "0,0.001,write,f,0,4096,-1,1,,0"
expect_bad_input "negative thread" "thread '-1'" -- replay "$tmp/neg_thread.csv" -p $dev
row neg_queue "" "0,0.001,write,f,0,4096,0,-3,,0"
expect_bad_input "negative queue depth" "queue_depth '-3'" -- calibrate "$tmp/neg_queue.csv"
row neg_error "" "0,0.001,write,f,0,4096,0,1,,-5"
expect_bad_input "negative error" "unknown error '-5'" -- replay "$tmp/neg_error.csv" -p $dev
row nan_cap "# capacity_bytes=nan
" "0,0.001,write,f,0,4096,0,1,,0"
expect_bad_input "capacity_bytes=nan" "header line '# capacity_bytes=nan' must be a number" -- replay "$tmp/nan_cap.csv" -p $dev
expect_bad_input "capacity_bytes=nan (calibrate)" "capacity_bytes=nan" -- calibrate "$tmp/nan_cap.csv"

# strace: impossible times, impossible results; -ttt output is recognised.
printf '100 25:61:99.000000 openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3 <0.000010>\n' >"$tmp/time.strace"
expect_bad_input "strace 25:61:99" "time.strace:1: impossible timestamp '25:61:99.000000'" -- replay "$tmp/time.strace" -p $dev
printf '100 10:00:00.000000 openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3 <0.000010>\n100 10:00:00.100000 write(3, "abc"..., 4096) = 8192 <0.000100>\n' >"$tmp/more.strace"
expect_bad_input "write returns more than asked" "more.strace:2: write returned 8192, more than the 4096 bytes" -- replay "$tmp/more.strace" -p $dev
printf '100 1700000000.000000 openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3 <0.000010>\n100 1700000000.100000 write(3, "abc"..., 4096) = 4096 <0.000100>\n100 1700000000.200000 close(3) = 0 <0.000005>\n' >"$tmp/ttt.strace"
out=$("$STREAMDISK" replay "$tmp/ttt.strace" -p $dev --json) || fail "strace -ttt output is not read"
printf '%s' "$out" | grep -q '"format": "strace"' || fail "strace -ttt not detected: $out"

# Units and numbers: one syntax on the command line and in TOML, integers where the model needs them.
expect_bad_input "a size for a rate" "'5GB' is a size, not a rate" -- show $dev --set device.sustained_mbps=5GB
expect_bad_input "--seed -1" "--seed.*'-1' is not a whole number" -- simulate -p $dev --seed -1
expect_bad_input "--seed 0x10" "--seed.*'0x10' is not a whole number" -- simulate -p $dev --seed 0x10
expect_bad_input "read_queue_depth=2.5" "read_queue_depth = 2.5 must be a whole number" -- show $dev --set device.read_queue_depth=2.5
expect_bad_input "userspace=0.5" "userspace = 0.5 must be a whole number \\(0 or 1\\)" -- show ext4+$dev --set filesystem.userspace=0.5
expect_bad_input "0x10 on the command line" "0x10" -- show $dev --set device.sustained_mbps=0x10
printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = 0x10\n' >"$tmp/hex.toml"
expect_bad_input "0x10 in TOML" "hex.toml: 'sustained_mbps' is written in hexadecimal" -- show "$tmp/hex.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = 20\nread_queue_depth = 2.5\n' >"$tmp/qd.toml"
expect_bad_input "read_queue_depth=2.5 in TOML" "read_queue_depth = 2.5 must be a whole number" -- show "$tmp/qd.toml"
expect_bad_input "a sample rate that records nothing" "delivers no data" -- simulate -p $dev -r 0.5
expect_bad_input "--json and --trace - on stdout" "both want stdout" -- simulate -p $dev --json --trace -

# §5 absurd but valid requests are refused up front, quickly, with the reason.
expect_quick_bad_input "tiny stall interval" "would take .*stall" -- simulate -p $dev --set device.stall_interval_mb=1e-12 --set device.stall_duration_ms=1000000
expect_quick_bad_input "100000 h of 64 channels" "would take .*recorder writes" -- simulate -p $dev --set device.capacity_bytes=0 -c 64 -d 100000h
expect_quick_bad_input "--split 128KiB at 640 MB/s for 1.5 h" "would create .* files .*raise --split" -- simulate -p usrp-2974 -c 2 -r 160M -b 16 --buffer 256MiB --split 128KiB -d 1.5h
expect_quick_bad_input "1000 seeds over every stack" "this search would take" -- capacity -p '*+*+*' --seeds 1000
# A tiny --max-overrun-probability: the seed count it needs overflowed an int and the search spun for minutes.
expect_quick_bad_input "P < 1e-300 with stalls" "this search would take" -- \
  capacity -p rpi4-buster-ultrafit-exfat --no-spread -d 10s --max-overrun-probability 1e-300
start=$SECONDS
out=$(timeout 20 "$STREAMDISK" capacity -p $dev --no-spread -d 10s --max-overrun-probability 1e-9 --json) \
  || fail "capacity at P < 1e-9 without stalls: exit $? (one exact run answers it)"
[ $((SECONDS - start)) -lt 20 ] || fail "capacity at P < 1e-9 without stalls took $((SECONDS - start)) s"
printf '%s' "$out" | grep -q '"max_overrun_probability": 1e-09' || fail "capacity at P < 1e-9: $out"
{ echo "block_bytes,threads,mbps,op"; for t in 1 2 4 8 16 32 64 128 256 512; do for i in $(seq 1 50); do echo "$((i * 4096)),$t,$((100 + i)),read"; done; done; } >"$tmp/big.csv"
expect_quick_bad_input "500-row read table" "the read fit over 500 read cells" -- calibrate --table "$tmp/big.csv"
printf 'block_bytes,threads,mbps,op\n4096,1,10,read\n65536,1,100,read\n4096,1000,200,read\n65536,1000,500,read\n' >"$tmp/t1000.csv"
expect_quick_bad_input "threads=1000" "up to 1000 threads" -- calibrate --table "$tmp/t1000.csv"

# §7 messages say what the input is.
expect_bad_input "show a directory" "profile file '$tmp' is a directory" -- show "$tmp"
# (Only where /dev/null is the device: a broken run of another tool may have replaced it.)
if [ -c /dev/null ]; then
  expect_bad_input "show /dev/null" "profile file '/dev/null' is /dev/null, which is always empty" -- show /dev/null
else
  fail "/dev/null is not a character device on this machine: restore it (mknod -m 666 /dev/null c 1 3)"
fi
mkfifo "$tmp/fifo"
(printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = 20\n' >"$tmp/fifo") & fifo_pid=$!
"$STREAMDISK" show "$tmp/fifo" >/dev/null || fail "a profile from a fifo is not read"
fifo_pid=
msg=$("$STREAMDISK" show ext4 2>&1)
hint=$(printf '%s' "$msg" | sed -n "s/.*e.g. 'ext4+\\([^']*\\)'.*/\\1/p")
[ -n "$hint" ] && "$STREAMDISK" show "ext4+$hint" >/dev/null || fail "no-device-layer hint '$hint' is not a profile that loads: $msg"
printf 'format_version = 1\nlayer = 3\n' >"$tmp/layer3.toml"
expect_bad_input "layer = 3" "layer = 3 is not a layer" -- show "$tmp/layer3.toml"

# Build item 5: replay tells the truth about failed writes.
{ echo '# streamdisk-trace 1'; echo 'start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error'
  for i in $(seq 0 9); do echo "$i.0,$i.001,write,f,$((i * 1048576)),1048576,0,1,,0"; done; } >"$tmp/fill.csv"
out=$("$STREAMDISK" replay "$tmp/fill.csv" -p $dev --capacity 2MiB --json) || fail "replay onto a full device failed to run"
python3 - "$out" <<'PY' || fail "replay JSON does not tell the truth about ENOSPC: $out"
import json, sys
r = json.loads(sys.argv[1])["results"][0]
assert r["kept_up"] is False, r["kept_up"]
assert r["failed_ops"] >= 8, r["failed_ops"]
assert r["bytes_written"] <= 2 * 1048576, r["bytes_written"]
assert r["first_error"]["error"] in ("ENOSPC", "short write"), r["first_error"]
assert r["errors"].get("ENOSPC", 0) >= 1, r["errors"]
PY
human=$("$STREAMDISK" replay "$tmp/fill.csv" -p $dev --capacity 2MiB)
printf '%s' "$human" | grep -q "operations failed" || fail "the table does not show the failed operations: $human"
printf '%s' "$human" | grep -q "Verdict: 0 of 1" || fail "a replay whose writes failed is said to keep up: $human"
finish
