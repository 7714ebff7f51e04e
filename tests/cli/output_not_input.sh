#!/usr/bin/env bash
# An output file is never one of the command's inputs (docs/formats.md "Output
# files"), also when the input comes in another way than a path on the command
# line: standard input ("-") redirected from the output file. Each of these
# replaced the input with the command's output and exited 0.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P=samsung-960evo-250g

# same WHAT FILE -- ARGS...: exit 2, one line, FILE unchanged (same content, same inode).
same() {
  local what=$1 file=$2; shift 3
  local sum ino; sum=$(md5sum <"$file"); ino=$(stat -c %i "$file")
  expect_bad_input "$what" "is also an input" -- "$@"
  [ "$(md5sum <"$file")" = "$sum" ] && [ "$(stat -c %i "$file")" = "$ino" ] || fail "$what: the input was replaced"
}

# Standard input redirected from the output file.
"$STREAMDISK" show $P --json >"$tmp/show.json" || fail "show --json"
same "report - -o its stdin" "$tmp/show.json" -- report - -o "$tmp/show.json" <"$tmp/show.json"
ln -s show.json "$tmp/show-link.json"
same "report - -o a link to its stdin" "$tmp/show.json" -- report - -o "$tmp/show-link.json" <"$tmp/show.json"
python3 - "$tmp/fio.json" <<'PY'
import json, sys
jobs = [{"jobname": f"w{bs}", "job options": {"rw": "write", "bs": str(bs)}, "read": {"io_bytes": 0},
         "write": {"io_bytes": bs * 1000, "bw_bytes": min(bs * 2000, 3e8)}} for bs in (4096, 65536, 1048576)]
json.dump({"fio version": "fio-3.33", "jobs": jobs}, open(sys.argv[1], "w"))
PY
"$STREAMDISK" calibrate --fio-json "$tmp/fio.json" >/dev/null || fail "calibrate --fio-json does not read the test's fio JSON"
same "calibrate --fio-json - -o its stdin" "$tmp/fio.json" -- calibrate --fio-json - -o "$tmp/fio.json" <"$tmp/fio.json"
# A --faults FILE is an input like the profile.
printf '[[fault]]\nfault = "eio"\nat = "2GB"\n' >"$tmp/faults.toml"
same "simulate --trace its --faults file" "$tmp/faults.toml" -- \
  simulate -p $P -c 1 -r 8k -d 1s --faults "$tmp/faults.toml" --trace "$tmp/faults.toml"
same "simulate --trace its --faults - (stdin)" "$tmp/faults.toml" -- \
  simulate -p $P -c 1 -r 8k -d 1s --faults - --trace "$tmp/faults.toml" <"$tmp/faults.toml"
mkdir "$tmp/rec"
same "record --trace its --faults file" "$tmp/faults.toml" -- \
  record "$tmp/rec" -c 1 -r 8k -d 0.2s --faults "$tmp/faults.toml" --trace "$tmp/faults.toml"
[ -z "$(ls -A "$tmp/rec")" ] || fail "a refused record left files: $(ls -A "$tmp/rec")"
"$STREAMDISK" simulate -p $P -c 1 -r 8k -d 1s --faults "$tmp/faults.toml" --trace "$tmp/t.csv" >/dev/null \
  || fail "simulate --faults FILE --trace another file"
head -1 "$tmp/t.csv" | grep -q '^# streamdisk-trace' || fail "simulate --faults FILE did not write its trace"

# A pipe or another file on stdin is not the output: written as before.
"$STREAMDISK" report - -o "$tmp/r.html" <"$tmp/show.json" || fail "report - -o with stdin from another file"
head -c 200 "$tmp/r.html" | grep -q '<!DOCTYPE html>' || fail "report - -o did not write the page"
cat "$tmp/show.json" | "$STREAMDISK" report - -o "$tmp/r2.html" || fail "report - -o with stdin from a pipe"
[ -s "$tmp/r2.html" ] || fail "report - -o from a pipe did not write the page"
finish
