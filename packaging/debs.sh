#!/usr/bin/env bash
# The three packages: packaging/debs.sh [amd64] [armhf] [arm64]   (default: all three)
# amd64 from the native build (build/), armhf and arm64 cross-built
# (tests/cross.sh ARCH deb: Debian 12's cross compilers, the target's libraries
# unpacked with apt by packaging/cross-sysroot.sh). Each package is checked:
# its Architecture, that it holds the binary for that architecture, and that
# its Depends resolve against that architecture's archive with nothing
# installed (apt-get install -s). They are copied to build/debs/.
# tests/cli/package.sh checks what an installed package gives a user (run by
# ctest in each build; CI checks amd64).
set -euo pipefail
cd "$(dirname "$0")/.."
archs=("$@")
((${#archs[@]})) || archs=(amd64 armhf arm64)
mkdir -p build/debs
rc=0
for arch in "${archs[@]}"; do
  start=$SECONDS
  case $arch in
    amd64)
      [[ $(dpkg --print-architecture) == amd64 ]] || { echo "packaging/debs.sh: amd64 is built natively, on amd64" >&2; exit 2; }
      cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
      cmake --build build -j2 --target streamdisk sd_man >/dev/null
      rm -f build/streamdisk_*_amd64.deb
      cpack --config build/CPackConfig.cmake -B build >/dev/null
      dir=build apt_config= machine="X86-64" ;;
    armhf) tests/cross.sh armhf deb >/dev/null; dir=build-armhf apt_config=$PWD/build-armhf/sysroot/apt/apt.conf machine="ARM" ;;
    arm64) tests/cross.sh arm64 deb >/dev/null; dir=build-arm64 apt_config=$PWD/build-arm64/sysroot/apt/apt.conf machine="AArch64" ;;
    *) echo "packaging/debs.sh: unknown architecture '$arch' (amd64, armhf, arm64)" >&2; exit 2 ;;
  esac
  deb=$(ls "$dir"/streamdisk_*_"$arch".deb)
  tmp=$(mktemp -d)
  dpkg-deb -x "$deb" "$tmp"
  problems=()
  [[ $(dpkg-deb -f "$deb" Architecture) == "$arch" ]] || problems+=("Architecture $(dpkg-deb -f "$deb" Architecture)")
  m=$(LC_ALL=C readelf -h "$tmp/usr/bin/streamdisk" 2>/dev/null | sed -n 's/^ *Machine: *//p')
  [[ $m == *"$machine" ]] || problems+=("usr/bin/streamdisk is for '$m'")
  [[ -f $tmp/usr/share/man/man1/streamdisk-capacity.1.gz ]] || problems+=("no man pages")
  # Nothing installed (-s), against the archive of that architecture.
  if ! APT_CONFIG=${apt_config:-/dev/null} apt-get install -s "./$deb" >"$tmp/apt.log" 2>&1 ||
     ! grep -q '^Inst streamdisk ' "$tmp/apt.log"; then
    problems+=("Depends do not resolve: $(grep -E '^E:| Depends' "$tmp/apt.log" | head -2 | tr '\n' ' ')")
  fi
  rm -rf "$tmp"
  cp "$deb" build/debs/
  if ((${#problems[@]})); then
    rc=1
    printf 'packaging/debs.sh: %s: %s\n' "$(basename "$deb")" "${problems[@]}" >&2
  else
    echo "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB, built in $((SECONDS - start)) s; Depends: $(dpkg-deb -f "$deb" Depends)"
  fi
done
exit $rc
