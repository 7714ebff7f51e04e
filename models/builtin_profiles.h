// The TOML texts of data/profiles/, compiled into the binary (data/CMakeLists.txt).
#pragma once
#include <string_view>
#include <vector>

namespace sd {
struct EmbeddedProfile {
  std::string_view path;  // relative to data/profiles, e.g. "device/samsung-960evo-250g.toml"
  std::string_view text;
};
const std::vector<EmbeddedProfile>& builtin_profile_texts();
}  // namespace sd
