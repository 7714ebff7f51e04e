# Shared part of cmake/toolchain-armhf.cmake and toolchain-arm64.cmake: Debian 12's
# cross compiler (g++-TRIPLE, with the target's libc and libstdc++ in /usr/TRIPLE)
# against the target's libraries unpacked into SD_CROSS_SYSROOT by
# packaging/cross-sysroot.sh (tests/cross.sh runs it); binaries run under
# qemu-user-static. Expects SD_DEB_ARCH, SD_TRIPLE, SD_PROCESSOR and SD_QEMU.
# Without SD_CROSS_SYSROOT only what needs no library but libc and libstdc++
# builds (web/ as the model driver: tests/cross_model.sh).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${SD_PROCESSOR})
set(CMAKE_C_COMPILER ${SD_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SD_TRIPLE}-g++)
# GCC's notes that parameter passing changed (armhf: GCC 7.1; arm64: GCC 10.1,
# std::pair<double, double>) concern mixing objects built by older GCCs; nothing here is.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
# No fused multiply-add where the source has a multiply and an add: GCC contracts
# them by default on arm64 (-ffp-contract=fast), which rounds once instead of twice
# and moves figures in their last digits; amd64 (no -mfma) and armhf (VFPv3) never
# fuse, so with this the same seed gives the same bytes on all three
# (tests/cross_model.sh: 704 figures differed on arm64 without it, none with it).
string(APPEND CMAKE_CXX_FLAGS_INIT " -ffp-contract=off")
# try_compile projects read the toolchain file again: hand them the sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SD_CROSS_SYSROOT)
set(CMAKE_LIBRARY_ARCHITECTURE ${SD_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# The loader, libc and libstdc++ are the compiler's (/usr/${SD_TRIPLE}/lib, first
# on the path so that multiarch copies of another version never mix in).
set(SD_CROSS_LIBDIRS /usr/${SD_TRIPLE}/lib)
if(SD_CROSS_SYSROOT)
  if(NOT EXISTS "${SD_CROSS_SYSROOT}/usr/lib/${SD_TRIPLE}")
    message(FATAL_ERROR "SD_CROSS_SYSROOT='${SD_CROSS_SYSROOT}' holds no ${SD_DEB_ARCH} libraries: run "
            "packaging/cross-sysroot.sh ${SD_DEB_ARCH} DIR and pass -DSD_CROSS_SYSROOT=DIR/root (tests/cross.sh does both)")
  endif()
  # Libraries and CMake package files in SD_CROSS_SYSROOT/usr/lib/${SD_TRIPLE};
  # architecture-independent ones (CLI11, Eigen, Catch2, nlohmann-json) on the host.
  set(CMAKE_FIND_ROOT_PATH ${SD_CROSS_SYSROOT})
  # pkg-config reads the target's .pc files only, their paths inside the sysroot.
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${SD_CROSS_SYSROOT})
  set(ENV{PKG_CONFIG_LIBDIR} ${SD_CROSS_SYSROOT}/usr/lib/${SD_TRIPLE}/pkgconfig:${SD_CROSS_SYSROOT}/usr/share/pkgconfig)
  set(ENV{PKG_CONFIG_PATH} "")
  # The linker follows the libraries' own dependencies (libsndfile's codecs) there too.
  set(sd_libs ${SD_CROSS_SYSROOT}/usr/lib/${SD_TRIPLE}:${SD_CROSS_SYSROOT}/lib/${SD_TRIPLE})
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${sd_libs}")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${sd_libs}")
  string(APPEND SD_CROSS_LIBDIRS :${sd_libs})
endif()
# Runs target binaries: ctest, catch_discover_tests, the man page generator.
set(CMAKE_CROSSCOMPILING_EMULATOR ${SD_QEMU} -L /usr/${SD_TRIPLE} -E LD_LIBRARY_PATH=${SD_CROSS_LIBDIRS})
# SD_DEB_ARCH names the .deb's Architecture (cmake/packaging.cmake).
