#!/usr/bin/env bash
# streamdisk quick start. On a fresh Debian 12 machine, as root (or with sudo):
#   ./run.sh          install what is missing, build, show what data sheets leave out
#   ./run.sh test     the same, then run the whole test suite (what CI runs)
#   ./run.sh lesson   build the lesson page: build/web/streamdisk-lesson.html
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake ninja-build g++ pkg-config libfuse3-dev fuse3 libeigen3-dev libtomlplusplus-dev catch2
          libfmt-dev libcli11-dev nlohmann-json3-dev fio strace sox python3 chromium
          jq sndfile-programs libsndfile1-dev clang-14 libclang-rt-14-dev help2man dpkg-dev man-db
          nbdkit libnbd-bin exfat-fuse exfatprogs ntfs-3g e2fsprogs xfsprogs btrfs-progs sqlite3 rsync alsa-utils python3-soundfile ffmpeg
          lld-14 wasi-libc libc++-14-dev-wasm32 libclang-rt-14-dev-wasm32)
# The lesson page's second browser, for the tests only (80 MB; tests/integration/lesson_firefox.sh).
if [ "${1:-demo}" = test ]; then packages+=(firefox-esr); fi
# The kernel's vfat driver as a program (Linux 6.1, 116 MB), for the tests only
# (tests/integration/uml_lib.bash: this machine's kernel has no vfat).
if [ "${1:-demo}" = test ]; then packages+=(dosfstools user-mode-linux); fi
# The ARM legs' host side (packaging/cross-sysroot.sh installs the same when run
# alone): installed here, before the builds that run beside ctest need them.
if [ "${1:-demo}" = test ]; then packages+=(g++-arm-linux-gnueabihf g++-aarch64-linux-gnu qemu-user-static); fi
packaging/install-missing.sh run.sh "${packages[@]}"

# The lesson page (WebAssembly, web/) only for `test` and `lesson`: the demo
# does not need it.
lesson=OFF
case "${1:-demo}" in test | lesson) lesson=ON ;; esac
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSD_LESSON=$lesson >/dev/null
start=$SECONDS
cmake --build build -j"$(nproc)"
[ "${1:-demo}" != test ] || echo "run.sh test: build (with the lesson page) took $((SECONDS - start)) s" >&2

case "${1:-demo}" in
  demo)
    # The main job on built-in defaults. 1) The NVMe drive whose data sheet says
    # 1500-1900 MB/s, and what a long recording really gets from it. 2) How many
    # 48 kHz/16-bit channels document 003's Raspberry Pi records for 1.5 h, per
    # filesystem on the same stick, and on the faster stick.
    ./build/cli/streamdisk show samsung-960evo-250g
    echo
    ./build/cli/streamdisk capacity -p 'rpi4-buster+*+sandisk-ultrafit-16g' -p rpi4-bullseye-extremego-exfat \
        -r 48k -b 16 -f w64 --buffer 1MiB -d 1.5h
    ;;
  lesson)
    echo "The lesson page, one file that works offline: $PWD/build/web/streamdisk-lesson.html"
    ;;
  test)
    rc=0
    # Each leg's wall time, for README "CI leg by leg" (2 cores: about 30 min).
    leg() {
      local name=$1 start=$SECONDS
      shift
      "$@" || rc=1
      echo "run.sh test: $name took $((SECONDS - start)) s" >&2
    }
    # The legs after ctest build much (ASan + UBSan, armhf, arm64: 851 s of
    # wall time beside ctest in one fresh-clone run, README "CI leg by leg").
    # Those builds start now, beside ctest, at the lowest CPU priority
    # (SCHED_IDLE): they run only on CPU the tests leave idle (the mount tests
    # run alone and mostly wait), never on theirs. Their build directories
    # are in tmpfs when there is room: compiler output there is no dirty page
    # cache, which the tests that time the page cache would feel (some set
    # vm.dirty_bytes to 1 MiB machine-wide). The legs then find them built;
    # a failed build is redone, and shown, by its leg.
    for d in build-asan build-armhf build-arm64; do
      [ -L $d ] && [ ! -e $d ] && rm $d  # tmpfs emptied by a reboot
      if [ ! -e $d ] && [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt 4000000 ] 2>/dev/null; then
        t=$(mktemp -d /dev/shm/streamdisk-$d.XXXXXX) && ln -s "$t" $d
      fi
    done
    prebuild() {
      tests/sanitize.sh build streamdisk sd_unit_tests sd_synth_traces fuzz_targets
      tests/cross.sh armhf build
      tests/cross.sh arm64 build streamdisk sd_man sd_model_driver
    }
    start=$SECONDS
    chrt --idle 0 nice -n 19 bash -c "$(declare -f prebuild); prebuild" >build/prebuild.log 2>&1 &
    pre=$!
    leg "ctest" ctest --test-dir build --output-on-failure -j"$(nproc)"
    # What is left of those builds: with nothing else running, the lowest
    # priority gets the whole machine.
    waited=$SECONDS
    wait $pre || echo "run.sh test: the builds beside ctest failed (build/prebuild.log); the legs below redo them" >&2
    echo "run.sh test: builds beside ctest took $((SECONDS - start)) s, $((SECONDS - waited)) s of it after ctest" >&2
    # README "Reliability": the unit and command-line tests again under ASan +
    # UBSan (clang-14, build-asan), then every reader's fuzz target for 20 s.
    leg "sanitize" tests/sanitize.sh
    leg "fuzz" tests/fuzz/run.sh 20
    # The ARM leg: built for armhf, the model answers as on amd64, byte for
    # byte, under qemu-user; then every unit test case, under qemu-user, the
    # long Monte-Carlo ones on their first few random sets (docs/install.md;
    # the full cross build with the CLI tests: tests/cross.sh armhf).
    leg "armhf unit" tests/cross.sh armhf unit
    # The three packages, each checked (Architecture, the binary's machine,
    # Depends against that architecture's archive): amd64 from build/, armhf
    # from the libraries the ARM leg built, arm64 cross-built. cli.package
    # (ctest above) installs the amd64 one into a scratch root and runs it.
    leg "debs" packaging/debs.sh amd64 armhf arm64
    # arm64's model answers too, now that its libraries are built (a link).
    leg "arm64 model" tests/cross_model.sh arm64
    exit $rc
    ;;
  *)
    echo "usage: ./run.sh [test|lesson]" >&2
    exit 2
    ;;
esac
