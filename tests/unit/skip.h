// Catch2 v2 has no SKIP. A test case that cannot run here (a tool or a kernel
// feature missing) calls sd_test::skip(why). Under ctest (tests/CMakeLists.txt
// sets SD_CATCH_SKIP_EXIT=77 and SKIP_RETURN_CODE 77 on every entry, one test
// case per process) it exits 77 and ctest reports the entry as skipped. Run by
// hand, it warns and returns, and `--warn NoAssertions` flags a case that
// checked nothing: a skip never shows as a pass. Call it before any CHECK (a
// REQUIRE is fine: a failed one never gets here), so no failure is hidden.
#pragma once
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace sd_test {

inline void skip(const std::string& why) {
  const char* code = std::getenv("SD_CATCH_SKIP_EXIT");
  if (code != nullptr && *code != '\0') {
    std::printf("SKIPPED: %s\n", why.c_str());
    std::fflush(stdout);
    std::_Exit(std::atoi(code));
  }
  WARN("SKIPPED: " << why);
}

}  // namespace sd_test
