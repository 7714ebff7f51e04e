#!/usr/bin/env bash
# The target side of an ARM cross build, with apt only and without multiarch:
#   packaging/cross-sysroot.sh armhf|arm64 [DIR]
# Installs Debian 12's cross compiler (g++-TRIPLE: its libc and libstdc++ are the
# Architecture: all *-cross packages) and qemu-user-static, then downloads the
# target's library packages (fuse3, fmt, toml++, sndfile and what sndfile links)
# with a private apt state in DIR/apt and unpacks them into DIR/root;
# cmake/toolchain-debian-cross.cmake builds against DIR/root (SD_CROSS_SYSROOT).
#
# Why not `dpkg --add-architecture` and libfuse3-dev:ARCH: multiarch packages must
# have the exact version of the installed amd64 ones, so one foreign index behind
# the amd64 one (the security archive's armhf index, mid-sync for days) blocks
# the install, and once the architecture is added every `apt-get update` fails
# on that index. Nothing here touches dpkg's state beyond the two host packages.
# DIR/root/DEBIAN.PKG holds each package's control files (shlibs: the .deb's Depends).
# Without DIR: only the host side (compiler, qemu), for tests/cross_model.sh.
set -euo pipefail
arch=${1:-}
dir=${2:-}
case $arch in
  armhf) triple=arm-linux-gnueabihf ;;
  arm64) triple=aarch64-linux-gnu ;;
  *) echo "usage: packaging/cross-sysroot.sh armhf|arm64 [DIR]" >&2; exit 2 ;;
esac

# Host side: compiler, emulator, and the tools the build and the package use.
host_packages=(g++-$triple qemu-user-static help2man dpkg-dev)
"$(dirname "$0")/install-missing.sh" cross-sysroot.sh "${host_packages[@]}"
[[ -n $dir ]] || exit 0

# Target side: the -dev packages for headers, .so links and .pc files, and the
# runtime libraries they and libsndfile link (sndfile.pc names its codecs' .pc
# files, so their -dev packages too). libc, libstdc++ and libgcc_s come
# with the compiler (libc6-TARGET-cross ..., in /usr/TRIPLE).
target_packages=(libfuse3-3 libfuse3-dev libfmt9 libfmt-dev libtomlplusplus3 libtomlplusplus-dev
                 libsndfile1 libsndfile1-dev libflac12 libogg0 libvorbis0a libvorbisenc2 libopus0
                 libmpg123-0 libmp3lame0 libflac-dev libogg-dev libvorbis-dev libopus-dev libmpg123-dev)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stamp=$dir/root/.packages
if [[ -f $stamp && -f $dir/apt/apt.conf && $(cat "$stamp") == "${target_packages[*]}" ]]; then
  echo "$dir/root"
  exit 0
fi
rm -rf "$dir/apt" "$dir/root" "$dir/debs"
mkdir -p "$dir/apt/state/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$dir/root"
: >"$dir/apt/status"
# The machine's sources, this architecture only, nothing shared with the system's
# apt: DIR/apt/apt.conf (APT_CONFIG=DIR/apt/apt.conf apt-get install -s ./x.deb
# resolves a package's Depends against the target's archive: tests/cli/package.sh).
cat >"$dir/apt/apt.conf" <<EOF
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
Dir::State "$dir/apt/state";
Dir::State::status "$dir/apt/status";
Dir::Cache "$dir/apt/cache";
APT::Sandbox::User "root";
Debug::NoLocking "true";
EOF
export APT_CONFIG=$dir/apt/apt.conf
# An index that fails (a mirror mid-sync) leaves the older suite's packages: fine here.
apt-get update -qq 2>"$dir/apt/update.err" || sed 's/^/cross-sysroot.sh: apt: /' "$dir/apt/update.err" | head -3 >&2
(cd "$dir/debs" && apt-get download -qq "${target_packages[@]}") || {
  echo "cross-sysroot.sh: cannot download the $arch packages (no network to the Debian mirror?)" >&2
  exit 1
}
for deb in "$dir"/debs/*.deb; do
  pkg=$(dpkg-deb -f "$deb" Package)
  dpkg-deb -x "$deb" "$dir/root"
  dpkg-deb -e "$deb" "$dir/root/DEBIAN.$pkg"
done
# Absolute symlinks (libfoo.so -> /lib/...) would point at the host: make them relative.
find "$dir/root" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dir/root$target")" "$link"
done
echo "${target_packages[*]}" >"$stamp"
echo "$dir/root"
