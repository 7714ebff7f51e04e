// Shared by the libFuzzer targets in this folder: the fuzzer's bytes as text
// and as a stream, and a result check that turns a reader's broken promise
// into a crash the fuzzer reports (an error must carry a message).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace sd_fuzz {

inline std::string text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// Errors are values with a one-line message naming the input (STYLE.md 7).
template <class R>
void check_result(const R& r) {
  if (!r.ok() && r.message().empty()) std::abort();
}

}  // namespace sd_fuzz
