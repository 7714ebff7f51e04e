#!/usr/bin/env bash
# `measure` on real storage (a temp dir on local disk, a small tmpfs for the
# fill sweep): runs without error, writes valid JSON and traces, removes its
# test files (also on Ctrl-C). Sizes are tiny: behaviour, not speed.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
dir="$tmp/disk"; mkdir "$dir"
quick=(--blocks 4k,1M --seconds 0.2 --size 4MiB)

# blocksize, buffered and O_DIRECT: two points with positive rates, a valid trace, nothing left behind
for mode in "" --direct; do
  out=$("$STREAMDISK" measure "$dir" "${quick[@]}" $mode --json --trace "$tmp/bs.csv") || fail "blocksize $mode: exit $?"
  [ "$(jq '.rows | length' <<<"$out")" = 2 ] || fail "blocksize $mode: expected 2 rows: $out"
  jq -e '[.rows[] | .[1] > 0 and .[5] > 0] | all' <<<"$out" >/dev/null || fail "blocksize $mode: a zero rate: $out"
  [ "$(head -1 "$tmp/bs.csv")" = "# streamdisk-trace 2" ] || fail "blocksize $mode: trace has no magic line"
  grep -q '^start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct$' "$tmp/bs.csv" || fail "trace header"
  [ "$(grep -c ',write,' "$tmp/bs.csv")" -gt 2 ] || fail "blocksize $mode: no writes in the trace"
  [ -z "$(ls -A "$dir")" ] || fail "blocksize $mode left files: $(ls -A "$dir")"
done
[ "$(jq -r .direct_used <<<"$out")" = true ] || jq -e '.notes[] | select(test("O_DIRECT refused"))' <<<"$out" >/dev/null \
  || fail "--direct neither used nor explained: $out"

# threads on real threads; human table printed
out=$("$STREAMDISK" measure "$dir" --sweep threads --blocks 64k --threads 1,2 --size 8MiB --seconds 5) || fail "threads: exit $?"
grep -q "best_read_mbps" <<<"$out" || fail "threads: no summary: $out"
grep -q "page cache before each point:" <<<"$out" || fail "threads: does not say what happened to the cache: $out"

# sustained: windows and latency summary; progress forced onto a non-terminal stderr
out=$("$STREAMDISK" measure "$dir" --sweep sustained --seconds 1 --size 64MiB --window 0.1 --json --progress 2>"$tmp/err") \
  || fail "sustained: exit $?"
jq -e '.summary.latency_max_s > 0 and .summary.bytes > 0 and (.rows | length) >= 1' <<<"$out" >/dev/null || fail "sustained: $out"
grep -q "ETA" "$tmp/err" || fail "sustained --progress: no progress line with ETA on stderr: $(cat "$tmp/err")"
[ -z "$(ls -A "$dir")" ] || fail "sustained left files"

# formats: every format through its layout on real files; TDMS adds segment metadata writes
out=$("$STREAMDISK" measure "$dir" --sweep formats --formats raw,tdms,wav,caf --channels 8 --seconds 0.2 --size 8MiB --json) \
  || fail "formats: exit $?"
[ "$(jq '.rows | length' <<<"$out")" = 4 ] || fail "formats: rows: $out"
jq -e '[.rows[] | select(.[0] == "tdms") | .[5] > 1 and .[4] > 0] | all' <<<"$out" >/dev/null \
  || fail "formats: TDMS should issue segment metadata besides the raw data: $out"
[ -z "$(ls -A "$dir")" ] || fail "formats left files: $(ls -A "$dir")"

# Ctrl-C: stops, exits 130, removes the test file, writes no trace
"$STREAMDISK" measure "$dir" --sweep sustained --seconds 60 --size 4GiB --fsync every --trace "$tmp/int.csv" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"; wait "$pid"; rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C: exit $rc, expected 130"
[ -z "$(ls -A "$dir")" ] || fail "Ctrl-C left files: $(ls -A "$dir")"
[ ! -e "$tmp/int.csv" ] && [ ! -e "$tmp/int.csv.part" ] || fail "Ctrl-C left a trace behind"

# fill: on a 32 MiB tmpfs, up to 50 %, in 2 MiB steps; refuses to start above the target
if [ "$(id -u)" = 0 ]; then
  mnt="$tmp/small"; mkdir "$mnt"
  if mount -t tmpfs -o size=32m tmpfs "$mnt"; then
    out=$("$STREAMDISK" measure "$mnt" --sweep fill --fill-to 50% --fill-step 2MiB --json) || fail "fill: exit $?"
    jq -e '.summary.fill_end <= 0.5 and .summary.fill_end > 0.4 and (.rows | length) >= 7' <<<"$out" >/dev/null \
      || fail "fill: $out"
    [ -z "$(ls -A "$mnt")" ] || fail "fill left files: $(ls -A "$mnt")"
    head -c 20M /dev/zero >"$mnt/other"
    expect_bad_input "fill above target" "already 6[0-9].[0-9] % full, at or above the fill target 50.0 %" -- \
      measure "$mnt" --sweep fill --fill-to 50%
  else
    skip "the fill sweep needs a small tmpfs and mount refused it (the checks above passed)"
  fi
else
  skip "the fill sweep needs root to mount a small tmpfs (the checks above passed)"
fi
finish
