#!/usr/bin/env bash
# The .deb (cmake/packaging.cmake, CPack): dependencies, and what an installed
# package gives a user, unpacked into a scratch root (dpkg-deb -x; as root also
# dpkg -i into a scratch root of its own): the binary
# runs from anywhere with its built-in profiles, --version names the same commit
# as the package, every subcommand has a man page that man renders, bash
# completion completes profile names.
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build=${SD_BUILD_DIR:?}
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null || skip "cpack or dpkg-deb missing"
[ -f "$build/man/streamdisk.1.gz" ] || skip "no man pages built (help2man missing: ./run.sh installs it)"

arch=${SD_DEB_ARCH:-$(dpkg --print-architecture)}  # a cross build: the target's
DEB_HOST_ARCH=$arch cpack --config "$build/CPackConfig.cmake" -B "$tmp/out" > "$tmp/cpack.log" 2>&1 ||
  { fail "cpack failed: $(tail -5 "$tmp/cpack.log")"; finish; }
debs=("$tmp"/out/streamdisk_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { fail "expected one streamdisk_*.deb, got: ${debs[*]}"; finish; }
deb=${debs[0]}
[[ $(basename "$deb") =~ ^streamdisk_[0-9.]+-1_${arch}\.deb$ ]] || fail "package name $(basename "$deb")"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "Architecture: $(dpkg-deb -f "$deb" Architecture)"
depends=$(dpkg-deb -f "$deb" Depends)
# fuse3 by hand (mount needs fusermount3); the libraries from dpkg-shlibdeps.
for d in fuse3 libfuse3-3 libc6 libstdc++6 libfmt9; do
  [[ ", $depends," == *", $d "* || ", $depends," == *", $d,"* ]] || fail "Depends lacks $d: $depends"
done
if command -v apt-get >/dev/null; then
  # Its dependencies resolve on this Debian (nothing is installed: -s); a cross
  # build's against the target's archive, with nothing installed
  # (packaging/cross-sysroot.sh's private apt state beside the sysroot).
  [ -n "${SD_CROSS_SYSROOT:-}" ] && export APT_CONFIG=$SD_CROSS_SYSROOT/../apt/apt.conf
  apt-get install -s "$deb" > "$tmp/apt.log" 2>&1 || fail "apt-get install -s: $(grep -E '^E:|Depends' "$tmp/apt.log" | head -3)"
  [ -z "${SD_CROSS_SYSROOT:-}" ] || grep -q "^Inst streamdisk " "$tmp/apt.log" || fail "apt-get install -s: $(head -3 "$tmp/apt.log")"
fi

dpkg-deb -x "$deb" "$tmp/root" || fail "dpkg-deb -x failed"
if [ "$(id -u)" -eq 0 ]; then
  # dpkg -i into a scratch root of its own (its dependencies are not there:
  # --force-depends; a cross build's architecture is not that root's: --force-architecture).
  d=$tmp/droot/var/lib/dpkg
  mkdir -p "$d/info" "$d/updates" && : > "$d/status"
  dpkg --root="$tmp/droot" --force-depends --force-architecture -i "$deb" > "$tmp/dpkg.log" 2>&1 ||
    fail "dpkg -i into a scratch root: $(tail -2 "$tmp/dpkg.log")"
  dpkg --root="$tmp/droot" -s streamdisk 2>/dev/null | grep -q '^Status: install ok installed' ||
    fail "dpkg -i into a scratch root: streamdisk not installed"
  dpkg --root="$tmp/droot" -L streamdisk | grep -qx /usr/bin/streamdisk || fail "dpkg -L lacks /usr/bin/streamdisk"
  cmp -s "$tmp/droot/usr/bin/streamdisk" "$tmp/root/usr/bin/streamdisk" || fail "dpkg -i installed another binary"
fi
[ -x "$tmp/root/usr/bin/streamdisk" ] || { fail "no usr/bin/streamdisk in the package"; finish; }
# The installed binary, through qemu-user in a cross build (SD_EMULATOR).
mkdir -p "$tmp/pbin"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${SD_EMULATOR:-}" "$tmp/root/usr/bin/streamdisk" > "$tmp/pbin/streamdisk"
chmod +x "$tmp/pbin/streamdisk"
bin=$tmp/pbin/streamdisk
line=$(cd / && "$bin" --version) || fail "installed --version failed"
[ "$line" = "$("$STREAMDISK" --version)" ] || fail "installed --version '$line' differs from the build's"
dpkg-deb -f "$deb" Description | grep -qxF " $line" || fail "package description lacks '$line'"
(cd / && "$bin" profiles) > "$tmp/profiles" || fail "installed profiles failed"
grep -q 'sandisk-ultrafit-16g' "$tmp/profiles" || fail "installed profiles lacks sandisk-ultrafit-16g"
(cd / && "$bin" show rpi4-buster+exfat-fuse+sandisk-ultrafit-16g) > /dev/null || fail "installed show failed"

# A man page per subcommand, rendered by man; NAME carries --help's summary.
man1=$tmp/root/usr/share/man/man1
"$bin" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z-]*\)  *\(.*\)/\1\t\2/p' > "$tmp/subs"
[ "$(wc -l < "$tmp/subs")" -ge 10 ] || fail "--help lists $(wc -l < "$tmp/subs") subcommands"
[ -f "$man1/streamdisk.1.gz" ] || fail "no streamdisk.1.gz"
while IFS=$'\t' read -r sub summary; do
  page=$man1/streamdisk-$sub.1.gz
  [ -f "$page" ] || { fail "no man page for $sub"; continue; }
  MANWIDTH=300 man -l "$page" > "$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l $page failed: $(cat "$tmp/man.err")"
  grep -qiF "streamdisk-$sub - ${summary:0:40}" "$tmp/man.txt" || fail "man $sub: NAME lacks '$summary'"
done < "$tmp/subs"
MANWIDTH=300 man -l "$man1/streamdisk-capacity.1.gz" > "$tmp/cap.txt" 2>/dev/null
# Options and examples come from --help, one example a line.
"$bin" capacity --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p' | while read -r opt; do
  grep -qF -- "$opt" "$tmp/cap.txt" || fail "man capacity lacks $opt"
done
"$bin" capacity --help | sed -n 's/^  \(streamdisk capacity .*\)/\1/p' | while read -r ex; do
  grep -qxF -- "       $ex" "$tmp/cap.txt" || grep -qF -- "$ex" "$tmp/cap.txt" || fail "man capacity lacks example line '$ex'"
done

# Completion in the usual place, working against the installed binary.
comp=$tmp/root/usr/share/bash-completion/completions/streamdisk
[ -f "$comp" ] || fail "no bash completion in the package"
got=$(PATH=$tmp/pbin:$PATH bash -c '. "$1"; COMP_WORDS=(streamdisk capacity -p rpi4-buster+exfat-fuse+sandisk-u)
  COMP_CWORD=3; _streamdisk; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp")
[ "$got" = rpi4-buster+exfat-fuse+sandisk-ultrafit-16g ] || fail "installed completion: '$got'"
# Docs under /usr/share/doc/streamdisk.
[ -f "$tmp/root/usr/share/doc/streamdisk/README.md" ] && [ -f "$tmp/root/usr/share/doc/streamdisk/capacity.md" ] ||
  fail "docs missing under usr/share/doc/streamdisk"
finish
