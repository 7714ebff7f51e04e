// Inside the profile loader: the pieces the files of one idea each share.
// profile_toml.cpp parses TOML, profile_compose.cpp resolves and stacks the
// parts of a spec, profile_builtins.cpp holds the built-in registry. Not for
// use outside models/profile*.cpp: the interface is models/profile.h.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "models/profile.h"

namespace sd::profile_detail {

// A profile's TOML text (a layer file or a composite). `origin` names it in
// messages; a composite's references to other profiles are loaded with
// load_part, relative paths from `base_dir`; `depth` counts the nesting.
Result<Profile> parse_text_at(std::string_view text, std::string_view origin, const std::filesystem::path& base_dir,
                              int depth);
// One part of a spec: a built-in name or a path to a TOML file.
Result<Profile> load_part(std::string_view part, int depth);

// A built-in profile: data/profiles/<path>, compiled in (builtin_profiles.h).
struct Builtin {
  std::string name;  // the file's stem
  std::string path;
  std::string_view text;
};
const std::vector<Builtin>& builtins();
// A built-in device profile to name in a hint (one that exists).
std::string example_device_profile();

}  // namespace sd::profile_detail
