#!/usr/bin/env bash
# The output-file rules (docs/formats.md "Output files"), for every command
# that writes a file: a device node is written, never replaced; a symlink's
# target is written and the link kept; a directory, a missing directory or an
# input as the output is refused (exit 2, one line, the input intact); a
# user's existing files are never touched. Needs root (mknod); no mount.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for mknod"; exit 77; }
P=samsung-960evo-250g
SYNTH=sd_synth_traces  # tests/lib.sh

# Inputs for the commands that read: a native trace, a fio iolog, a JSON.
mkdir "$tmp/in"
"$STREAMDISK" simulate -p $P -c 2 -r 48k -b 16 -d 2s --trace "$tmp/in/trace.csv" >/dev/null || fail "simulate --trace"
printf 'fio version 3 iolog\n5 /d/f add\n10 /d/f open\n100 /d/f write 0 65536\n40100 /d/f close\n' >"$tmp/in/j.iolog"
"$STREAMDISK" show $P --json >"$tmp/in/show.json" || fail "show --json"
cat >"$tmp/in/dev.toml" <<'TOML'
format_version = 1
layer = "device"
name = "mine"
[params]
sustained_mbps = 100
TOML
"$SYNTH" "$tmp/in/dev.toml" "$tmp/in" >/dev/null || fail "sd_synth_traces"
mkdir "$tmp/rec" "$tmp/meas"

# run NAME OUTPUT: runs one writing command with OUTPUT as its output file.
run() {
  local out=$2
  case $1 in
    simulate) "$STREAMDISK" simulate -p $P -c 2 -r 48k -b 16 -d 2s --trace "$out" ;;
    report)   "$STREAMDISK" report "$tmp/in/show.json" -o "$out" ;;
    calibrate) "$STREAMDISK" calibrate "$tmp/in/sweep.csv" -o "$out" ;;
    replay)   "$STREAMDISK" replay "$tmp/in/j.iolog" -p $P --trace-out "$out" ;;
    measure)  "$STREAMDISK" measure "$tmp/meas" --sweep blocksize --blocks 64k --size 256k --seconds 0.05 --trace "$out" ;;
    record)   rm -rf "$tmp/rec"/*; "$STREAMDISK" record "$tmp/rec" -c 2 -r 8k -b 16 -f wav -d 0.5s --trace "$out" ;;
  esac
}
# What each command's output starts with.
declare -A head=([simulate]='# streamdisk-trace' [report]='<!DOCTYPE html>' [calibrate]='format_version'
                 [replay]='# streamdisk-trace' [measure]='# streamdisk-trace' [record]='# streamdisk-trace')

for cmd in simulate report calibrate replay measure record; do
  d="$tmp/$cmd"; mkdir "$d"
  # A character device (a copy of /dev/null) is written, not replaced.
  mknod "$d/null" c 1 3
  run $cmd "$d/null" >/dev/null 2>"$d/err" || fail "$cmd to a char device (null): exit $? ($(cat "$d/err"))"
  [ -c "$d/null" ] || fail "$cmd replaced the device node null"
  # A copy of /dev/full: the write fails (exit 1, one line), the node stays.
  mknod "$d/full" c 1 7
  run $cmd "$d/full" >/dev/null 2>"$d/err"; rc=$?
  [ "$rc" -eq 1 ] || fail "$cmd to a full device: exit $rc, expected 1 ($(cat "$d/err"))"
  grep -q 'No space left' "$d/err" || fail "$cmd to a full device: message '$(cat "$d/err")'"
  [ -c "$d/full" ] || fail "$cmd replaced the device node full"
  # A fifo is written directly (a reader gets the output).
  mkfifo "$d/fifo"
  cat "$d/fifo" >"$d/from-fifo" &
  reader=$!
  run $cmd "$d/fifo" >/dev/null 2>"$d/err" || fail "$cmd to a fifo: exit $? ($(cat "$d/err"))"
  wait $reader
  [ -p "$d/fifo" ] || fail "$cmd replaced the fifo"
  head -c 200 "$d/from-fifo" | grep -q -- "${head[$cmd]}" || fail "$cmd to a fifo: the reader got no output"
  # A symlink: its target is written, the link stays a link.
  printf 'old\n' >"$d/target"
  ln -s target "$d/link"
  run $cmd "$d/link" >/dev/null 2>"$d/err" || fail "$cmd to a symlink: exit $? ($(cat "$d/err"))"
  [ -L "$d/link" ] || fail "$cmd replaced the symlink"
  head -c 200 "$d/target" | grep -q -- "${head[$cmd]}" || fail "$cmd did not write the symlink's target"
  # A dangling symlink: the target is created.
  ln -s new-target "$d/dangling"
  run $cmd "$d/dangling" >/dev/null 2>"$d/err" || fail "$cmd to a dangling symlink: exit $? ($(cat "$d/err"))"
  [ -L "$d/dangling" ] && [ -s "$d/new-target" ] || fail "$cmd: dangling symlink not written through"
  # An existing file is replaced whole, keeping its mode.
  printf 'old\n' >"$d/existing"; chmod 0640 "$d/existing"
  run $cmd "$d/existing" >/dev/null 2>"$d/err" || fail "$cmd over an existing file: exit $? ($(cat "$d/err"))"
  [ "$(stat -c %a "$d/existing")" = 640 ] || fail "$cmd did not keep the mode of the file it replaced"
  # A directory, a missing directory: exit 2, one line.
  mkdir "$d/adir"
  for bad in "$d/adir" "$d/no/such/dir/out"; do
    err=$(run $cmd "$bad" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] || fail "$cmd to $bad: exit $rc, expected 2 ($err)"
    [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] || fail "$cmd to $bad: expected one line, got: $err"
    printf '%s' "$err" | grep -Eq 'is a directory|does not exist' || fail "$cmd to $bad: message '$err'"
  done
  [ -d "$d/adir" ] && [ -z "$(ls -A "$d/adir")" ] || fail "$cmd wrote into or replaced the directory"
  # Nothing else appeared: no temporary or partial files.
  extra=$(ls -A "$d" | grep -Ev '^(null|full|fifo|from-fifo|target|link|dangling|new-target|existing|adir|err)$')
  [ -z "$extra" ] || fail "$cmd left files behind: $extra"
done

# The same file as an input: refused with exit 2, the input unchanged.
same() {  # same WHAT INPUT -- ARGS...
  local what=$1 input=$2; shift 3
  local sum; sum=$(md5sum <"$input")
  expect_bad_input "$what" "is also an input|of the recording itself" -- "$@"
  [ "$(md5sum <"$input")" = "$sum" ] || fail "$what: the input was changed"
}
same "calibrate -o its input" "$tmp/in/sweep.csv" -- calibrate "$tmp/in/sweep.csv" -o "$tmp/in/sweep.csv"
ln -s sweep.csv "$tmp/in/sweep-link.csv"
same "calibrate -o a link to its input" "$tmp/in/sweep.csv" -- calibrate "$tmp/in/sweep.csv" -o "$tmp/in/sweep-link.csv"
same "report -o its input" "$tmp/in/show.json" -- report "$tmp/in/show.json" -o "$tmp/in/show.json"
same "replay --trace-out its input" "$tmp/in/trace.csv" -- replay "$tmp/in/trace.csv" -p $P --trace-out "$tmp/in/trace.csv"
same "simulate --trace its profile" "$tmp/in/dev.toml" -- simulate -p "$tmp/in/dev.toml" -c 1 -r 8k -b 16 -d 1s --trace "$tmp/in/dev.toml"
same "calibrate -o its --base" "$tmp/in/dev.toml" -- calibrate "$tmp/in/sweep.csv" --base "$tmp/in/dev.toml" -o "$tmp/in/dev.toml"
# A profile is an input also as one part of a composed spec, and for every command
# that takes one (each of these replaced the TOML file with its output).
same "calibrate -o a part of its --base" "$tmp/in/dev.toml" -- \
  calibrate "$tmp/in/sweep.csv" --base "ext4+$tmp/in/dev.toml" -o "$tmp/in/dev.toml"
same "measure --trace its profile" "$tmp/in/dev.toml" -- \
  measure --profile "$tmp/in/dev.toml" --sweep blocksize --blocks 64k --size 256k --trace "$tmp/in/dev.toml"
same "characterize -o its profile" "$tmp/in/dev.toml" -- \
  characterize -p "ext4+$tmp/in/dev.toml" --budget 1min -o "$tmp/in/dev.toml"
same "replay --trace-out its profile" "$tmp/in/dev.toml" -- \
  replay "$tmp/in/j.iolog" -p "$tmp/in/dev.toml" --trace-out "$tmp/in/dev.toml"
# ... and as a file a composite profile file names for one of its layers.
cat >"$tmp/in/comp.toml" <<'TOML'
format_version = 1
name = "comp"
filesystem = "ext4"
device = "dev.toml"
TOML
same "simulate --trace a file its composite names" "$tmp/in/dev.toml" -- \
  simulate -p "$tmp/in/comp.toml" -c 1 -r 8k -b 16 -d 1s --trace "$tmp/in/dev.toml"
same "characterize -o a file its composite names" "$tmp/in/dev.toml" -- \
  characterize -p "$tmp/in/comp.toml" --budget 1min -o "$tmp/in/dev.toml"

# Issue 11: `record DIR -f wav --trace DIR/rec.wav` overwrote the recording with its trace.
rm -rf "$tmp/rec"/*
expect_bad_input "record --trace over the recording" "of the recording itself" -- \
  record "$tmp/rec" -c 2 -r 8k -b 16 -f wav -d 0.3s --trace "$tmp/rec/rec.wav"
expect_bad_input "record --trace over a split part" "part of the split recording" -- \
  record "$tmp/rec" -c 2 -r 8k -b 16 -f raw -d 0.3s --split 128KiB --trace "$tmp/rec/rec_002.raw"
[ -z "$(ls -A "$tmp/rec")" ] || fail "a refused record left files: $(ls -A "$tmp/rec")"
# ... also through a (dangling) symlink to a part still to come: the trace replaced rec_003.raw.
ln -s rec/rec_003.raw "$tmp/part-link"
expect_bad_input "record --trace a link to a split part" "part of the split recording" -- \
  record "$tmp/rec" -c 2 -r 8k -b 16 -f raw -d 0.3s --split 128KiB --trace "$tmp/part-link"
[ -z "$(ls -A "$tmp/rec")" ] || fail "a refused record left files: $(ls -A "$tmp/rec")"
rm -f "$tmp/part-link"

# Issue 11: `simulate --json --trace -` mixed both on stdout.
expect_bad_input "simulate --json --trace -" "both want stdout" -- simulate -p $P -c 1 -r 8k -b 16 -d 1s --json --trace -
expect_bad_input "record --json --trace -" "both want stdout" -- record "$tmp/rec" -c 1 -r 8k -b 16 -d 1s --json --trace -
expect_bad_input "replay --json --trace-out -" "both want stdout" -- replay "$tmp/in/j.iolog" -p $P --json --trace-out -
# '-' is still stdout where it was.
"$STREAMDISK" simulate -p $P -c 1 -r 8k -b 16 -d 1s --trace - | head -1 | grep -q '^# streamdisk-trace' \
  || fail "simulate --trace - no longer writes the trace to stdout"
"$STREAMDISK" simulate -p $P -c 1 -r 8k -b 16 -d 1s --trace /dev/stdout | head -1 | grep -q '^# streamdisk-trace' \
  || fail "simulate --trace /dev/stdout does not write to stdout"

# A user's files in the directory a command writes into are never touched,
# even with the names the command itself would choose.
u="$tmp/user"; mkdir "$u"
for f in replay-1.dat rec.wav keep.txt; do printf 'user data %s\n' "$f" >"$u/$f"; done
sums=$(cd "$u" && md5sum replay-1.dat rec.wav keep.txt)
"$STREAMDISK" replay "$tmp/in/j.iolog" --target "$u" --as-fast-as-possible >/dev/null || fail "replay --target failed"
"$STREAMDISK" replay "$tmp/in/j.iolog" --target "$u" --as-fast-as-possible --keep >/dev/null || fail "replay --keep failed"
kept=$(ls "$u" | grep -Ev '^(replay-1.dat|rec.wav|keep.txt)$')
[ "$(printf '%s\n' "$kept" | grep -c '^replay-[0-9]*-1\.dat$')" -eq 1 ] || fail "replay --keep kept '$kept'"
rm -f "$u"/replay-*-1.dat
expect_bad_input "record over an existing file" "rec.wav exists" -- record "$u" -c 1 -r 8k -b 16 -f wav -d 0.3s
"$STREAMDISK" measure "$u" --sweep blocksize --blocks 64k --size 1MiB --seconds 0.1 >/dev/null || fail "measure failed"
[ "$(cd "$u" && md5sum replay-1.dat rec.wav keep.txt)" = "$sums" ] || fail "a command changed a user's file"
[ "$(ls -A "$u" | wc -l)" -eq 3 ] || fail "files left in the user's directory: $(ls -A "$u")"

# Issue 11: `record --split 128KiB` crashed at the third part, named the
# second streamdisk-measure-PID-N.dat and listed the wrong files.
s="$tmp/split"; mkdir "$s"
out=$("$STREAMDISK" record "$s" -c 8 -r 48k -b 16 -f raw -d 0.6s --split 128KiB --json) || fail "record --split: exit $?"
names=$(ls "$s" | tr '\n' ' ')
[ "$(ls "$s" | grep -c '^rec_[0-9][0-9][0-9]\.raw$')" -ge 3 ] || fail "record --split: files $names"
ls "$s" | grep -Ev '^rec_[0-9]{3}\.raw$|^rec\.json$' && fail "record --split left other files: $names"
python3 - "$out" "$s" <<'PY' || fail "record --split JSON lists other files than it wrote"
import json, os, sys
j = json.loads(sys.argv[1])
listed = sorted(os.path.basename(f["path"]) for f in j["files"])
on_disk = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".raw"))
assert listed == on_disk, (listed, on_disk)
for f in j["files"]:
    assert os.path.getsize(f["path"]) == f["bytes"], f
PY
# A part that exists already stops the recording (EEXIST); it is not overwritten.
rm -rf "$s"/*; printf 'mine\n' >"$s/rec_002.raw"
"$STREAMDISK" record "$s" -c 8 -r 48k -b 16 -f raw -d 0.6s --split 128KiB >/dev/null 2>&1
[ "$(cat "$s/rec_002.raw")" = mine ] || fail "record --split overwrote an existing part"

# Issue 11: `record --direct --block 3333` failed with EINVAL and left a 0-byte file.
dd="$tmp/direct"; mkdir "$dd"
if "$STREAMDISK" measure "$dd" --sweep blocksize --blocks 4k --size 64k --seconds 0.05 --direct --json | grep -q '"direct_used": true'; then
  expect_bad_input "record --direct --block 3333" "multiple of" -- record "$dd" -c 1 -r 48k -b 16 -f raw -d 1s --direct --block 3333
  [ -z "$(ls -A "$dd")" ] || fail "record --direct --block 3333 left $(ls -A "$dd")"
  # A header write O_DIRECT refuses: the advice is about O_DIRECT (not another format), no empty file stays.
  out=$("$STREAMDISK" record "$dd" -c 2 -r 48k -b 16 -f wav -d 0.5s --direct --block 4096 2>&1)
  if printf '%s' "$out" | grep -q EINVAL; then
    printf '%s' "$out" | grep -q 'drop --direct' || fail "record --direct EINVAL advice: $out"
    printf '%s' "$out" | grep -q 'use --format w64' && fail "record --direct EINVAL advises another format: $out"
  fi
  if printf '%s' "$out" | grep -q 'no frame was written'; then
    [ -z "$(ls -A "$dd")" ] || fail "record --direct that wrote nothing left $(ls -A "$dd")"
  fi
else
  echo "note: O_DIRECT refused under $tmp: the --direct --block case was not run"
fi
finish
