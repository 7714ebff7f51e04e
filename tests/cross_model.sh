#!/usr/bin/env bash
# The ARM leg of CI: the model gives the same answers on armhf and arm64 as on amd64.
#   tests/cross_model.sh [ARCH...]        (default: armhf arm64; answers in build/cross-model)
# Answers tests/cross_model.requests (simulate on every built-in profile with
# stalls and seeds, describe, capacity) with the lesson page's model entry point
# (web/lesson_api.cpp behind web/model_driver.cpp: target sd_model_driver,
# tests/CMakeLists.txt) natively from build/ and under qemu-user from each
# build-ARCH (tests/cross.sh ARCH's cross build, configured by
# `tests/cross.sh ARCH model` if it is not yet), and requires the same bytes:
# floating-point figures included. The driver links the models/ and sim/
# libraries those builds hold anyway, so this costs two files and a link per
# architecture (CI: tests/cross.sh armhf unit runs it after its build).
# On 32-bit armhf this also runs the model with 32-bit size_t and long. The cross
# toolchains build with -ffp-contract=off: without it arm64 differed in last digits.
set -euo pipefail
cd "$(dirname "$0")/.."
archs=("$@")
((${#archs[@]})) || archs=(armhf arm64)
root=build/cross-model
requests=tests/cross_model.requests

mkdir -p "$root"
grep -v '^#' "$requests" >"$root/requests"
n=$(wc -l <"$root/requests")
start=$SECONDS
[[ -f build/CMakeCache.txt ]] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target sd_model_driver >/dev/null
t=$((SECONDS - start)) start=$SECONDS
build/tests/sd_model_driver <"$root/requests" >"$root/answers.amd64"
echo "tests/cross_model.sh: amd64: built in $t s, $n requests answered in $((SECONDS - start)) s"
# Every request must be answered, none with an error: a broken request file
# would otherwise compare equal everywhere.
[ "$(wc -l <"$root/answers.amd64")" -eq "$n" ] || { echo "tests/cross_model.sh: $n requests, $(wc -l <"$root/answers.amd64") answers" >&2; exit 1; }
if grep -n '^{"error"' "$root/answers.amd64" >&2; then
  echo "tests/cross_model.sh: the lines above are errors: fix $requests" >&2
  exit 1
fi

rc=0
for arch in "${archs[@]}"; do
  case $arch in
    armhf) triple=arm-linux-gnueabihf qemu=qemu-arm-static ;;
    arm64) triple=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
    *) echo "tests/cross_model.sh: unknown architecture '$arch' (armhf, arm64)" >&2; exit 2 ;;
  esac
  start=$SECONDS
  if [[ -f build-$arch/CMakeCache.txt ]]; then
    cmake --build "build-$arch" -j2 --target sd_model_driver >/dev/null
  else
    tests/cross.sh "$arch" model >/dev/null
  fi
  t=$((SECONDS - start)) start=$SECONDS
  # The target's libraries (libfmt) from the cross build's sysroot, as cmake/toolchain-debian-cross.cmake runs tests.
  libs=$PWD/build-$arch/sysroot/root/usr/lib/$triple:$PWD/build-$arch/sysroot/root/lib/$triple
  "$qemu" -L "/usr/$triple" -E LD_LIBRARY_PATH="/usr/$triple/lib:$libs" "build-$arch/tests/sd_model_driver" \
    <"$root/requests" >"$root/answers.$arch" || true
  echo "tests/cross_model.sh: $arch: built in $t s, $n requests answered under qemu in $((SECONDS - start)) s"
  if cmp -s "$root/answers.amd64" "$root/answers.$arch"; then
    echo "tests/cross_model.sh: $arch: all $n answers byte-identical to amd64's"
  else
    rc=1
    # Name the requests that differ and the first numbers that do.
    paste -d'\n' "$root/requests" "$root/answers.amd64" "$root/answers.$arch" | awk -v a="$arch" '
      NR % 3 == 1 { req = $0 } NR % 3 == 2 { amd = $0 }
      NR % 3 == 0 && $0 != amd {
        printf "tests/cross_model.sh: %s differs from amd64 for %s\n", a, substr(req, 1, 120)
        n = split(amd, x, /[,:\[\]{}]/); split($0, y, /[,:\[\]{}]/); shown = 0
        for (i = 1; i <= n && shown < 3; i++) if (x[i] != y[i]) { printf "  amd64 %s, %s %s\n", x[i], a, y[i]; shown++ }
      }' >&2
  fi
done
exit $rc
