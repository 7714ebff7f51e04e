# Shared part of cmake/toolchain-armhf.cmake and toolchain-arm64.cmake: Debian 12's
# cross compilers (crossbuild-essential-ARCH) against the multiarch -dev packages
# (libfuse3-dev:ARCH ...; tests/cross.sh installs them), binaries run under
# qemu-user-static. Expects SD_DEB_ARCH, SD_TRIPLE, SD_PROCESSOR and SD_QEMU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${SD_PROCESSOR})
set(CMAKE_C_COMPILER ${SD_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SD_TRIPLE}-g++)
# Multiarch: libraries and CMake package files live in /usr/lib/${SD_TRIPLE}.
set(CMAKE_LIBRARY_ARCHITECTURE ${SD_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config reads the target's .pc files only (no ${SD_TRIPLE}-pkg-config needed).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${SD_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# Runs target binaries: ctest, catch_discover_tests, the man page generator. The
# target's loader and libraries are the multiarch ones under / (libc6:${SD_DEB_ARCH}).
set(CMAKE_CROSSCOMPILING_EMULATOR ${SD_QEMU})
# SD_DEB_ARCH names the .deb's Architecture (cmake/packaging.cmake).
