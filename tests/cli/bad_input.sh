#!/usr/bin/env bash
# Every bad-input path of profiles/show: one line naming the problem, exit 2, nothing on stdout.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect_bad_input "unknown profile" "unknown profile 'samsung-960evo-250'.*did you mean 'samsung-960evo-250g'" -- show samsung-960evo-250
expect_bad_input "missing file" "profile file '$tmp/none.toml' does not exist" -- show "$tmp/none.toml"
expect_bad_input "no device layer" "has no device layer" -- show ext4
expect_bad_input "layer twice" "filesystem layer is given twice" -- show fat32+ext4+samsung-960evo-250g
expect_bad_input "empty part" "empty part" -- show fat32++samsung-960evo-250g
expect_bad_input "unknown --set key" "did you mean 'sustained_mbps'" -- show samsung-960evo-250g --set device.sustaned_mbps=3
expect_bad_input "ambiguous --set key" "several layers" -- show samsung-960evo-250g --set stall_duration_ms=3
expect_bad_input "--set out of range" "read_queue_depth = 0 is out of range: allowed 1..1024" -- show samsung-960evo-250g --set device.read_queue_depth=0
expect_bad_input "--set not a number" "'fast' is not a duration" -- show samsung-960evo-250g --set device.op_overhead_us=fast
expect_bad_input "--set without =" "key=value" -- show samsung-960evo-250g --set sustained_mbps
expect_bad_input "--set bad layer" "'disk' is not a layer" -- show samsung-960evo-250g --set disk.sustained_mbps=3
expect_bad_input "negative size" "negative" -- show samsung-960evo-250g --set device.burst_bytes=-5GB
expect_bad_input "no profile" "show needs a profile" -- show
expect_bad_input "unknown option" "--frobnicate" -- show samsung-960evo-250g --frobnicate
expect_bad_input "no subcommand" "subcommand" --
expect_bad_input "unknown subcommand" "unknown subcommand 'teleport'" -- teleport
expect_bad_input "misspelt subcommand" "did you mean 'show'" -- shwo samsung-960evo-250g
expect_bad_input "--set bare word" "not a number" -- show samsung-960evo-250g --set device.read_queue_depth=many

printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = [\n' > "$tmp/broken.toml"
expect_bad_input "malformed TOML" "broken.toml:[0-9]+: malformed TOML" -- show "$tmp/broken.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nburst_byte = 5\nsustained_mbps = 4\n' > "$tmp/typo.toml"
expect_bad_input "unknown TOML key" "typo.toml: unknown device parameter 'burst_byte' \\(did you mean 'burst_bytes'\\?\\)" -- show "$tmp/typo.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nburst_bytes = 5\n' > "$tmp/missing.toml"
expect_bad_input "missing required" "profile 'missing' .*required device parameter 'sustained_mbps' is missing \\(allowed 0.001..1000000 MB/s\\)" -- show "$tmp/missing.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = 40\nfill_knee = 1.4\n' > "$tmp/range.toml"
expect_bad_input "out of range in TOML" "range.toml: device.fill_knee = 1.4 is out of range: allowed 0..1 fraction" -- show "$tmp/range.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = { value = 40, range = [50, 60] }\n' > "$tmp/outside.toml"
expect_bad_input "value outside its range" "device.sustained_mbps = 40 lies outside its own range \\[50, 60\\]" -- simulate -p "$tmp/outside.toml"
printf 'format_version = 1\nlayer = "device"\n[params]\nsustained_mbps = { value = 40, range = [60, 30] }\n' > "$tmp/backwards.toml"
expect_bad_input "backwards range" "range = \\[60, 30\\] is backwards" -- capacity -p "$tmp/backwards.toml"
printf 'layer = "device"\n[params]\nsustained_mbps = 40\n' > "$tmp/nover.toml"
expect_bad_input "no format_version" "format_version must be 1" -- show "$tmp/nover.toml"
printf 'format_version = 1\nlayer = "disk"\n' > "$tmp/layer.toml"
expect_bad_input "bad layer name" "is not a layer" -- show "$tmp/layer.toml"
finish
