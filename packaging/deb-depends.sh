#!/usr/bin/env bash
# The Depends of a cross-built .deb, from the libraries the binary links:
#   packaging/deb-depends.sh BINARY SYSROOT ARCH
# prints e.g. "libc6 (>= 2.36), libfmt9 (>= 9.1.0+ds1), libfuse3-3 (>= 3.14.0), ...".
# Each NEEDED soname is looked up in the shlibs files of the packages it comes
# from: SYSROOT/DEBIAN.PKG/shlibs (packaging/cross-sysroot.sh unpacks them) or,
# for libc, libstdc++ and libgcc_s, the compiler's libc6-ARCH-cross ... packages
# (whose "libc6:ARCH (>= 2.36)" names the target package). A native build uses
# dpkg-shlibdeps instead (CPack); it needs the libraries installed through dpkg.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: packaging/deb-depends.sh BINARY SYSROOT ARCH" >&2; exit 2; }
bin=$1 sysroot=$2 arch=$3
needed=$(LC_ALL=C readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') || {
  echo "deb-depends.sh: cannot read $bin" >&2; exit 1; }
shlibs=("$sysroot"/DEBIAN.*/shlibs)
for p in $(dpkg-query -W -f='${Package}\n' "*-$arch-cross" 2>/dev/null); do
  f=/var/lib/dpkg/info/$p.shlibs
  [ -f "$f" ] && shlibs+=("$f")
done
deps=()
for so in $needed; do
  # libfoo.so.3 -> "libfoo 3"; libfoo-1.2.so -> "libfoo-1.2" (no version).
  if [[ $so =~ ^(.*)\.so\.([0-9.]+)$ ]]; then name=${BASH_REMATCH[1]} ver=${BASH_REMATCH[2]}
  else name=${so%.so} ver=""; fi
  line=$(awk -v n="$name" -v v="$ver" '$1 == n && $2 == v { $1 = ""; $2 = ""; print; exit }' "${shlibs[@]}" 2>/dev/null)
  [[ -n $line ]] || { echo "deb-depends.sh: no shlibs entry for $so (needed by $bin)" >&2; exit 1; }
  # "libc6:armhf (>= 2.36)" from a -cross package: the target's own package name.
  line=$(sed -E 's/^ +//; s/:[a-z0-9]+( |$)/\1/' <<<"$line")
  deps+=("$line")
done
printf '%s\n' "${deps[@]}" | sort -u | paste -sd, | sed 's/,/, /g'
