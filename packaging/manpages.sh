#!/usr/bin/env bash
# Man pages from the binary's own --help text (help2man), so there is no second
# copy to drift: streamdisk.1 from `streamdisk --help`, and streamdisk-SUB.1 from
# `streamdisk SUB --help` for every subcommand `streamdisk --help` lists, named
# by the one-line summary that list gives it.
#   packaging/manpages.sh OUTDIR STREAMDISK [EMULATOR...]
# EMULATOR runs a cross-built binary (qemu-arm-static ...). Writes OUTDIR/*.1.gz.
set -euo pipefail
out=$1; shift
bin=("$@")
if (($# >= 2)); then bin=("${@:2}" "$1"); fi   # emulator first, then the binary
command -v help2man >/dev/null || { echo "manpages.sh: help2man is missing (apt-get install help2man)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# help2man runs "PROGRAM --help" through the shell: a wrapper hands it one word.
printf '#!/bin/sh\nexec %s "$@"\n' "$(printf '%q ' "${bin[@]}")" > "$tmp/streamdisk"
chmod +x "$tmp/streamdisk"
version=$("$tmp/streamdisk" --version)
version=${version#streamdisk }
# "Subcommands:" section of the top-level help: "  NAME   summary".
mapfile -t subs < <("$tmp/streamdisk" --help | sed -n '/^Subcommands:/,/^$/{/^  [a-z]/p}')
((${#subs[@]})) || { echo "manpages.sh: no subcommands in 'streamdisk --help'" >&2; exit 1; }

see_also=$(printf 'streamdisk(1)'; for s in "${subs[@]}"; do read -r n _ <<<"$s"; printf ', streamdisk-%s(1)' "$n"; done)
printf '[SEE ALSO]\n%s\n\nThe guides in /usr/share/doc/streamdisk (docs/ in the sources).\n' "$see_also" > "$tmp/see_also.h2m"

page() {  # page NAME NAME_LINE [SUBCOMMAND]: NAME.1.gz, titled NAME (streamdisk-capacity)
  local file=$1 name=$2
  # help2man takes the page's name and title from the version string's first word.
  help2man --no-info --no-discard-stderr --include="$tmp/see_also.h2m" --version-string="$file $version" \
           --name="$name" --output="$tmp/page" "$tmp/streamdisk${3:+ $3}"
  # Example command lines stay one per line (help2man fills them as a paragraph).
  sed -e 's#'"$tmp"'/streamdisk#streamdisk#g' "$tmp/page" \
    | awk '/^\.SH/ { if (ex) print ".fi"; ex = ($0 == ".SH EXAMPLES") }
           ex && $0 == ".IP" { print ".nf"; print ".RS"; next }
           { print } END { if (ex) print ".fi" }' \
    | gzip -9n > "$out/$file.1.gz.tmp"
  mv "$out/$file.1.gz.tmp" "$out/$file.1.gz"
}
mkdir -p "$out"
rm -f "$out"/*.1.gz
page streamdisk "will this storage keep up with my recording?"
for s in "${subs[@]}"; do
  read -r n summary <<<"$s"
  page "streamdisk-$n" "${summary,}" "$n"
done
