#!/usr/bin/env bash
# An empty path ('', often an unset shell variable) given to any option or
# argument that names a file or directory (or a profile, or a profile's name) is bad input: exit 2, one line,
# nothing written. `simulate --trace ''` (also record's, measure's, mount's)
# was taken as "no trace" and exited 0 without the trace asked for.
# One check (cli path_check()) on every such option: this lists them all.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P=samsung-960evo-250g
mkdir "$tmp/cwd" "$tmp/dir"
cd "$tmp/cwd" || exit 1
"$STREAMDISK" show $P --json >"$tmp/show.json" || fail "show --json"
printf 'block_bytes,threads,mbps\n4096,1,10\n65536,1,50\n1048576,1,80\n' >"$tmp/t.csv"

# empty WHAT OPTION -- ARGS...: refused naming OPTION; nothing appears in the working directory.
empty() {
  local what=$1 opt=$2; shift 3
  expect_bad_input "$what" "^streamdisk: $opt: '' is not a path: give a file or directory name" -- "$@"
  [ -z "$(ls -A)" ] || fail "$what: files were made: $(ls -A)"
}
rec=(-c 1 -r 8k -d 0.2s)
empty "simulate --trace ''" --trace -- simulate -p $P "${rec[@]}" --trace ''
empty "simulate --faults ''" --faults -- simulate -p $P "${rec[@]}" --faults ''
empty "record DIR ''" dir -- record '' "${rec[@]}"
empty "record --trace ''" --trace -- record "$tmp/dir" "${rec[@]}" --trace ''
empty "record --faults ''" --faults -- record "$tmp/dir" "${rec[@]}" --faults ''
[ -z "$(ls -A "$tmp/dir")" ] || fail "record: a refused run recorded: $(ls -A "$tmp/dir")"
empty "measure PATH ''" path -- measure '' --sweep blocksize
empty "measure --trace ''" --trace -- measure -p $P --sweep blocksize --blocks 1MiB --size 4MiB --trace ''
empty "mount MOUNTPOINT ''" mountpoint -- mount -p $P ''
empty "mount --trace ''" --trace -- mount -p $P "$tmp/dir" --trace ''
empty "mount --backing ''" --backing -- mount -p $P "$tmp/dir" --backing ''
empty "mount --faults ''" --faults -- mount -p $P "$tmp/dir" --faults ''
grep -q " $tmp/dir " /proc/self/mountinfo && fail "mount: a refused mount is mounted"
empty "fault MOUNTPOINT ''" mountpoint -- fault '' eio
empty "replay TRACE ''" trace -- replay '' -p $P
empty "replay --target ''" --target -- replay "$tmp/t.csv" --target ''
empty "replay --trace-out ''" --trace-out -- replay "$tmp/t.csv" -p $P --trace-out ''
empty "report INPUTS ''" inputs -- report '' -o "$tmp/r.html"
empty "report -o ''" --output -- report "$tmp/show.json" -o ''
empty "report --svg ''" --svg -- report "$tmp/show.json" --svg ''
empty "calibrate TRACES ''" traces -- calibrate ''
for o in --buffered --baseline --fio-lat-log --fio-json --table; do
  empty "calibrate $o ''" $o -- calibrate --table "$tmp/t.csv" $o ''
done
empty "calibrate -o ''" --output -- calibrate --table "$tmp/t.csv" -o ''
empty "characterize PATH ''" path -- characterize ''
empty "characterize -o ''" --output -- characterize -p $P -o ''
empty "characterize --keep-traces ''" --keep-traces -- characterize -p $P --keep-traces ''
empty "inspect FILES ''" files -- inspect ''
# A profile or a profile's name given as '': refused the same way, not read as
# "no base" (calibrate took --base '' as none) or as the default name
# (characterize --name '' wrote a profile named after the -o file).
expect_bad_input "calibrate --base ''" "^streamdisk: --base: '' is not a profile: name a built-in profile or a TOML file" -- \
  calibrate --table "$tmp/t.csv" --base '' -o "$tmp/c.toml"
expect_bad_input "calibrate --name ''" "^streamdisk: --name: '' is not a name" -- \
  calibrate --table "$tmp/t.csv" --name '' -o "$tmp/c.toml"
expect_bad_input "characterize --name ''" "^streamdisk: --name: '' is not a name" -- \
  characterize -p $P --name '' -o "$tmp/c.toml"
[ -z "$(ls -A)" ] || fail "profile options: files were made: $(ls -A)"
[ ! -e "$tmp/c.toml" ] || fail "a refused calibrate/characterize wrote its profile"
[ ! -e "$tmp/r.html" ] || fail "report: a refused run wrote the page"
finish
