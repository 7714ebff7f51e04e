// `streamdisk --version`: the version and the commit the binary was built
// from, generated at build time by cmake/version.cmake.
#pragma once

namespace sd::cli {

// "streamdisk 0.1.0 (commit 1a2b3c4d5e6f)"; "-dirty" after the commit when the
// checkout had uncommitted changes, "unknown" when no commit could be found.
const char* version_line();

}  // namespace sd::cli
