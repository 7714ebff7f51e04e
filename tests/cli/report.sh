#!/usr/bin/env bash
# streamdisk report: a strict-valid self-contained page from show, replay and
# a kind it only knows by shape; --svg writes the plots alone; bad input is
# refused with one line and no file left behind.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check="python3 $(dirname "$0")/../tools/check_html.py"

"$STREAMDISK" show samsung-960evo-250g --json >"$tmp/show.json" || fail "show --json failed"
cat >"$tmp/slow.toml" <<'TOML'
format_version = 1
layer = "device"
name = "slow-stick"
summary = "40 MB/s, 2 ms per request"
source = "test"
[params]
sustained_mbps = { value = 40 }
op_overhead_us = { value = 2000 }
TOML
{ echo "fio version 3 iolog"; echo "0 /d/f add"; echo "1 /d/f open"
  for i in $(seq 0 39); do echo "$((i * 10000 + 2)) /d/f write $((i * 1048576)) 1048576"; done
  echo "400010 /d/f close"; } >"$tmp/rec.iolog"
"$STREAMDISK" replay "$tmp/rec.iolog" -p samsung-960evo-250g -p "$tmp/slow.toml" --buffer 4MiB --json >"$tmp/replay.json" \
  || fail "replay --json failed"
# A kind with no dedicated renderer: laid out from its shape.
cat >"$tmp/sim.json" <<'JSON'
{"format": "streamdisk-simulate", "format_version": 1, "profile": "slow-stick", "buffer_bytes": 4000000,
 "overruns": 2, "overrun_times_s": [1.5, 2.5],
 "timeline": {"t_s": [0, 1, 2, 3], "buffered_bytes": [0, 2000000, 4500000, 4200000], "rate_mbps": [40, 39, 41, 40]},
 "sweep": [{"block_bytes": 4096, "measured_mbps": 3.1, "fitted_mbps": 3.0},
           {"block_bytes": 1048576, "measured_mbps": 38.5, "fitted_mbps": 39.0}]}
JSON

# measure's columnar table and calibrate's measured-vs-model cells per thread count.
cat >"$tmp/measure.json" <<'JSON'
{"format": "streamdisk-measure", "format_version": 1, "sweep": "blocksize",
 "columns": ["block_bytes", "write_mbps", "write_bytes"], "rows": [[4096, 50, 1e8], [65536, 200, 1e8], [1048576, 300, 1e8]]}
JSON
cat >"$tmp/cal.json" <<'JSON'
{"format": "streamdisk-calibrate", "format_version": 1, "name": "ssd",
 "read_cells": [{"block_bytes": 512, "threads": 1, "measured_mbps": 94.7, "model_mbps": 90},
                {"block_bytes": 8192, "threads": 1, "measured_mbps": 400.1, "model_mbps": 390},
                {"block_bytes": 512, "threads": 4, "measured_mbps": 89.0, "model_mbps": 150},
                {"block_bytes": 8192, "threads": 4, "measured_mbps": 411.0, "model_mbps": 450}]}
JSON
"$STREAMDISK" report "$tmp/measure.json" "$tmp/cal.json" -o "$tmp/mc.html" || fail "report of measure/calibrate shapes failed"
$check "$tmp/mc.html" 2 || fail "measure/calibrate report is not valid HTML"
grep -q "measured_mbps (threads=4)" "$tmp/mc.html" || fail "calibrate cells are not split by thread count"
grep -Eq '<text [^>]*>write_mbps</text>' "$tmp/mc.html" || fail "measure's rate column is not plotted"

"$STREAMDISK" report "$tmp/show.json" "$tmp/replay.json" "$tmp/sim.json" -o "$tmp/r.html" --svg "$tmp/svg" \
  || fail "report failed"
$check "$tmp/r.html" 7 || fail "report is not valid HTML"
grep -q "burst cache full" "$tmp/r.html" || fail "no burst->sustained knee in the timeline"
grep -q "overruns on .*slow.toml" "$tmp/r.html" || fail "no overrun markers for the slow device"
grep -q "recorder buffer 4 MiB" "$tmp/r.html" || fail "no buffer line on the fill plot"
grep -q "sweep against block_bytes" "$tmp/r.html" || fail "generic kind: no plot of the sweep"
grep -q "timeline over time" "$tmp/r.html" || fail "generic kind: no timeline plot"
n=$(ls "$tmp/svg"/*.svg | wc -l)
[ "$n" -ge 7 ] || fail "--svg wrote $n files, expected at least 7"
for f in "$tmp/svg"/*.svg; do
  python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$f" || fail "$f is not well-formed XML"
done

echo '{"format": "streamdisk-show"' >"$tmp/broken.json"
echo '{"format": "something-else"}' >"$tmp/other.json"
echo '[1, 2]' >"$tmp/array.json"
echo '{"format": "streamdisk-show", "name": "x"}' >"$tmp/partial.json"
expect_bad_input "not JSON" "broken.json' is not JSON" -- report "$tmp/broken.json" -o "$tmp/x.html"
expect_bad_input "unknown kind" "unknown JSON format 'something-else'" -- report "$tmp/other.json" -o "$tmp/x.html"
expect_bad_input "no format" "no \"format\" field" -- report "$tmp/array.json" -o "$tmp/x.html"
expect_bad_input "missing fields" "partial.json: a 'streamdisk-show' document with an unexpected layout" -- report "$tmp/partial.json" -o "$tmp/x.html"
expect_bad_input "missing input" "cannot open" -- report "$tmp/nope.json" -o "$tmp/x.html"
expect_bad_input "no output" "-o FILE.html and/or --svg DIR" -- report "$tmp/show.json"
expect_bad_input "output dir missing" "-o .*r.html: directory .* does not exist" -- report "$tmp/show.json" -o "$tmp/no/such/dir/r.html"
touch "$tmp/afile"
expect_bad_input "svg dir is a file" "--svg: cannot create directory" -- report "$tmp/show.json" --svg "$tmp/afile/sub"
[ ! -e "$tmp/x.html" ] && [ -z "$(find "$tmp" -name '*.part')" ] || fail "a failed report left a file behind"
# --svg names a plot's file after the input's key: a key is never a path (a key
# "/../../x" wrote x.svg outside DIR through a directory named like a plot's prefix,
# "a\nb" made a file name with a newline). A name that exists is never replaced, and a
# refused run writes nothing: no plot, and not the page either.
python3 - "$tmp/keys.json" <<'PY'
import json, sys
rows = [{"block_bytes": 4096, "write_mbps": 10}, {"block_bytes": 8192, "write_mbps": 20}]
json.dump({"format": "streamdisk-measure", "format_version": 1, "/../../escaped": rows, "a\nb": rows},
          open(sys.argv[1], "w"))
PY
mkdir -p "$tmp/keys/svg/01-"
"$STREAMDISK" report "$tmp/keys.json" --svg "$tmp/keys/svg" >/dev/null || fail "report of hostile keys failed"
[ ! -e "$tmp/keys/escaped.svg" ] || fail "--svg wrote outside its directory: $tmp/keys/escaped.svg"
[ "$(find "$tmp/keys/svg" -type f -name '*.svg' | wc -l)" -eq 2 ] || fail "--svg: files $(find "$tmp/keys" | tr '\n' ' ')"
[ -z "$(find "$tmp/keys" -name $'*\n*')" ] || fail "--svg made a file name with a newline"
mkdir "$tmp/again"; echo precious >"$tmp/again/02-sustained-timeline.svg"
expect_bad_input "--svg over an existing plot" "02-sustained-timeline.svg exists" -- \
  report "$tmp/show.json" -o "$tmp/again.html" --svg "$tmp/again"
[ "$(cat "$tmp/again/02-sustained-timeline.svg")" = precious ] || fail "--svg replaced a file it did not write"
[ "$(ls "$tmp/again")" = 02-sustained-timeline.svg ] || fail "a refused --svg wrote plots: $(ls "$tmp/again")"
[ ! -e "$tmp/again.html" ] || fail "a refused --svg still wrote the page"
expect_bad_input "--svg dir is a file, with -o" "--svg: cannot create directory" -- \
  report "$tmp/show.json" -o "$tmp/y.html" --svg "$tmp/afile/sub"
[ ! -e "$tmp/y.html" ] || fail "report wrote the page although --svg failed"
# -o naming one of the plots --svg writes: the page's commit replaced the plot
# the same run had written (exit 0, the plot gone). Refused before anything is
# written, also through another spelling or a symlink, and -o naming the --svg
# directory itself.
mkdir "$tmp/same"
for o in "$tmp/same/01-rate-vs-block.svg" "$tmp/same/./02-sustained-timeline.svg" "$tmp/same-link.html"; do
  ln -sfn same/01-rate-vs-block.svg "$tmp/same-link.html"
  expect_bad_input "-o $o, a plot of --svg" "-o .* is one of the plots --svg .* writes .*: give the page another name" -- \
    report "$tmp/show.json" -o "$o" --svg "$tmp/same"
  [ -z "$(ls -A "$tmp/same")" ] || fail "-o $o, a plot of --svg: files were written: $(ls -A "$tmp/same")"
done
expect_bad_input "-o the --svg directory" "-o .*/newsvg is the --svg directory: give the page a file name" -- \
  report "$tmp/show.json" -o "$tmp/newsvg" --svg "$tmp/newsvg"
[ ! -e "$tmp/newsvg" ] || fail "-o the --svg directory: $tmp/newsvg was made"
# A failing report removes the directories --svg made for it (they were left
# behind, empty), and only those: one that was there before stays.
err=$("$STREAMDISK" report "$tmp/show.json" -o /dev/full --svg "$tmp/made/sub" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "-o /dev/full: exit $rc, expected 1"
[ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] || fail "-o /dev/full: expected one line, got: $err"
[ ! -e "$tmp/made" ] || fail "-o /dev/full: the directories --svg made were left: $(find "$tmp/made")"
mkdir "$tmp/before"
"$STREAMDISK" report "$tmp/show.json" -o /dev/full --svg "$tmp/before" 2>/dev/null && fail "-o /dev/full: exit 0"
[ -d "$tmp/before" ] && [ -z "$(ls -A "$tmp/before")" ] || fail "-o /dev/full: the existing --svg directory was removed or kept plots"
"$STREAMDISK" report --help | grep -q "streamdisk-replay" || fail "--help does not list the kinds"
finish
