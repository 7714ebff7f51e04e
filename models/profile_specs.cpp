// Profile specs as text: splitting at '+' and expanding globs over the
// built-in names (capacity's --profile 'rpi4-*+exfat-*+sandisk-*').
#include <fnmatch.h>

#include <fmt/format.h>

#include "models/profile.h"

namespace sd {
namespace {

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string::npos; }

}  // namespace

Result<std::vector<std::string>> expand_profile_globs(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  auto list = builtin_profiles();
  for (const auto& spec : specs) {
    if (!has_glob(spec)) {
      out.push_back(spec);
      continue;
    }
    // Each combination: the spec so far and the layers it already has.
    struct Combo {
      std::string spec;
      unsigned layers = 0;
    };
    auto layer_bit = [&](const std::string& name) {
      for (const auto& p : list)
        if (p.name == name && p.layer) return 1u << static_cast<int>(*p.layer);
      return 0u;  // a file or a composite: not checked here
    };
    std::vector<Combo> combos = {{}};
    const auto parts = split_profile_spec(spec);
    const bool single = parts.size() == 1;
    for (std::string_view view : parts) {
      std::string part(view);
      std::vector<std::string> names;
      if (!has_glob(part)) names.push_back(part);
      else for (const auto& p : list) {
        // Alone, a glob names whole stacks (composites, devices); inside
        // HOST+FS+DEVICE each part names one layer.
        if (single ? (p.layer && *p.layer != Layer::Device) : !p.layer) continue;
        if (fnmatch(part.c_str(), p.name.c_str(), 0) == 0) names.push_back(p.name);
      }
      if (names.empty())
        return Result<std::vector<std::string>>::error(
            fmt::format("--profile '{}': no built-in profile matches '{}' (`streamdisk profiles` lists them)", spec,
                        part));
      std::vector<Combo> next;
      for (const auto& c : combos)
        for (const auto& n : names) {
          unsigned bit = layer_bit(n);
          if (c.layers & bit) continue;  // that layer is already set: not a valid stack
          next.push_back({c.spec.empty() ? n : c.spec + "+" + n, c.layers | bit});
        }
      combos = std::move(next);
    }
    if (combos.empty())
      return Result<std::vector<std::string>>::error(
          fmt::format("--profile '{}' matches no valid host+filesystem+device stack", spec));
    for (const auto& c : combos) out.push_back(c.spec);
  }
  return out;
}

std::vector<std::string_view> split_profile_spec(std::string_view spec) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t plus = spec.find('+', start);
    parts.push_back(spec.substr(start, plus == std::string_view::npos ? spec.npos : plus - start));
    if (plus == std::string_view::npos) return parts;
    start = plus + 1;
  }
}

}  // namespace sd
