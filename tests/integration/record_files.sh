#!/usr/bin/env bash
# `record` writes files that independent tools accept: soxi (sox) and
# sndfile-info report the channel count, rate, width and frame count the
# recording claims; bad input fails before anything is written; Ctrl-C
# removes the partial recording.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for fmt in wav rf64 w64 caf; do
  for bits in 16 24; do
    out=$("$STREAMDISK" record "$tmp" -c 6 -r 44.1k -b $bits -f $fmt -d 0.5s --name "r$bits" --json) || { fail "$fmt/$bits: exit $?"; continue; }
    file=$(jq -r '.files[0].path' <<<"$out"); frames=$(jq -r .frames_written <<<"$out")
    [ "$(jq -r .overrun_events <<<"$out")" = 0 ] || fail "$fmt/$bits: overruns writing 0.5 MB/s to a temp dir"
    [ "$(soxi -c "$file")" = 6 ] || fail "$fmt/$bits: soxi channels $(soxi -c "$file")"
    [ "$(soxi -r "$file")" = 44100 ] || fail "$fmt/$bits: soxi rate $(soxi -r "$file")"
    [ "$(soxi -p "$file")" = $bits ] || fail "$fmt/$bits: soxi precision $(soxi -p "$file")"
    [ "$(soxi -s "$file")" = "$frames" ] || fail "$fmt/$bits: soxi frames $(soxi -s "$file"), record says $frames"
    info=$(sndfile-info "$file")
    grep -Eq "^Frames +: $frames$" <<<"$info" || fail "$fmt/$bits: sndfile-info frames: $info"
    grep -Eq "^Channels +: 6$" <<<"$info" || fail "$fmt/$bits: sndfile-info channels"
    # sox decodes every sample (a broken data chunk fails here)
    sox "$file" -n stat 2>"$tmp/stat" || fail "$fmt/$bits: sox cannot decode: $(cat "$tmp/stat")"
    rm -f "$file"
  done
done

# TDMS and raw: files and sidecar present, sizes consistent with the frames
out=$("$STREAMDISK" record "$tmp" -c 4 -r 25.6k -b 24 -f tdms -d 0.5s --name td --json) || fail "tdms: exit $?"
[ "$(head -c 4 "$tmp/td.tdms")" = TDSm ] && [ "$(head -c 4 "$tmp/td.tdms_index")" = TDSh ] || fail "tdms: lead-in tags"
out=$("$STREAMDISK" record "$tmp" -c 4 -r 25.6k -b 16 -f raw -d 0.5s --name rw --json) || fail "raw: exit $?"
frames=$(jq -r .frames_written <<<"$out")
[ "$(stat -c %s "$tmp/rw.raw")" = $((frames * 8)) ] || fail "raw: size $(stat -c %s "$tmp/rw.raw") for $frames frames"
[ "$(jq -r .frames "$tmp/rw.json")" = "$frames" ] || fail "raw sidecar frames"

# Same keys as simulate --json for the overrun report
for k in overrun_events dropped_periods samples_lost first_overrun_s peak_buffer_bytes verdict; do
  jq -e "has(\"$k\")" <<<"$out" >/dev/null || fail "record --json lacks $k"
done

# Bad input: nothing created
mkdir "$tmp/bad"
expect_bad_input "missing dir" "$tmp/none is not a directory" -- record "$tmp/none" -d 1s
expect_bad_input "no dir" "dir is required" -- record
expect_bad_input "unknown format" "--format" -- record "$tmp/bad" -f mp3 -d 1s
expect_bad_input "zero channels" "--channels" -- record "$tmp/bad" -c 0 -d 1s
expect_bad_input "bad duration" "--duration" -- record "$tmp/bad" -d forever
expect_bad_input "name with slash" "--name '../x' must be a plain file name" -- record "$tmp/bad" --name ../x -d 1s
# A name so long that a part's or the sidecar's temporary file would pass the
# filesystem's 255: refused before any file is made (it failed partway, exit 1).
# The limit is 255 less the longest suffix (a split per-channel part's, 25; the
# sidecar's temporary file's, .json plus OutputFile's temp_name_overhead(), 24):
# the longest name allowed records whole, sidecar included (a literal 32 refused
# names up to 7 characters shorter than that).
long=$(printf 'n%.0s' $(seq 231))
expect_bad_input "name too long" "--name is 231 characters: .* give at most 230" -- record "$tmp/bad" --name "$long" -f raw -d 1s
[ -z "$(ls -A "$tmp/bad")" ] || fail "name too long: files were left in $tmp/bad: $(ls -A "$tmp/bad")"
mkdir "$tmp/longest"
longest=${long:1}
"$STREAMDISK" record "$tmp/longest" --name "$longest" -c 2 -r 8k -f raw -d 0.2s >/dev/null \
  || fail "the longest --name allowed (230 characters): exit $?"
[ -s "$tmp/longest/$longest.raw" ] && [ -s "$tmp/longest/$longest.json" ] \
  || fail "the longest --name allowed: files $(ls -A "$tmp/longest" | cut -c1-20 | tr '\n' ' ')"
expect_bad_input "too big" "has .* free; this recording needs about" -- record "$tmp/bad" -c 1000 -r 10M -b 32 -d 10h
touch "$tmp/bad/rec.w64"
expect_bad_input "exists" "rec.w64 exists: give another --name or remove it" -- record "$tmp/bad" -f w64 -d 1s
expect_bad_input "fill is model-only" "--fill" -- record "$tmp/bad" --fill 50% -d 1s
[ "$(ls -A "$tmp/bad")" = rec.w64 ] || fail "bad input created files: $(ls -A "$tmp/bad")"

# Ctrl-C: exit 130, the partial recording removed
mkdir "$tmp/int"
"$STREAMDISK" record "$tmp/int" -c 2 -r 48k -f wav -d 60s >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"; wait "$pid"; rc=$?
[ "$rc" = 130 ] || fail "Ctrl-C: exit $rc, expected 130"
[ -z "$(ls -A "$tmp/int")" ] || fail "Ctrl-C left files: $(ls -A "$tmp/int")"
finish
