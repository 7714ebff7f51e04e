# 32-bit ARM (Raspberry Pi OS 32-bit, Debian armhf). Usage: tests/cross.sh armhf, or
#   cmake -S . -B build-armhf -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-armhf.cmake
set(SD_DEB_ARCH armhf)
set(SD_TRIPLE arm-linux-gnueabihf)
set(SD_PROCESSOR arm)
set(SD_QEMU qemu-arm-static)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
# GCC's note that armhf's parameter passing changed in GCC 7.1 concerns mixing
# objects built by GCC < 7.1; nothing here is.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
