// The built-in profiles: data/profiles/*.toml compiled into the binary
// (builtin_profiles.h), by name, and listed for `streamdisk profiles`.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/builtin_profiles.h"
#include "models/profile_internal.h"

namespace sd {
namespace profile_detail {

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> v = [] {
    std::vector<Builtin> out;
    for (const auto& e : builtin_profile_texts()) {
      std::string stem = std::filesystem::path(std::string(e.path)).stem().string();
      out.push_back({stem, std::string(e.path), e.text});
    }
    return out;
  }();
  return v;
}

std::string example_device_profile() {
  std::string best;
  for (const auto& info : builtin_profiles())
    if (info.layer == Layer::Device && (best.empty() || info.name == "samsung-960evo-250g")) best = info.name;
  return best.empty() ? "DEVICE" : best;
}

}  // namespace profile_detail

std::vector<ProfileInfo> builtin_profiles() {
  std::vector<ProfileInfo> out;
  for (const auto& b : profile_detail::builtins()) {
    auto p = profile_detail::parse_text_at(b.text, "built-in " + b.path, {}, 0);
    ProfileInfo info;
    info.name = b.name;
    if (!p) {
      info.summary = "BROKEN: " + p.message();
      out.push_back(info);
      continue;
    }
    int n = 0;
    std::vector<std::string> names;
    for (Layer l : kLayers)
      if (p->has(l)) {
        ++n;
        info.layer = l;
        names.push_back(p->layer(l)->name);
      }
    if (n == 1) {
      info.summary = p->layer(*info.layer)->summary;
    } else {
      info.layer.reset();
      info.summary = p->summary;
      info.layers = fmt::format("{}", fmt::join(names, "+"));
    }
    out.push_back(info);
  }
  auto rank = [](const ProfileInfo& i) { return i.layer ? static_cast<int>(*i.layer) : -1; };
  std::stable_sort(out.begin(), out.end(), [&](const ProfileInfo& a, const ProfileInfo& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.name < b.name;
  });
  return out;
}

}  // namespace sd
