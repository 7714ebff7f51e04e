#!/usr/bin/env bash
# SIGINT and SIGTERM during every command that writes files leave no file
# behind (no trace, no temporary file, no test or recording file) and exit
# with 130 (SIGINT) or 143 (SIGTERM), as README "Reliability" says. The
# user's own files in the same directories stay as they were. No mount.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
P=samsung-960evo-250g

# wait_for PID GLOB: until a file matching GLOB exists (at most 20 s, and
# only while process PID runs).
wait_for() {
  for _ in $(seq 400); do
    compgen -G "$2" >/dev/null && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# A trace whose replay takes minutes: 2000 files written (and closed) at
# once, then one more write 10 minutes later.
python3 - "$tmp/many.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("# streamdisk-trace 1\nstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n")
    for i in range(2000):
        t = i * 1e-5
        for op, n in (("create", 0), ("write", 4096), ("close", 0)):
            f.write(f"{t:.9f},{t:.9f},{op},f{i},0,{n},0,1,,0\n")
    f.write("600.000000000,600.000000000,write,f0,4096,4096,0,1,,0\n")
PY
# calibrate and report read their input from a fifo that nobody writes: they
# wait there with the output file already open.

# case NAME DIR READY-GLOB COMMAND...: starts the command, waits for READY,
# signals it, and checks the exit status and that DIR holds only the user's file.
case_() {
  local name=$1 dir=$2 ready=$3; shift 3
  local t0=$EPOCHREALTIME
  for sig in INT TERM; do
    rm -rf "$dir"; mkdir -p "$dir"; printf 'mine\n' >"$dir/user.txt"
    [ -p "$tmp/fifo" ] || mkfifo "$tmp/fifo"
    "$STREAMDISK" "$@" >"$tmp/out" 2>"$tmp/err" &
    local pid=$!
    if ! wait_for $pid "$ready"; then
      fail "$name: $ready never appeared ($(cat "$tmp/err"))"
      kill -KILL $pid 2>/dev/null; wait $pid; continue
    fi
    kill -$sig $pid
    wait $pid; local rc=$?
    local want=$([ $sig = INT ] && echo 130 || echo 143)
    [ "$rc" -eq "$want" ] || fail "$name: SIG$sig gave exit $rc, expected $want ($(cat "$tmp/err"))"
    local left; left=$(ls -A "$dir" | grep -v '^user.txt$')
    [ -z "$left" ] || fail "$name: SIG$sig left $(printf '%s ' $left | head -c 300)"
    [ "$(cat "$dir/user.txt" 2>/dev/null)" = mine ] || fail "$name: SIG$sig removed or changed the user's file"
  done
  echo "$name: $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s"
}

d="$tmp/out-dir"
case_ "simulate --trace" "$d" "$d/.t.csv.*.tmp" \
  simulate -p $P -c 64 -r 192k -b 32 --buffer 64KiB -d 1h --trace "$d/t.csv"
case_ "measure --trace" "$d" "$d/.t.csv.*.tmp" \
  measure "$d" --sweep sustained --seconds 60 --size 4GiB --trace "$d/t.csv"
case_ "record --trace" "$d" "$d/rec.wav" \
  record "$d" -c 2 -r 48k -b 16 -f wav -d 60s --trace "$d/t.csv"
case_ "record --split" "$d" "$d/rec_002.raw" \
  record "$d" -c 2 -r 48k -b 16 -f raw -d 60s --split 128KiB
case_ "replay --target (2000 files)" "$d" "$d/replay-*-2000.dat" \
  replay "$tmp/many.csv" --target "$d" --trace-out "$d/t.csv"
# --keep keeps a finished replay's files; an interrupted one's are partial and go
# (they stayed, while the message said they were removed).
case_ "replay --target --keep" "$d" "$d/replay-*-2000.dat" \
  replay "$tmp/many.csv" --target "$d" --keep
case_ "calibrate -o" "$d" "$d/.p.toml.*.tmp" \
  calibrate "$tmp/fifo" -o "$d/p.toml"
case_ "report -o" "$d" "$d/.r.html.*.tmp" \
  report "$tmp/fifo" -o "$d/r.html"

# The handler removes a file by name only while the name is still the file the
# command made: another program's file renamed over the temporary file's name
# survives the signal (it was removed with it).
rm -rf "$d"; mkdir "$d"; [ -p "$tmp/fifo" ] || mkfifo "$tmp/fifo"
"$STREAMDISK" calibrate "$tmp/fifo" -o "$d/p.toml" >/dev/null 2>"$tmp/err" &
pid=$!
if wait_for $pid "$d/.p.toml.*.tmp"; then
  tempname=$(compgen -G "$d/.p.toml.*.tmp")
  printf 'theirs\n' >"$d/theirs"; mv "$d/theirs" "$tempname"
  kill -TERM $pid; wait $pid; rc=$?
  [ "$rc" -eq 143 ] || fail "calibrate, SIGTERM after a swap: exit $rc, expected 143"
  [ "$(cat "$tempname" 2>/dev/null)" = theirs ] || fail "calibrate, SIGTERM: removed the file put in place of its temporary file"
else
  fail "calibrate -o: no temporary file appeared ($(cat "$tmp/err"))"; kill -KILL $pid 2>/dev/null; wait $pid
fi

# A second signal while measure cleans up still leaves nothing.
rm -rf "$d"; mkdir "$d"
"$STREAMDISK" measure "$d" --sweep sustained --seconds 60 --size 4GiB --trace "$d/t.csv" >/dev/null 2>&1 &
pid=$!
wait_for $pid "$d/streamdisk-measure-*.dat" || fail "measure never created its file"
kill -INT $pid; kill -INT $pid
wait $pid; rc=$?
[ "$rc" -eq 130 ] || fail "measure, two SIGINTs: exit $rc, expected 130"
[ -z "$(ls -A "$d")" ] || fail "measure, two SIGINTs: left $(ls -A "$d")"
finish
