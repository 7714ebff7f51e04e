#!/usr/bin/env bash
# Cross-build streamdisk for an ARM architecture and test it under qemu-user:
#   tests/cross.sh armhf|arm64 [quick|unit|deb|model|build [TARGET...]]
# Installs what is missing (packaging/cross-sysroot.sh: Debian 12's cross compiler,
# qemu-user-static, the target's libraries unpacked in build-ARCH/sysroot), builds in build-ARCH with cmake/toolchain-ARCH.cmake,
# runs the unit tests and the command-line tests that need no FUSE (each binary
# through qemu-ARCH-static), and makes build-ARCH/streamdisk_*_ARCH.deb.
# "quick" runs only the tests past 4 GiB and the CLI version, package and completion tests;
# "unit" (CI's ARM leg, ./run.sh test) builds the unit tests and the model driver,
# compares the model's answers with amd64's (tests/cross_model.sh ARCH), and runs
# every unit test case, two at a time, with SD_TEST_SHORT=1: the few Monte-Carlo
# cases that repeat one check over many random sets run the first few sets
# (tests/unit/short_run.h; the full counts run natively in the same CI run); no package;
# "deb" builds only the binary and its man pages, and the package (packaging/debs.sh;
# in CI after "unit" for armhf: the libraries are built once for both);
# "model" builds only the model driver (tests/cross_model.sh);
# "build [TARGET...]" builds and runs nothing else (./run.sh test builds ahead
# of the legs that use them, beside ctest): by default what "unit" and "deb" build.
# The full mode is not part of ./run.sh test: the CLI tests under qemu cost
# minutes (docs/install.md gives the times measured).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-}
case $arch in
  armhf) triple=arm-linux-gnueabihf ;;
  arm64) triple=aarch64-linux-gnu ;;
  *) echo "usage: tests/cross.sh armhf|arm64 [quick|unit|deb|model|build [TARGET...]]" >&2; exit 2 ;;
esac
mode=${2:-full}
[[ $mode == full || $mode == quick || $mode == unit || $mode == deb || $mode == model || $mode == build ]] ||
  { echo "tests/cross.sh: unknown mode '$mode' (use quick, unit, deb, model, build, or nothing)" >&2; exit 2; }

build=build-$arch
# The compiler, qemu-user-static and the target libraries, with apt only.
sysroot=$(packaging/cross-sysroot.sh "$arch" "$build/sysroot")
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$SECONDS
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-$arch.cmake" \
      -DSD_CROSS_SYSROOT="$sysroot" "${launcher[@]}" >/dev/null
# The binary, the unit tests, the man pages and the CLI tests' trace synthesizer; no benchmarks.
case $mode in
  unit) targets=(sd_unit_tests sd_model_driver) ;;
  deb) targets=(streamdisk sd_man) ;;
  model) targets=(sd_model_driver) ;;
  build) targets=("${@:3}"); ((${#targets[@]})) || targets=(sd_unit_tests sd_model_driver streamdisk sd_man) ;;
  *) targets=(streamdisk sd_man sd_unit_tests sd_synth_traces) ;;
esac
cmake --build "$build" -j2 --target "${targets[@]}"
echo "tests/cross.sh: $arch build took $((SECONDS - start)) s" >&2
[[ $mode == model || $mode == build ]] && exit 0
if [[ $mode == deb ]]; then
  DEB_HOST_ARCH=$arch cpack --config "$build/CPackConfig.cmake" -B "$build" >/dev/null
  ls "$build"/streamdisk_*_"$arch".deb
  exit 0
fi

start=$SECONDS
rc=0
if [[ $mode == quick ]]; then
  ctest --test-dir "$build" --output-on-failure -j2 -R 'past 4 GiB|past 2\^32|^cli\.(version|package|completion)$' || rc=1
elif [[ $mode == unit ]]; then
  tests/cross_model.sh "$arch" || rc=1
  # Every unit test case (one qemu process each, two at a time on two cores);
  # the CLI and integration scripts need the binary: the full mode runs them.
  SD_TEST_SHORT=1 ctest --test-dir "$build" --output-on-failure -j2 -E '^(cli|integration)\.' || rc=1
  echo "tests/cross.sh: $arch tests took $((SECONDS - start)) s" >&2
  exit $rc
else
  # Integration tests mount FUSE or run real tools: not under qemu-user.
  ctest --test-dir "$build" --output-on-failure -j2 -E '^integration\.' || rc=1
fi
echo "tests/cross.sh: $arch tests took $((SECONDS - start)) s" >&2

DEB_HOST_ARCH=$arch cpack --config "$build/CPackConfig.cmake" -B "$build" >/dev/null || rc=1
ls "$build"/streamdisk_*_"$arch".deb
exit $rc
