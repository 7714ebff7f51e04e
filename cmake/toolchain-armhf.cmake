# 32-bit ARM (Raspberry Pi OS 32-bit, Debian armhf). Usage: tests/cross.sh armhf, or
#   by hand: docs/install.md (packaging/cross-sysroot.sh armhf DIR, then -DSD_CROSS_SYSROOT=DIR/root)
set(SD_DEB_ARCH armhf)
set(SD_TRIPLE arm-linux-gnueabihf)
set(SD_PROCESSOR arm)
set(SD_QEMU qemu-arm-static)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
