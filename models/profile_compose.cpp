// A profile spec resolved and stacked: each '+'-separated part a built-in
// name or a TOML file, later parts replacing the layers they set, then the
// --set overrides and the checks (Profile::finish).
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "models/input.h"
#include "models/profile_internal.h"

namespace sd {
namespace profile_detail {
namespace fs = std::filesystem;

Result<Profile> load_part(std::string_view part, int depth) {
  if (depth > 8) return Result<Profile>::error(fmt::format("profile '{}' includes itself (or nests too deeply)", part));
  for (const auto& b : builtins())
    if (b.name == part) {
      auto p = parse_text_at(b.text, "built-in " + b.path, {}, depth);
      if (p)
        for (Layer l : kLayers)
          if (p->has(l)) {
            LayerProfile lp = *p->layer(l);
            if (lp.origin.starts_with("built-in ")) lp.origin = "built-in";
            p->set_layer(std::move(lp));
          }
      return p;
    }
  fs::path path{std::string(part)};
  std::error_code ec;
  bool looks_like_path = part.find('/') != std::string_view::npos || part.ends_with(".toml");
  if (fs::exists(path, ec) || looks_like_path) {
    // A file, a pipe (`show <(...)`), or something that is not a profile file:
    // say what it is rather than "does not exist".
    if (std::string why = unreadable_reason(path.string()); !why.empty())
      return Result<Profile>::error(fmt::format("profile file '{}' {}{}", excerpt(part), why,
                                                why.starts_with("does not") ? ""
                                                                             : ": give a profile TOML file or a "
                                                                               "built-in name (`streamdisk profiles`)"));
    auto text = read_input(path.string(), "profile file", kProfileLimits);
    if (!text) return text.status();
    auto p = parse_text_at(*text, path.string(), path.parent_path(), depth);
    if (p) p->files.insert(p->files.begin(), path.string());
    return p;
  }
  std::vector<std::string> names;
  for (const auto& b : builtins()) names.push_back(b.name);
  std::string hint = nearest(part, names);
  return Result<Profile>::error(fmt::format("unknown profile '{}'{}; `streamdisk profiles` lists the built-in ones",
                                            excerpt(part), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

}  // namespace profile_detail

Result<Profile> load_profile_unfinished(std::string_view spec) {
  if (spec.empty()) return Result<Profile>::error("empty --profile: name a profile (`streamdisk profiles` lists them)");
  Profile out;
  out.name = std::string(spec);
  std::map<Layer, std::string> set_by;  // which part set each layer explicitly
  int parts = 0;
  for (std::string_view part : split_profile_spec(spec)) {
    if (part.empty())
      return Result<Profile>::error(fmt::format("profile '{}' has an empty part between '+' signs", spec));
    auto p = profile_detail::load_part(part, 0);
    if (!p) return p.status();
    out.files.insert(out.files.end(), p->files.begin(), p->files.end());
    ++parts;
    int layers_here = 0;
    for (Layer l : kLayers) layers_here += p->has(l);
    for (Layer l : kLayers) {
      if (!p->has(l)) continue;
      // Two single-layer parts for the same layer is almost surely a mistake.
      if (layers_here == 1 && set_by.count(l))
        return Result<Profile>::error(fmt::format("profile '{}': the {} layer is given twice ('{}' and '{}')", spec,
                                                  layer_name(l), set_by[l], part));
      if (layers_here == 1) set_by[l] = std::string(part);
      out.set_layer(*p->layer(l));
    }
    if (parts == 1) {  // a single part keeps its own summary and source
      out.summary = p->summary;
      out.source = p->source;
    }
  }
  if (parts > 1) out.summary.clear();
  return out;
}

Result<Profile> load_profile(std::string_view spec, const std::vector<std::string>& overrides) {
  auto p = load_profile_unfinished(spec);
  if (!p) return p;
  for (const auto& o : overrides) {
    Status st = p->apply_override(o);
    if (!st.ok()) return st;
  }
  Status st = p->finish();
  if (!st.ok()) return st;
  return p;
}

}  // namespace sd
