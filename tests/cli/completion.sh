#!/usr/bin/env bash
# bash completion (packaging/streamdisk.bash-completion): subcommands, options
# and built-in profile names, host+filesystem+device one layer at a time, all
# read from the binary under test.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -s "$STREAMDISK" "$tmp/bin/streamdisk"
PATH=$tmp/bin:$PATH
. "${SD_SOURCE_DIR:?}/packaging/streamdisk.bash-completion"
comp() {  # comp WORD... -> the candidates for the last word, sorted, one a line
  COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
  _streamdisk
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { grep -qx -- "$2" <<<"$1" || fail "completion of '$3' lacks '$2' (got: $(echo $1))"; }
lacks() { ! grep -qx -- "$2" <<<"$1" || fail "completion of '$3' offers '$2'"; }

# Every subcommand `streamdisk --help` lists, and only those.
want=$("$STREAMDISK" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' | sort)
[ "$(wc -l <<<"$want")" -ge 10 ] || fail "--help lists $(wc -l <<<"$want") subcommands"
[ "$(comp streamdisk '')" = "$want" ] || fail "subcommands: $(comp streamdisk '' | tr '\n' ' ')"
[ "$(comp streamdisk ca)" = "$(printf 'calibrate\ncapacity')" ] || fail "'ca': $(comp streamdisk ca | tr '\n' ' ')"
has "$(comp streamdisk --v)" --version "--v"

# Options of the subcommand being typed.
got=$(comp streamdisk capacity --)
for o in --profile --sample-rate --duration --probe --json; do has "$got" "$o" "capacity --"; done
lacks "$got" --target "capacity --"
has "$(comp streamdisk mount --)" --help "mount --"

# Profile names: every built-in from `profiles --json`, for -p and --profile.
names=$("$STREAMDISK" profiles --json | python3 -c 'import json,sys; [print(r["name"]) for r in json.load(sys.stdin)]' | sort)
[ "$(comp streamdisk show -p '')" = "$names" ] || fail "show -p: not the built-in names"
[ "$(comp streamdisk capacity --profile rpi4-bus)" = "$(printf 'rpi4-buster\nrpi4-buster-ultrafit-exfat')" ] ||
  fail "--profile rpi4-bus: $(comp streamdisk capacity --profile rpi4-bus | tr '\n' ' ')"
# After '+': only single layers, none of a layer already given.
got=$(comp streamdisk simulate -p rpi4-buster+)
has "$got" rpi4-buster+exfat-fuse "rpi4-buster+"
has "$got" rpi4-buster+sandisk-ultrafit-16g "rpi4-buster+"
lacks "$got" rpi4-buster+rpi4-bullseye "rpi4-buster+"
lacks "$got" rpi4-buster+crio-9014 "rpi4-buster+"
got=$(comp streamdisk simulate -p rpi4-buster+exfat-fuse+sandisk-u)
[ "$got" = rpi4-buster+exfat-fuse+sandisk-ultrafit-16g ] || fail "host+fs+sandisk-u: '$got'"
# A TOML file of one's own, whole or as one layer; other files are not profiles.
touch "$tmp/my-stick.toml" "$tmp/my-notes.txt"
[ "$(cd "$tmp" && comp streamdisk show -p my)" = my-stick.toml ] || fail "-p my: $(cd "$tmp" && comp streamdisk show -p my)"
[ "$(cd "$tmp" && comp streamdisk show -p rpi4-buster+my)" = rpi4-buster+my-stick.toml ] || fail "-p rpi4-buster+my"
# Whatever it offers is a profile streamdisk accepts.
"$STREAMDISK" show "$got" >/dev/null || fail "completed profile '$got' does not load"
finish
