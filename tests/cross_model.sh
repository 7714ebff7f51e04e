#!/usr/bin/env bash
# The ARM leg of CI: the model gives the same answers on armhf and arm64 as on amd64.
#   tests/cross_model.sh [ARCH...]        (default: armhf arm64; BUILD_ROOT=build/cross-model)
# Builds the lesson page's model entry point (web/: models/ and sim/ sources,
# web/lesson_api.cpp, a stdin/stdout driver) for the host and, with Debian 12's
# cross compilers (cmake/toolchain-ARCH.cmake, no target library needed), for
# each ARCH; answers tests/cross_model.requests (simulate on every built-in
# profile with stalls and seeds, describe, capacity) natively and under
# qemu-user, and requires the same bytes: floating-point figures included.
# On 32-bit armhf this also runs the model with 32-bit size_t and long. The cross
# toolchains build with -ffp-contract=off: without it arm64 differed in last digits.
# The full cross build with the unit tests and the .deb: tests/cross.sh ARCH.
set -euo pipefail
cd "$(dirname "$0")/.."
archs=("$@")
((${#archs[@]})) || archs=(armhf arm64)
root=${BUILD_ROOT:-build/cross-model}
requests=tests/cross_model.requests
launcher=()
command -v ccache >/dev/null && [[ -z ${CCACHE_DISABLE:-} ]] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

build() {  # build DIR [cmake args...]: prints the seconds it took
  local dir=$1 start=$SECONDS
  shift
  cmake -S web -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >"$dir.log" 2>&1 &&
    cmake --build "$dir" -j2 >>"$dir.log" 2>&1 || {
    echo "tests/cross_model.sh: building $dir failed:" >&2
    tail -20 "$dir.log" >&2
    return 1
  }
  echo $((SECONDS - start))
}

mkdir -p "$root"
grep -v '^#' "$requests" >"$root/requests"
n=$(wc -l <"$root/requests")
t=$(build "$root/amd64")
start=$SECONDS
"$root/amd64/streamdisk_model" <"$root/requests" >"$root/answers.amd64"
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
  packaging/cross-sysroot.sh "$arch"   # the compiler and qemu-user-static, nothing else
  t=$(build "$root/$arch" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-$arch.cmake")
  start=$SECONDS
  "$qemu" -L "/usr/$triple" "$root/$arch/streamdisk_model" <"$root/requests" >"$root/answers.$arch" || true
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
