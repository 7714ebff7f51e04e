# 64-bit ARM (Raspberry Pi OS 64-bit, Debian arm64). Usage: tests/cross.sh arm64, or
#   by hand: docs/install.md (packaging/cross-sysroot.sh arm64 DIR, then -DSD_CROSS_SYSROOT=DIR/root)
set(SD_DEB_ARCH arm64)
set(SD_TRIPLE aarch64-linux-gnu)
set(SD_PROCESSOR aarch64)
set(SD_QEMU qemu-aarch64-static)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
