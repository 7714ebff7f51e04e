#!/usr/bin/env bash
# Cross-build streamdisk for an ARM architecture and test it under qemu-user:
#   tests/cross.sh armhf|arm64 [quick]
# Installs what is missing (Debian 12: crossbuild-essential-ARCH, qemu-user-static,
# the multiarch -dev packages), builds in build-ARCH with cmake/toolchain-ARCH.cmake,
# runs the unit tests and the command-line tests that need no FUSE (each binary
# through qemu-ARCH-static), and makes build-ARCH/streamdisk_*_ARCH.deb.
# "quick" runs only the test past 4 GiB and the CLI version, package and completion tests.
# Not part of ./run.sh test: the cross build alone costs about a native build
# (docs/install.md gives the times measured).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-}
case $arch in
  armhf) triple=arm-linux-gnueabihf ;;
  arm64) triple=aarch64-linux-gnu ;;
  *) echo "usage: tests/cross.sh armhf|arm64 [quick]" >&2; exit 2 ;;
esac
mode=${2:-full}
[[ $mode == full || $mode == quick ]] || { echo "tests/cross.sh: unknown mode '$mode' (use quick, or nothing)" >&2; exit 2; }

packages=(crossbuild-essential-$arch qemu-user-static help2man dpkg-dev
          libfuse3-dev:$arch libfmt-dev:$arch libtomlplusplus-dev:$arch libsndfile1-dev:$arch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  dpkg --print-foreign-architectures | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
  $SUDO apt-get update -qq || true   # a foreign index out of sync is reported by the check below
  # Multiarch -dev packages must have the amd64 ones' exact versions: never let
  # apt remove or downgrade anything to get them.
  plan=$(apt-get install -s --no-install-recommends "${missing[@]}" 2>&1) || {
    echo "tests/cross.sh: apt cannot install ${missing[*]}:" >&2
    grep -E '^ |^E:' <<<"$plan" | head -8 >&2
    echo "(a mirror out of sync for $arch? retry later; see docs/install.md)" >&2
    exit 1
  }
  if grep -qE '^Remv|^Inst [^ ]+ \[' <<<"$plan"; then
    echo "tests/cross.sh: installing ${missing[*]} would remove or change installed packages:" >&2
    grep -E '^Remv|^Inst [^ ]+ \[' <<<"$plan" | head -8 >&2
    exit 1
  fi
  echo "tests/cross.sh: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=build-$arch
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$SECONDS
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-$arch.cmake" \
      "${launcher[@]}" >/dev/null
# The binary, the unit tests, the man pages and the CLI tests' trace synthesizer; no benchmarks.
cmake --build "$build" -j2 --target streamdisk sd_unit_tests sd_man sd_synth_traces
echo "tests/cross.sh: $arch build took $((SECONDS - start)) s" >&2

start=$SECONDS
rc=0
if [[ $mode == quick ]]; then
  ctest --test-dir "$build" --output-on-failure -j2 -R 'past 4 GiB|^cli\.(version|package|completion)$' || rc=1
else
  # Integration tests mount FUSE or run real tools: not under qemu-user.
  ctest --test-dir "$build" --output-on-failure -j2 -E '^integration\.' || rc=1
fi
echo "tests/cross.sh: $arch tests took $((SECONDS - start)) s" >&2

DEB_HOST_ARCH=$arch cpack --config "$build/CPackConfig.cmake" -B "$build" >/dev/null || rc=1
ls "$build"/streamdisk_*_"$arch".deb
exit $rc
