#!/usr/bin/env bash
# Every bad-input path of `measure`: one line naming the problem and the fix, exit 2, nothing written.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect_bad_input "missing directory" "$tmp/none is not a directory" -- measure "$tmp/none"
expect_bad_input "a file, not a directory" "is not a directory" -- measure "$SD_SOURCE_DIR/README.md"
expect_bad_input "no target" "either a directory to measure .* or --profile" -- measure
expect_bad_input "both targets" "either a directory to measure .* or --profile" -- measure "$tmp" --profile samsung-960evo-250g
expect_bad_input "unknown sweep" "unknown sweep 'blocks': use blocksize" -- measure "$tmp" --sweep blocks
expect_bad_input "bad fsync" "--fsync 'sometimes': use every, end or never" -- measure "$tmp" --fsync sometimes
expect_bad_input "bad block list" "--blocks block size: 'huge' is not a positive block size" -- measure "$tmp" --blocks 4k,huge
expect_bad_input "zero threads" "--threads thread count: '0' is not a positive" -- measure "$tmp" --sweep threads --threads 0,2
expect_bad_input "bad seconds" "--seconds 'soon'" -- measure "$tmp" --seconds soon
expect_bad_input "negative size" "--size" -- measure "$tmp" --size -5MiB
expect_bad_input "fill without target" "fill sweep fills the filesystem: say how far with --fill-to" -- measure "$tmp" --sweep fill
expect_bad_input "fill too far" "--fill-to 99% is above the 95% the fill sweep allows" -- measure "$tmp" --sweep fill --fill-to 99%
expect_bad_input "fill-to on another sweep" "--fill-to is only for --sweep fill" -- measure "$tmp" --fill-to 50%
expect_bad_input "not enough space" "has .* free; the sustained sweep writes up to .*: pass a smaller --size" -- measure "$tmp" --sweep sustained --size 900TB
expect_bad_input "unknown profile" "unknown profile" -- measure --profile no-such-drive
expect_bad_input "trace and json on stdout" "both want stdout" -- measure "$tmp" --trace - --json
expect_bad_input "trace in a missing directory" "$tmp/nodir/t.csv" -- measure --profile samsung-960evo-250g --blocks 1M --seconds 0.1 --trace "$tmp/nodir/t.csv"
expect_bad_input "unknown format" "--formats: .*mp3" -- measure "$tmp" --sweep formats --formats raw,mp3
expect_bad_input "formats options elsewhere" "only for --sweep formats" -- measure "$tmp" --channels 4
expect_bad_input "odd sample bits" "--sample-bits '12': use 8, 16, 24 or 32" -- measure "$tmp" --sweep formats --sample-bits 12
expect_bad_input "format cannot hold the stream" "65535|channels" -- measure "$tmp" --sweep formats --formats wav --channels 70000
[ -z "$(ls -A "$tmp")" ] || fail "bad input left files behind: $(ls -A "$tmp")"
finish
