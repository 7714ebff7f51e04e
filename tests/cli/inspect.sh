#!/usr/bin/env bash
# streamdisk inspect: on files written by `record` and by sox, whole and cut
# at chosen bytes, the strict and lenient counts and the repair verdict are
# what the file's bytes say (checked against soxi for whole files and sox
# --ignore-length for cut ones); bad input is one line, exit 2.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

field() { local f=$1 k=$2; shift 2; "$STREAMDISK" inspect --json "$@" "$f" | jq -r ".[0].$k"; }

# Whole files from record: both readers get every frame, no repair.
for fmt in wav rf64 w64 caf; do
  out=$("$STREAMDISK" record "$tmp" -c 2 -r 48k -b 16 -f $fmt -d 0.5s --name w$fmt --json) || { fail "record $fmt"; continue; }
  file=$(jq -r '.files[0].path' <<<"$out"); frames=$(jq -r .frames_written <<<"$out")
  [ "$(field "$file" strict_frames)" = "$frames" ] || fail "$fmt whole: strict $(field "$file" strict_frames), record wrote $frames"
  [ "$(field "$file" lenient_frames)" = "$frames" ] || fail "$fmt whole: lenient $(field "$file" lenient_frames)"
  [ "$(field "$file" repair_needed)" = false ] || fail "$fmt whole: repair needed: $(field "$file" repair)"
  [ "$(soxi -s "$file")" = "$frames" ] || fail "$fmt whole: soxi says $(soxi -s "$file") frames"
  # Cut after 1000 whole frames and 3 bytes: the header declares more than is
  # there (strict: nothing) except CAF... which record also patches at close.
  off=$(field "$file" data_offset)
  cut="$tmp/cut.$fmt"
  head -c $((off + 1000 * 4 + 3)) "$file" >"$cut"
  [ "$(field "$cut" lenient_frames)" = 1000 ] || fail "$fmt cut: lenient $(field "$cut" lenient_frames), expected 1000"
  [ "$(field "$cut" strict_frames)" = 0 ] || fail "$fmt cut: strict $(field "$cut" strict_frames), expected 0"
  [ "$(field "$cut" repair_needed)" = true ] || fail "$fmt cut: no repair said"
  field "$cut" notes | grep -q "partial frame" || fail "$fmt cut: the partial frame is not noted"
  rm -f "$file" "$cut"
done

# A WAV whose header was never rewritten (sizes 0 as written at open), cut
# after 2500 frames: strict 0 s, lenient 2500 frames, as sox --ignore-length reads it.
"$STREAMDISK" record "$tmp" -c 2 -r 48k -b 16 -f wav -d 0.5s --name open >/dev/null || fail "record open"
head -c $((44 + 2500 * 4)) "$tmp/open.wav" >"$tmp/z.wav"
printf '\0\0\0\0' | dd of="$tmp/z.wav" bs=1 seek=4 conv=notrunc status=none
printf '\0\0\0\0' | dd of="$tmp/z.wav" bs=1 seek=40 conv=notrunc status=none
[ "$(field "$tmp/z.wav" strict_frames)" = 0 ] || fail "zero-size WAV: strict $(field "$tmp/z.wav" strict_frames)"
[ "$(field "$tmp/z.wav" lenient_frames)" = 2500 ] || fail "zero-size WAV: lenient $(field "$tmp/z.wav" lenient_frames)"
field "$tmp/z.wav" declared | grep -q "never updated" || fail "zero-size WAV: placeholder not named"
field "$tmp/z.wav" repair | grep -q "4 bytes at 40" || fail "zero-size WAV: repair $(field "$tmp/z.wav" repair)"
n=$(sox --ignore-length "$tmp/z.wav" -t raw - 2>/dev/null | wc -c)
[ "$n" -eq $((2500 * 4)) ] || fail "sox --ignore-length reads $n bytes of the zero-size WAV, inspect says 2500 frames"
text=$("$STREAMDISK" inspect "$tmp/z.wav") || fail "text exit"
grep -q "strict .*0 frames = 0.000 s" <<<"$text" || fail "text report: $text"

# sox writing a WAV to a pipe cannot go back to fix the header: it declares
# 0x7ffff000. soxi (which trusts the header) sees 0 frames, as the strict
# reader; sox --ignore-length reads them all, as the lenient one.
sox -n -r 48000 -c 1 -b 16 -t wav - synth 1 sine 440 2>/dev/null | cat >"$tmp/pipe.wav"
field "$tmp/pipe.wav" declared | grep -q "0x7ffff000" || fail "sox pipe WAV: declared $(field "$tmp/pipe.wav" declared)"
[ "$(field "$tmp/pipe.wav" strict_frames)" = "$(soxi -s "$tmp/pipe.wav")" ] || fail "sox pipe WAV: strict vs soxi"
[ "$(field "$tmp/pipe.wav" lenient_frames)" = 48000 ] || fail "sox pipe WAV: lenient $(field "$tmp/pipe.wav" lenient_frames)"
n=$(sox --ignore-length "$tmp/pipe.wav" -t raw - 2>/dev/null | wc -c)
[ "$n" -eq 96000 ] || fail "sox --ignore-length reads $n bytes of the pipe WAV"
[ "$(field "$tmp/pipe.wav" repair_needed)" = true ] || fail "sox pipe WAV: no repair said"
# ... and to a file: whole.
sox -n -r 44100 -c 2 -b 24 "$tmp/s.wav" synth 0.5 sine 440 2>/dev/null
[ "$(field "$tmp/s.wav" strict_frames)" = 22050 ] || fail "sox WAV: strict $(field "$tmp/s.wav" strict_frames)"
[ "$(field "$tmp/s.wav" sample_bits)" = 24 ] || fail "sox WAV: bits"

# TDMS cut inside its last segment: strict keeps the complete segments,
# lenient also the whole chunks of the last one; the repair names its lead-in.
out=$("$STREAMDISK" record "$tmp" -c 4 -r 25.6k -b 16 -f tdms -d 1s --buffer 64KiB --name td --json) || fail "record tdms"
frames=$(jq -r .frames_written <<<"$out")
[ "$(field "$tmp/td.tdms" strict_frames)" = "$frames" ] || fail "tdms whole: strict $(field "$tmp/td.tdms" strict_frames) of $frames"
[ "$(field "$tmp/td.tdms" repair_needed)" = false ] || fail "tdms whole: repair needed"
size=$(stat -c %s "$tmp/td.tdms")
head -c $((size - 1000)) "$tmp/td.tdms" >"$tmp/cut.tdms"
s=$(field "$tmp/cut.tdms" strict_frames); l=$(field "$tmp/cut.tdms" lenient_frames)
[ "$s" -lt "$frames" ] && [ "$l" -gt "$s" ] && [ "$l" -lt "$frames" ] || fail "tdms cut: strict $s lenient $l of $frames"
# Non-interleaved: 1000 bytes cut from the end are 500 values of the last channel.
[ $((frames - l)) -eq 500 ] || fail "tdms cut: lenient lost $((frames - l)) frames, expected 500"
field "$tmp/cut.tdms" repair | grep -q "next-segment offset" || fail "tdms cut: repair $(field "$tmp/cut.tdms" repair)"
[ "$(field "$tmp/td.tdms" sample_rate)" = 25600 ] || fail "tdms: rate $(field "$tmp/td.tdms" sample_rate)"

# Raw: the sidecar gives the stream and the declared length; without it, -c/-r/-b.
out=$("$STREAMDISK" record "$tmp" -c 2 -r 48k -b 24 -f raw -d 0.5s --name rw --json) || fail "record raw"
frames=$(jq -r .frames_written <<<"$out")
[ "$(field "$tmp/rw.raw" strict_frames)" = "$frames" ] || fail "raw: strict $(field "$tmp/rw.raw" strict_frames)"
head -c 6003 "$tmp/rw.raw" >"$tmp/cut.raw"
[ "$(field "$tmp/cut.raw" lenient_frames -c 2 -r 48k -b 24)" = 1000 ] || fail "raw -c -r -b: lenient"

"$STREAMDISK" inspect --help | grep -q "Examples:" || fail "inspect --help has no examples"

# Bad input: one line, exit 2.
expect_bad_input "missing file" "cannot inspect .*does not exist" -- inspect "$tmp/none.wav"
expect_bad_input "raw without sidecar" "no header and no sidecar" -- inspect "$tmp/cut.raw"
expect_bad_input "tdms index" "tdms_index" -- inspect "$tmp/td.tdms_index"
expect_bad_input "half a raw stream" "needs all of" -- inspect -c 2 "$tmp/cut.raw"
expect_bad_input "directory" "cannot inspect .*directory" -- inspect "$tmp"
# A fifo (no writer) is refused at once; it waited for a writer forever. So is a
# fifo where a raw file's sidecar would be.
mkfifo "$tmp/fifo.wav"
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$STREAMDISK" >"$tmp/sd-timeout"; chmod +x "$tmp/sd-timeout"
start=$SECONDS
STREAMDISK="$tmp/sd-timeout" expect_bad_input "fifo" "cannot inspect .*not a regular file" -- inspect "$tmp/fifo.wav"
head -c 4000 /dev/urandom >"$tmp/side.raw"; mkfifo "$tmp/side.json"
STREAMDISK="$tmp/sd-timeout" expect_bad_input "fifo sidecar" "sidecar .*side.json is not a regular file" -- inspect "$tmp/side.raw"
[ $((SECONDS - start)) -lt 20 ] || fail "inspect of fifos took $((SECONDS - start)) s"
finish
