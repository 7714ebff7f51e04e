# Installing and packaging: `cmake --install build` puts the binary, the man
# pages, bash completion and the docs in the usual places (the built-in
# profiles are compiled into the binary); `cpack --config build/CPackConfig.cmake`
# makes a .deb for the architecture built for (cross builds: cmake/toolchain-*.cmake
# set SD_DEB_ARCH). docs/install.md says how; tests/cli/package.sh checks it.
include(GNUInstallDirs)

install(TARGETS streamdisk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES packaging/streamdisk.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME streamdisk)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages from the binary's --help text (packaging/manpages.sh, help2man);
# a cross build runs the binary through CMAKE_CROSSCOMPILING_EMULATOR.
find_program(SD_HELP2MAN help2man)
if(SD_HELP2MAN)
  set(SD_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  add_custom_command(
    OUTPUT ${SD_MAN_DIR}/streamdisk.1.gz
    COMMAND bash ${CMAKE_SOURCE_DIR}/packaging/manpages.sh ${SD_MAN_DIR} $<TARGET_FILE:streamdisk>
            ${CMAKE_CROSSCOMPILING_EMULATOR}
    DEPENDS streamdisk ${CMAKE_SOURCE_DIR}/packaging/manpages.sh
    COMMENT "Man pages from --help (help2man)")
  add_custom_target(sd_man ALL DEPENDS ${SD_MAN_DIR}/streamdisk.1.gz)
  install(DIRECTORY ${SD_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
else()
  message(WARNING "help2man not found: no man pages (apt-get install help2man, or ./run.sh)")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME streamdisk)
set(CPACK_PACKAGE_VENDOR streamdisk)
set(CPACK_PACKAGE_CONTACT "streamdisk maintainers <streamdisk@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "will this storage keep up with my recording?")
set(CPACK_PACKAGE_INSTALL_DIRECTORY streamdisk)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # streamdisk_0.1.0-1_armhf.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
# fuse3 for `mount` (fusermount3); the shared libraries from dpkg-shlibdeps, or
# in a cross build (libraries unpacked in SD_CROSS_SYSROOT, unknown to dpkg) from
# their packages' shlibs files (packaging/deb-depends.sh, at cpack time below).
set(CPACK_DEBIAN_PACKAGE_DEPENDS fuse3)
if(SD_DEB_ARCH)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${SD_DEB_ARCH})
  set(sd_cross_depends "
execute_process(COMMAND bash ${CMAKE_SOURCE_DIR}/packaging/deb-depends.sh $<TARGET_FILE:streamdisk>
                ${SD_CROSS_SYSROOT} ${SD_DEB_ARCH} OUTPUT_VARIABLE sd_libs OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE sd_rc)
if(NOT sd_rc EQUAL 0 OR sd_libs STREQUAL \"\")
  message(FATAL_ERROR \"packaging/deb-depends.sh found no Depends for the ${SD_DEB_ARCH} binary\")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS \"fuse3, \${sd_libs}\")")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(sd_cross_depends "")
endif()
# Read at cpack time: the description carries the same line as `--version`,
# commit included, from the last build (cli/CMakeLists.txt writes version.txt).
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake)
file(GENERATE OUTPUT ${CPACK_PROJECT_CONFIG_FILE} CONTENT "${sd_cross_depends}
file(STRINGS \"${CMAKE_BINARY_DIR}/version.txt\" sd_v)
list(GET sd_v 1 sd_commit)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION \"will this storage keep up with my recording?
 Parametric drive models, a virtual-time simulator, a throttling FUSE filesystem
 and real-hardware measurement, for people who record continuous data to disk.
 .
 streamdisk ${PROJECT_VERSION} (commit \${sd_commit})\")
")
include(CPack)
